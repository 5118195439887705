"""The looplab command and path guards on the sixth held-out set (``shell_cases/heldout6_guards.yaml``):
files the shell itself opens (``$(< f)``, redirections on builtins, ``exec N< f``, process
substitution), and mass deletions (recursive removal of a directory, a directory's whole content
by glob or loop) through wrappers, next to single-file deletions and generated build/cache folders.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_shell_guard_heldout6.py -rx
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml
from case_params import case_params

from harness import Agent, HarnessConfig, LocalWorkspace, get_preset
from harness.testing import call, scripted

CASES = yaml.safe_load((Path(__file__).parent / "shell_cases" / "heldout6_guards.yaml").read_text("utf-8"))
MISSES: dict[str, str] = {}
"""Case ids the guards get wrong, with the reason (left unfixed on purpose)."""
_ROWS = "id,name\n1,Ada\n2,Grace\n"
_STOPPED = ("destructive command", "path outside the workspace")


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    """ws/ holds data/ (customers.csv, tmp/part.csv), build/ (a.o, cache/a.bin) and notes.txt;
    secret/deploy.key lies next to it."""
    root = tmp_path / "ws"
    for d in ("data/tmp", "build/cache"):
        (root / d).mkdir(parents=True)
    (tmp_path / "secret").mkdir()
    (tmp_path / "secret" / "deploy.key").write_text("KEY-123\n")
    (root / "data" / "customers.csv").write_text(_ROWS)
    (root / "data" / "tmp" / "part.csv").write_text(_ROWS)
    (root / "build" / "a.o").write_text("obj\n")
    (root / "build" / "cache" / "a.bin").write_text("bin\n")
    (root / "notes.txt").write_text("keep me\n")
    return root


def _run(ws: Path, command: str):
    preset = get_preset("looplab")
    cfg = HarnessConfig(command_guard=preset.command_guard, path_guard=preset.path_guard)
    res = asyncio.run(Agent(cfg, scripted([call("bash", command=command)], "done"), LocalWorkspace(ws)).run("go"))
    return next(m for m in res.messages if m.role == "tool")


def _params(cls: str, kind: str) -> list:
    return case_params(CASES[cls][kind], f"{cls}-{kind}", MISSES)


@pytest.mark.parametrize("command", _params("shell_reads", "blocked") + _params("mass_delete", "blocked"))
def test_stops_shell_reads_outside_and_mass_deletions(ws: Path, command: str) -> None:
    msg = _run(ws, command)
    assert msg.is_error and any(s in msg.content for s in _STOPPED), msg.content
    assert "KEY-123" not in msg.content
    assert (ws / "data" / "customers.csv").read_text() == _ROWS and (ws / "data" / "tmp" / "part.csv").is_file()


@pytest.mark.parametrize("command", _params("shell_reads", "allowed") + _params("mass_delete", "allowed"))
def test_lets_workspace_reads_and_single_deletions_run(ws: Path, command: str) -> None:
    msg = _run(ws, command)
    assert not any(s in msg.content for s in _STOPPED), msg.content
    assert (ws / "data" / "customers.csv").read_text() == _ROWS
