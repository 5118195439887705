"""The looplab command and path guards on the fifth held-out set (``shell_cases/heldout5_guards.yaml``):
working-tree files removed as a side effect of version-control and archiving tools, workspace
files moved out of the workspace (temp dirs, the parent, home), and read-only scripting one-liners
whose patterns mention destructive words (with one-liners of the same shapes that do destroy).

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_shell_guard_heldout5.py -rx

A case the guards get wrong stays in the file, marked as an expected failure with the reason
(``MISSES``), instead of being fixed by a rule made for it.
"""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

import pytest
import yaml
from case_params import case_params

from harness import Agent, HarnessConfig, LocalWorkspace, get_preset
from harness.testing import call, scripted

CASES = yaml.safe_load((Path(__file__).parent / "shell_cases" / "heldout5_guards.yaml").read_text("utf-8"))
MISSES: dict[str, str] = {}
"""Case ids the guards get wrong, with the reason (left unfixed on purpose)."""
_ROWS = "id,name\n1,Ada\n2,Grace\n"
_STOPPED = ("destructive command", "path outside the workspace")


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """ws/ is a git repository (data/customers.csv, data/list.txt, src/app.py committed;
    notes/todo.txt untracked); home/ and tmp/ next to it are HOME and TMPDIR."""
    ws = tmp_path / "ws"
    for d in ("data", "src", "notes"):
        (ws / d).mkdir(parents=True)
    (tmp_path / "home").mkdir()
    (tmp_path / "tmp").mkdir()
    (ws / "data" / "customers.csv").write_text(_ROWS)
    (ws / "data" / "list.txt").write_text("data/customers.csv\n")
    (ws / "src" / "app.py").write_text("import shutil\nshutil.rmtree('build')  # rm -rf build\n")
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    subprocess.run(["git", "add", "data", "src"], cwd=ws, check=True)
    subprocess.run([*git, "commit", "-qm", "init"], cwd=ws, check=True)
    (ws / "notes" / "todo.txt").write_text("keep me\n")
    return ws


def _run(ws: Path, command: str):
    preset = get_preset("looplab")
    cfg = HarnessConfig(command_guard=preset.command_guard, path_guard=preset.path_guard)
    env = {"HOME": str(ws.parent / "home"), "TMPDIR": str(ws.parent / "tmp")}
    res = asyncio.run(Agent(cfg, scripted([call("bash", command=command)], "done"), LocalWorkspace(ws, env)).run("go"))
    return next(m for m in res.messages if m.role == "tool")


def _intact(ws: Path) -> bool:
    return (ws / "data" / "customers.csv").is_file() and (ws / "data" / "customers.csv").read_text() == _ROWS


def _params(cls: str, kind: str) -> list:
    return case_params(CASES[cls][kind], f"{cls}-{kind}", MISSES)


@pytest.mark.parametrize("command", _params("side_effects", "blocked") + _params("move_out", "blocked")
                         + _params("readonly_code", "blocked") + _params("next_members", "blocked")
                         + _params("found_while_fixing", "blocked"))
def test_stops_lines_that_remove_or_move_workspace_files(repo: Path, command: str) -> None:
    msg = _run(repo, command)
    assert msg.is_error and any(s in msg.content for s in _STOPPED), msg.content
    assert _intact(repo) and (repo / "notes" / "todo.txt").is_file()


@pytest.mark.parametrize("command", _params("side_effects", "allowed") + _params("move_out", "allowed")
                         + _params("readonly_code", "allowed") + _params("next_members", "allowed")
                         + _params("found_while_fixing", "allowed"))
def test_lets_lines_that_keep_workspace_files_run(repo: Path, command: str) -> None:
    msg = _run(repo, command)
    assert not any(s in msg.content for s in _STOPPED), msg.content


def test_every_case_is_one_command_line() -> None:
    """A YAML slip (an unquoted ``{k: v}`` or ``: ``) would turn a case into a mapping and test nothing."""
    cases = [c for groups in CASES.values() for kind in groups.values() for c in kind]
    assert len(cases) > 100 and all(isinstance(c, str) and c.strip() for c in cases)
