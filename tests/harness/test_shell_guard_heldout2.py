"""The looplab command and path guards on the second held-out set
(``shell_cases/heldout_inplace_expansion.yaml``): in-place edits that destroy a file's content,
read-only commands and partial edits that must still run, and path arguments the shell computes
(command substitution, parameter expansion, variables) inside and outside the workspace.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_shell_guard_heldout2.py -rx

A case the guards get wrong stays in the file, marked as an expected failure with the reason
(``MISSES``), instead of being fixed by a rule made for it.
"""

from __future__ import annotations

import asyncio
from functools import cache
from pathlib import Path

import pytest
import yaml
from case_params import case_params

from harness import Agent, HarnessConfig, LocalWorkspace, get_preset
from harness.security.commands import CommandGuard
from harness.testing import call, scripted

CASES = yaml.safe_load((Path(__file__).parent / "shell_cases" / "heldout_inplace_expansion.yaml").read_text("utf-8"))
MISSES: dict[str, str] = {}
"""Case ids the guards get wrong, with the reason (left unfixed on purpose)."""


def _params(section: str, kind: str) -> list:
    return case_params(CASES[section][kind], kind, MISSES)


@cache
def _guard() -> CommandGuard:
    return CommandGuard(get_preset("looplab").command_guard)


@pytest.mark.parametrize("command", _params("commands", "blocked"))
def test_blocks_commands_that_destroy_file_content(command: str) -> None:
    verdict = _guard().check(command)
    assert verdict.blocked, command
    assert verdict.guidance


@pytest.mark.parametrize("command", _params("commands", "allowed"))
def test_lets_partial_edits_and_mentions_run(command: str) -> None:
    verdict = _guard().check(command)
    assert not verdict.blocked, (command, verdict.pattern_id)


def _shell_run(ws: Path, command: str):
    cfg = HarnessConfig(path_guard=get_preset("looplab").path_guard)
    res = asyncio.run(Agent(cfg, scripted([call("bash", command=command)], "done"), LocalWorkspace(ws)).run("go"))
    return next(m for m in res.messages if m.role == "tool")


@pytest.mark.parametrize("command", _params("paths", "denied"))
def test_denies_computed_paths_outside_the_workspace(layout: Path, command: str) -> None:
    msg = _shell_run(layout, command)
    assert msg.is_error and "TOP SECRET" not in msg.content, msg.content
    assert "path outside the workspace" in msg.content, msg.content  # denied, not merely failed


@pytest.mark.parametrize("command", _params("paths", "allowed"))
def test_lets_computed_paths_inside_the_workspace_run(layout: Path, command: str) -> None:
    msg = _shell_run(layout, command)
    assert "outside the workspace" not in msg.content and "denied" not in msg.content.lower()[:200], msg.content
