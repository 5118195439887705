"""The looplab command and path guards on case files: held-out cases (written before the
shell-aware guards, never tuned on) and tuned cases, kept apart so both rates can be reported.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_shell_guard_cases.py -rx

A held-out case the guard gets wrong stays in the file, marked as an expected failure with the
reason (``HELDOUT_MISSES``): the rate is the measurement, not something to fit.
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

CASES = Path(__file__).parent / "shell_cases"
HELDOUT_MISSES: dict[str, str] = {}
"""Held-out commands the guard gets wrong, with the reason (left unfixed on purpose)."""


def _load(name: str) -> dict:
    return yaml.safe_load((CASES / name).read_text(encoding="utf-8"))


def _params(groups: dict[str, list[str]], split: str) -> list:
    return case_params(groups, split, HELDOUT_MISSES)


@cache
def _guard() -> CommandGuard:
    return CommandGuard(get_preset("looplab").command_guard)


def _cases(split: str, kind: str) -> list:
    name = f"{split}_commands.yaml"
    return _params(_load(name)[kind], split) if (CASES / name).exists() else []


@pytest.mark.parametrize("command", _cases("heldout", "blocked") + _cases("tuned", "blocked"))
def test_looplab_blocks_destructive_commands(command: str) -> None:
    verdict = _guard().check(command)
    assert verdict.blocked, command
    assert verdict.guidance


@pytest.mark.parametrize("command", _cases("heldout", "allowed") + _cases("tuned", "allowed"))
def test_looplab_lets_read_only_and_ordinary_commands_run(command: str) -> None:
    verdict = _guard().check(command)
    assert not verdict.blocked, (command, verdict.pattern_id)


# --- the path guard on shell commands ---------------------------------------------------------


def _shell_run(ws: Path, command: str):
    cfg = HarnessConfig(path_guard=get_preset("looplab").path_guard)
    command = command.replace("{outside}", str(ws.parent / "outside"))
    res = asyncio.run(Agent(cfg, scripted([call("bash", command=command)], "done"), LocalWorkspace(ws)).run("go"))
    return next(m for m in res.messages if m.role == "tool")


def _path_cases(kind: str) -> list:
    out = []
    for split in ("heldout", "tuned"):
        path = CASES / f"{split}_shell_paths.yaml"
        if path.exists():
            out += [pytest.param(c, id=f"{split}-{i}") for i, c in enumerate(_load(path.name)[kind])]
    return out


@pytest.mark.parametrize("command", _path_cases("denied"))
def test_looplab_denies_shell_file_arguments_outside_the_workspace(layout: Path, command: str) -> None:
    msg = _shell_run(layout, command)
    assert msg.is_error and "TOP SECRET" not in msg.content, msg.content


@pytest.mark.parametrize("command", _path_cases("allowed"))
def test_looplab_lets_shell_commands_inside_the_workspace_run(layout: Path, command: str) -> None:
    msg = _shell_run(layout, command)
    assert "outside the workspace" not in msg.content and "denied" not in msg.content.lower()[:200], msg.content
