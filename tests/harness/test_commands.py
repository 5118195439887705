"""Destructive command blocker in a real run: the difference it makes, switches, bad rule files.

What each rule blocks and lets run are its cases (``harness/rules/cases/seed_commands``,
``shell_commands``), run by ``test_rule_cases.py``."""

from __future__ import annotations

import asyncio
import os
import subprocess
import sys
from pathlib import Path

import pytest

from harness import Agent, HarnessConfig, LocalWorkspace
from harness.security.patterns import PatternFileError
from harness.testing import call, scripted


def _run(cfg: HarnessConfig, tmp_path: Path, command: str):
    (tmp_path / "canary").mkdir()
    (tmp_path / "canary" / "keep.txt").write_text("precious")
    model = scripted([call("bash", command=command)], "done")
    return asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("clean up"))


def test_blocked_in_a_run_with_guidance_and_the_files_survive(tmp_path: Path) -> None:
    res = _run(HarnessConfig(command_guard={"enabled": True}), tmp_path, "rm -rf canary")
    tool_msg = next(m for m in res.messages if m.role == "tool")
    assert tool_msg.is_error
    assert "Blocked: Use 'rm' with explicit paths, not -rf." in tool_msg.content
    assert "Original command: rm -rf canary" in tool_msg.content
    assert (tmp_path / "canary" / "keep.txt").exists()
    assert any(e.type == "security.command_blocked" for e in res.events)


def test_plain_rm_still_runs_with_the_guard_on(tmp_path: Path) -> None:
    res = _run(HarnessConfig(command_guard={"enabled": True}), tmp_path, "rm canary/keep.txt")
    assert not next(m for m in res.messages if m.role == "tool").is_error
    assert not (tmp_path / "canary" / "keep.txt").exists()


def test_without_the_guard_the_destructive_command_runs(tmp_path: Path) -> None:
    _run(HarnessConfig(), tmp_path, "rm -rf canary")
    assert not (tmp_path / "canary").exists()


def test_a_pattern_can_be_switched_off(tmp_path: Path) -> None:
    cfg = HarnessConfig(command_guard={"enabled": True, "disabled": ["rm-rf"]})
    _run(cfg, tmp_path, "rm -rf canary")
    assert not (tmp_path / "canary").exists()


def test_a_bad_pattern_file_names_the_file_and_entry(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("blocked:\n  - id: broken\n    pattern: '('\n    guidance: x\n")
    cfg = HarnessConfig(command_guard={"enabled": True, "patterns_file": str(bad)})
    with pytest.raises(PatternFileError, match=r"bad\.yaml: blocked\[0\] \(broken\)"):
        Agent(cfg, scripted("done"), LocalWorkspace(tmp_path / "ws"))


def test_a_pattern_file_given_as_a_relative_path_is_read_from_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mine.yaml").write_text("blocked:\n  - id: no-touch\n    pattern: '\\btouch\\b'\n"
                                        "    guidance: do not create files\n")
    monkeypatch.chdir(tmp_path)
    (tmp_path / "ws").mkdir()
    res = _run(HarnessConfig(command_guard={"enabled": True, "patterns_file": "./mine.yaml"}),
               tmp_path / "ws", "touch canary/new.txt")
    assert "do not create files" in next(m for m in res.messages if m.role == "tool").content
    assert not (tmp_path / "ws" / "canary" / "new.txt").exists()


def test_a_file_named_like_a_rule_file_in_the_working_directory_is_not_read(tmp_path: Path) -> None:
    """A project that holds its own ``paths.yaml``, ``system.md`` or ``tools.yaml`` runs the harness with the
    harness's rules and prompts: a bare name is always a file the package ships."""
    for name in ("volatile.yaml", "destructive_commands.yaml", "redaction_patterns.yaml", "paths.yaml",
                 "system.md", "tools.yaml"):
        (tmp_path / name).write_text("not: [the harness's rules]\n")
    script = ("import asyncio, pathlib; from harness import Agent, HarnessConfig, LocalWorkspace;"
              "from harness.testing import call, scripted;"
              "ws = pathlib.Path('ws'); (ws / 'canary').mkdir(parents=True);"
              "m = scripted([call('bash', command='rm -rf canary')], 'done');"
              "asyncio.run(Agent(HarnessConfig(command_guard={'enabled': True}), m, LocalWorkspace(ws)).run('x'));"
              "print('kept' if (ws / 'canary').exists() else 'deleted')")
    root = Path(__file__).resolve().parents[2]
    out = subprocess.run([sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(root)}, timeout=120)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.strip() == "kept"
