"""The looplab path and command guards on the fourth held-out set
(``shell_cases/heldout4_guards.yaml``): interpreter one-liners that reach outside the workspace
through computed paths (and benign ones that stay inside), arguments of the workspace's own
programs, and output-less writes onto new files (harmless) or existing ones (destructive).

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_shell_guard_heldout4.py -rx

A case the guards get wrong stays in the file, marked as an expected failure with the reason
(``MISSES``), instead of being fixed by a rule made for it.
"""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
import yaml
from case_params import case_params
from exec_only_workspace import ExecOnlyWorkspace

from harness import Agent, HarnessConfig, LocalWorkspace, get_preset
from harness.testing import call, scripted

CASES = yaml.safe_load((Path(__file__).parent / "shell_cases" / "heldout4_guards.yaml").read_text("utf-8"))
MISSES: dict[str, str] = {}
"""Case ids the guards get wrong, with the reason (left unfixed on purpose)."""


def _run(cfg: HarnessConfig, ws: Path, command: str):
    command = command.replace("{outside}", str(ws.parent / "outside"))
    res = asyncio.run(Agent(cfg, scripted([call("bash", command=command)], "done"), LocalWorkspace(ws)).run("go"))
    return next(m for m in res.messages if m.role == "tool")


def _paths(kind: str) -> list:
    return case_params(CASES["paths"][kind], kind, MISSES)


@pytest.mark.parametrize("command", _paths("denied"))
def test_denies_paths_outside_the_workspace(layout: Path, command: str) -> None:
    msg = _run(HarnessConfig(path_guard=get_preset("looplab").path_guard), layout, command)
    assert msg.is_error and "TOP SECRET" not in msg.content, msg.content
    assert "path outside the workspace" in msg.content, msg.content  # denied, not merely failed


@pytest.mark.parametrize("command", _paths("allowed"))
def test_lets_commands_that_stay_inside_run(layout: Path, command: str) -> None:
    msg = _run(HarnessConfig(path_guard=get_preset("looplab").path_guard), layout, command)
    assert "path outside the workspace" not in msg.content, msg.content


@pytest.fixture
def data_ws(tmp_path: Path) -> Path:
    """data.csv and src/main.py hold content; keep -> data.csv."""
    (tmp_path / "src").mkdir()
    (tmp_path / "data.csv").write_text("id\n1\n")
    (tmp_path / "src" / "main.py").write_text("print(1)\n")
    os.symlink(tmp_path / "data.csv", tmp_path / "keep")
    return tmp_path


def _guarded() -> HarnessConfig:
    return HarnessConfig(command_guard=get_preset("looplab").command_guard)


@pytest.mark.parametrize("command", case_params(CASES["truncation"]["blocked"], "trunc-blocked", MISSES))
def test_blocks_emptying_an_existing_file(data_ws: Path, command: str) -> None:
    msg = _run(_guarded(), data_ws, command)
    assert msg.is_error and "destructive command" in msg.content, msg.content
    assert (data_ws / "data.csv").read_text() == "id\n1\n"
    assert (data_ws / "src" / "main.py").read_text() == "print(1)\n"


@pytest.mark.parametrize("command", case_params(CASES["truncation"]["allowed"], "trunc-allowed", MISSES))
def test_lets_new_empty_files_be_created(data_ws: Path, command: str) -> None:
    msg = _run(_guarded(), data_ws, command)
    assert "destructive command" not in msg.content, msg.content
    assert (data_ws / "data.csv").read_text() == "id\n1\n"


@pytest.mark.parametrize(("command", "blocked"), [(": > data.csv", True), (": > fresh.txt", False),
                                                  ("touch e && mv e keep", True), ("cp /dev/null new.txt", False)])
def test_a_workspace_reached_only_through_exec_answers_which_files_exist(data_ws: Path, command: str,
                                                                         blocked: bool) -> None:
    res = asyncio.run(Agent(_guarded(), scripted([call("bash", command=command)], "done"),
                            ExecOnlyWorkspace(data_ws)).run("go"))  # type: ignore[arg-type]
    msg = next(m for m in res.messages if m.role == "tool")
    assert ("destructive command" in msg.content) is blocked, msg.content
    assert (data_ws / "data.csv").read_text() == "id\n1\n"
