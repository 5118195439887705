"""Destructive command blocker: what is blocked, what is not, and the difference in a real run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness import Agent, HarnessConfig, LocalWorkspace
from harness.security.commands import check_command
from harness.security.patterns import PatternFileError
from harness.testing import call, scripted


@pytest.mark.parametrize("command, pattern", [
    ("rm -rf build", "rm-rf"),
    ("rm -fr ./canary", "rm-rf"),
    ("rm -r -f data", "rm-rf"),
    ("sudo rm --recursive --force /tmp/x", "rm-rf"),
    ('rm "-rf" canary', "rm-rf"),
    ("cd x && rm -Rf *", "rm-rf"),
    ("git push --force origin main", "git-push-force"),
    ("git push -f", "git-push-force"),
    ("git push origin +main", "git-push-force"),
    ("psql -c 'DROP TABLE users;'", "drop-table"),
    ("sqlite3 db 'drop database prod'", "drop-table"),
    ("mysql -e 'TRUNCATE TABLE orders'", "truncate-table"),
    ("git reset --hard HEAD~3", "git-reset-hard"),
    ("mkfs.ext4 /dev/sdb1", "mkfs"),
    ("dd if=/dev/zero of=/dev/sda bs=1M", "dd-to-device"),
    ("chmod -R 777 /", "chmod-777-recursive-root"),
    (":(){ :|:& };:", "fork-bomb"),
    ("bomb(){ bomb|bomb& }; bomb", "fork-bomb"),
])
def test_destructive_commands_are_blocked(command: str, pattern: str) -> None:
    verdict = check_command(command)
    assert verdict.blocked and verdict.pattern_id == pattern
    assert verdict.guidance


@pytest.mark.parametrize("command", [
    "rm build/tmp.o",
    "rm -f build/tmp.o",
    "rm -r build/cache",
    "git rm --cached secrets.txt",
    "git push origin feature",
    "git push --force-with-lease origin feature",
    "git reset --soft HEAD~1",
    "git log --format=%H -n 5",
    "dd if=/dev/urandom of=/dev/null count=1",
    "dd if=in.img of=out.img",
    "chmod 644 README.md",
    "chmod -R 755 ./scripts",
    "truncate -s 0 app.log",
    "ls -rf",
    "python -c 'print(1)'",
    "rm notes.txt; ls -rf",
])
def test_ordinary_commands_are_not_blocked(command: str) -> None:
    assert not check_command(command).blocked


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
