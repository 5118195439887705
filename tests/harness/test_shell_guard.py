"""The shell-aware command and path guards: what the switches change, on real runs and on a
workspace reached only through ``exec``; the seeds' guards stay as they were."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from exec_only_workspace import ExecOnlyWorkspace

from harness import Agent, HarnessConfig, LocalWorkspace, get_preset
from harness.security.commands import CommandGuard, check_shell_command
from harness.security.config import CommandGuardConfig
from harness.security.paths import check_shell_paths
from harness.security.patterns import PatternFileError
from harness.shell import parse
from harness.shell.file_args import path_words
from harness.testing import call, scripted


def _run(cfg: HarnessConfig, ws: Path, command: str):
    res = asyncio.run(Agent(cfg, scripted([call("bash", command=command)], "done"), LocalWorkspace(ws)).run("go"))
    return next(m for m in res.messages if m.role == "tool")


@pytest.fixture
def canary(tmp_path: Path) -> Path:
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "rows.csv").write_text("id\n1\n")
    return tmp_path


def test_looplab_blocks_find_delete_and_the_data_survives(canary: Path) -> None:
    msg = _run(HarnessConfig(command_guard=get_preset("looplab").command_guard), canary, "find data -delete")
    assert msg.is_error and "bulk-delete" in msg.content
    assert (canary / "data" / "rows.csv").read_text() == "id\n1\n"


def test_seed004_guard_is_unchanged_it_misses_find_delete(canary: Path) -> None:
    _run(HarnessConfig(command_guard=get_preset("seed004").command_guard), canary, "find data -delete")
    assert not (canary / "data").exists()


@pytest.mark.parametrize("command", ["grep -rl 'rm -rf' .", 'echo "DROP TABLE users"'])
def test_mentions_are_blocked_by_the_seed_guard_and_not_by_the_shell_aware_one(command: str) -> None:
    assert CommandGuard(get_preset("seed004").command_guard).check(command).blocked
    assert not CommandGuard(get_preset("looplab").command_guard).check(command).blocked


def test_a_disabled_rule_lets_its_commands_through() -> None:
    cfg = CommandGuardConfig(enabled=True, shell_aware=True, disabled=["git-clean"])
    assert not CommandGuard(cfg).check("git clean -fdx").blocked
    assert CommandGuard(cfg).check("git reset --hard").blocked


def test_unparseable_lines_fail_closed_with_a_note_in_the_guidance() -> None:
    verdict = check_shell_command("rm -rf data $(")
    assert verdict.blocked and "could not be parsed" in verdict.guidance
    assert not parse("rm -rf data $(").parsed


def test_a_shell_rules_file_without_guidance_names_the_file(tmp_path: Path) -> None:
    bad = tmp_path / "rules.yaml"
    bad.write_text("blocked: []\nshell_rules:\n  - {id: rm-rf}\n")
    with pytest.raises(PatternFileError, match=r"rules\.yaml: shell_rules\[0\]"):
        CommandGuard(CommandGuardConfig(enabled=True, shell_aware=True, patterns_file=str(bad)))


def test_path_words_follow_cd_and_skip_urls_messages_and_printing() -> None:
    words = path_words("cd src && cat ../a.txt; curl https://x.invalid/y; git commit -m 'see ../b'; echo ../c")
    assert [(cwd, w) for cwd, w in words if "/" in w or w == "src"] == [(".", "src"), ("src", "../a.txt")]




def test_shell_paths_resolve_inside_an_exec_only_workspace(tmp_path: Path) -> None:
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "src").mkdir(parents=True)
    outside.mkdir()
    os.symlink(outside, ws / "link")
    words = [(".", "src/a.py"), (".", "link/secret"), ("src", "../../outside/x"), (".", "~/.ssh/id_rsa")]
    checks = asyncio.run(check_shell_paths(ExecOnlyWorkspace(ws), words))
    assert [c.inside for c in checks] == [True, False, False, False]


def test_tilde_words_resolve_as_bash_reads_them_and_unknown_homes_fail_closed(tmp_path: Path) -> None:
    # `cat ~+/../secret` ended the run on a RuntimeError (no user named "+"): ~+ is the current
    # directory; ~- and an unknown user's home cannot be fixed here, so they count as outside.
    (tmp_path / "src").mkdir()
    words = [(".", "~+/src/a"), ("src", "~+"), (".", "~+/../x"), (".", "~-/x"), (".", "~no-such-user-looplab/x")]
    checks = asyncio.run(check_shell_paths(LocalWorkspace(str(tmp_path)), words))
    assert [c.inside for c in checks] == [True, True, False, False, False]


def test_seed_presets_leave_shell_file_arguments_alone(tmp_path: Path) -> None:
    (tmp_path / "ws").mkdir()
    (tmp_path / "secret.txt").write_text("TOP SECRET")
    msg = _run(HarnessConfig(path_guard=get_preset("seed004").path_guard), tmp_path / "ws", "cat ../secret.txt")
    assert "TOP SECRET" in msg.content


def test_input_that_makes_bashlex_loop_forever_is_read_by_the_tokenizer() -> None:
    # bashlex 0.18 never returns on this line (an unmatched quote inside a backtick substitution);
    # found by fuzzing the guard with 2,000 random lines.
    line = "x`{xargs >Z`'A&&case x in>|b -c d|c}rm -rf x${6'6\n> f(f^|{[[for i in&&O|[[`&&> f|\"r<!"
    parsed = parse(line)
    assert not parsed.parsed
    assert check_shell_command(line).blocked  # the rm -rf in it still counts


@pytest.fixture
def data_ws(tmp_path: Path) -> Path:
    """data.csv and src/main.py hold content; keep -> data.csv."""
    (tmp_path / "src").mkdir()
    (tmp_path / "data.csv").write_text("id\n1\n")
    (tmp_path / "src" / "main.py").write_text("print(1)\n")
    os.symlink(tmp_path / "data.csv", tmp_path / "keep")
    return tmp_path


@pytest.mark.parametrize(("command", "blocked"), [(": > data.csv", True), (": > fresh.txt", False),
                                                  ("touch e && mv e keep", True), ("cp /dev/null new.txt", False)])
def test_a_workspace_reached_only_through_exec_answers_which_files_exist(data_ws: Path, command: str,
                                                                         blocked: bool) -> None:
    cfg = HarnessConfig(command_guard=get_preset("looplab").command_guard)
    res = asyncio.run(Agent(cfg, scripted([call("bash", command=command)], "done"),
                            ExecOnlyWorkspace(data_ws)).run("go"))  # type: ignore[arg-type]
    msg = next(m for m in res.messages if m.role == "tool")
    assert ("destructive command" in msg.content) is blocked, msg.content
    assert (data_ws / "data.csv").read_text() == "id\n1\n"


def test_a_blocked_line_is_never_run_and_an_allowed_one_runs(data_ws: Path) -> None:
    # The rule cases are judged before the call (nothing runs); here the verdict meets the files.
    cfg = HarnessConfig(command_guard=get_preset("looplab").command_guard)
    assert _run(cfg, data_ws, ": > data.csv").is_error
    assert (data_ws / "data.csv").read_text() == "id\n1\n"
    assert not _run(cfg, data_ws, ": > fresh.txt").is_error
    assert (data_ws / "fresh.txt").exists()
