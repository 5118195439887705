"""The one wrapper table (``harness/shell/programs.yaml``), checked over every entry: whatever
loop detection reads through, the command guard and the path guard read through too.

For each wrapper the test builds a line from the table's own description of it (its subcommand,
each option that takes a value, its operands, an assignment where it takes them) in front of a
destructive command and in front of a read outside the workspace, and asks each control what
runs. A wrapper added to the table is covered without touching this file.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_shell_wrappers.py
"""

from __future__ import annotations

import shlex
from functools import cache

import pytest

from harness import get_preset
from harness.controls.loop_normalise import shell_key
from harness.security.commands import CommandGuard
from harness.shell.file_args import path_words
from harness.shell.wrappers import Wrapper, unwrap, wrappers


def _prefixes(name: str, spec: Wrapper) -> list[list[str]]:
    """Ways to put ``name`` in front of a command, as the table describes it."""
    sub = [sorted(spec.sub)[0]] if spec.sub else []
    operands = ["1"] * spec.operands
    out = [[name, *sub, *operands]]
    for option in sorted(spec.valued):
        out.append([name, *sub, option, "7", *operands])
    if spec.assignments:
        out.append([name, *sub, "LC_ALL=C", *operands])
    return out


def _cases() -> list:
    return [pytest.param(prefix, id=" ".join(prefix)) for name, spec in sorted(wrappers().items())
            for prefix in _prefixes(name, spec)]


@cache
def _guard() -> CommandGuard:
    return CommandGuard(get_preset("looplab").command_guard)


def test_the_table_covers_the_wrappers_both_readers_used_to_list() -> None:
    # numactl and eatmydata were read through by loop detection only; watch and strace by the
    # guards only. One table: both read all of them.
    assert {"numactl", "eatmydata", "watch", "strace", "timeout", "sudo", "uv", "npx"} <= set(wrappers())
    assert len(wrappers()) > 80


@pytest.mark.parametrize("prefix", _cases())
def test_loop_detection_reads_through_the_wrapper(prefix: list[str]) -> None:
    assert unwrap([*prefix, "rm", "-rf", "data"])[0] == ["rm", "-rf", "data"]
    line = shlex.join([*prefix, "make", "test"])
    assert shell_key(line) == shell_key("make test"), line


@pytest.mark.parametrize("prefix", _cases())
def test_the_command_guard_reads_through_the_wrapper(prefix: list[str]) -> None:
    line = shlex.join([*prefix, "rm", "-rf", "data"])
    verdict = _guard().check(line)
    assert verdict.blocked and verdict.pattern_id == "rm-rf", line


@pytest.mark.parametrize("prefix", _cases())
def test_the_path_guard_reads_through_the_wrapper(prefix: list[str]) -> None:
    line = shlex.join([*prefix, "cat", "../secret.txt"])
    assert "../secret.txt" in [w for _, w in path_words(line, "/ws")], line


@pytest.mark.parametrize("line", ["numactl -N 0 rm -rf data", "eatmydata rm -rf data"])
def test_wrapped_deletions_are_blocked_like_the_bare_one(line: str) -> None:
    assert _guard().check("rm -rf data").blocked
    assert _guard().check(line).blocked


@pytest.mark.parametrize("shell", [["bash", "-c"], ["bash", "-o", "pipefail", "-c"], ["zsh", "-l", "-c"],
                                   ["su", "-", "app", "-lc"], ["busybox", "sh", "-c"]])
def test_a_shells_script_is_read_the_same_by_the_guard_and_loop_detection(shell: list[str]) -> None:
    # The guard once read `bash -o pipefail -c SCRIPT` as a script file named `pipefail`.
    assert _guard().check(shlex.join([*shell, "rm -rf data"])).blocked
    assert shell_key(shlex.join([*shell, "make test"])) == shell_key("make test")
