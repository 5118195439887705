"""Workspace path confinement: traversal, absolute paths and symlink escapes are denied."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml
from exec_only_workspace import ExecOnlyWorkspace

from harness import Agent, HarnessConfig, LocalWorkspace
from harness.rules import CASES_DIR
from harness.security.paths import check_path
from harness.testing import call, scripted

_RULE = yaml.safe_load((CASES_DIR / "paths" / "file-tool-path.yaml").read_text(encoding="utf-8"))
CASES = [(p, False) for p in _RULE["ruleid"].values()] + [(p, True) for p in _RULE["ok"].values()]
"""The rule's own cases (harness/rules/cases/paths/file-tool-path.yaml), on both kinds of workspace."""


@pytest.mark.parametrize("path, inside", CASES)
@pytest.mark.parametrize("kind", ["local", "shell"])
def test_check_path(layout: Path, kind: str, path: str, inside: bool) -> None:
    ws = LocalWorkspace(layout) if kind == "local" else ExecOnlyWorkspace(layout)
    result = asyncio.run(check_path(ws, path))
    assert result.inside is inside, result
    assert result.root == str(layout.resolve())


def test_absolute_path_inside_the_root_is_allowed(layout: Path) -> None:
    assert asyncio.run(check_path(LocalWorkspace(layout), str(layout / "src" / "main.py"))).inside


def _run(cfg: HarnessConfig, ws: Path, *calls):
    model = scripted(list(calls), "done")
    return asyncio.run(Agent(cfg, model, LocalWorkspace(ws)).run("task"))


GUARD = HarnessConfig(path_guard={"enabled": True})


def test_reading_outside_is_denied_naming_the_root(layout: Path) -> None:
    res = _run(GUARD, layout, call("read_file", path="../outside/secret.txt"))
    msg = next(m for m in res.messages if m.role == "tool")
    assert msg.is_error and "TOP SECRET" not in msg.content
    assert "outside the workspace root" in msg.content and str(layout.resolve()) in msg.content


def test_writing_through_a_symlink_escape_is_denied(layout: Path) -> None:
    res = _run(GUARD, layout, call("write_file", path="link/planted.txt", content="x"))
    assert next(m for m in res.messages if m.role == "tool").is_error
    assert not (layout.parent / "outside" / "planted.txt").exists()


def test_list_dir_outside_is_denied_and_inside_works(layout: Path) -> None:
    res = _run(GUARD, layout, call("list_dir", path="/"), call("list_dir", path="src"))
    outside, inside = [m for m in res.messages if m.role == "tool"]
    assert outside.is_error and not inside.is_error and "main.py" in inside.content


def test_without_the_guard_the_secret_leaks(layout: Path) -> None:
    res = _run(HarnessConfig(), layout, call("read_file", path="link/secret.txt"))
    assert next(m for m in res.messages if m.role == "tool").content == "TOP SECRET"


def test_a_wrapped_local_workspace_is_checked_like_the_local_one(layout: Path) -> None:
    from harness.execution.deadlines import GatedWorkspace, WriteGate

    gate = WriteGate()
    ws = GatedWorkspace(LocalWorkspace(layout), gate)
    gate.close()  # even with the gate closed, resolving a path needs no command
    assert not asyncio.run(check_path(ws, "link/secret.txt")).inside
    assert asyncio.run(check_path(ws, "src/main.py")).inside
