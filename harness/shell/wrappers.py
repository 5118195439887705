"""Programs that run another command without changing what it does: the one wrapper table.

A model retrying a failing command often puts something in front of it: a time limit
(``timeout 30``, then ``timeout 90s``), a priority (``nice -n 10``), an environment (``env
RUST_LOG=debug``, ``uv run``, ``npx``), a user (``sudo -u app``), a measurement (``time``), CPU
placement (``numactl -N 0``), a lock (``flock``). What runs is the command after it. Loop
detection compares calls by that command (``meaning``); the command and path guards judge
that command (``runs``). Both read the table of ``programs.yaml`` through ``wrapped``, so
whatever one reads through, the other does too (``tests/harness/test_shell_wrappers.py``).

Each wrapper is described by how its own words are built (options, how many take a value,
operands such as ``timeout``'s duration, a subcommand such as ``uv run``), not by the commands
seen, so any option value and any nesting is skipped the same way.

``xargs`` runs the command on its input: loop detection keeps it as a marker (``xargs>flake8``)
without its options, since ``-0``, ``-r`` or ``-P 4`` change how the input is split or how many
run at once, not what runs.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

PROGRAMS_FILE = Path(__file__).with_name("programs.yaml")


@dataclass(frozen=True)
class Wrapper:
    valued: frozenset[str] = frozenset()
    """Options followed by a separate value (``-n 10``, ``--signal KILL``)."""
    operands: int = 0
    """Words before the command that are the wrapper's own (``timeout``'s duration)."""
    sub: frozenset[str] = frozenset()
    """The subcommands that make the program a wrapper (``uv run``); empty: always."""
    assignments: bool = False
    """``NAME=value`` words before the command are the wrapper's (``env``)."""
    runs_nothing_with: frozenset[str] = frozenset()
    """Options with which the program runs no command (``command -v make``)."""


@cache
def programs() -> dict[str, Any]:
    """``programs.yaml``, read once per process."""
    data = yaml.safe_load(PROGRAMS_FILE.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("wrappers"), dict):
        raise ValueError(f"{PROGRAMS_FILE}: expected a mapping with 'wrappers'")
    return data


@cache
def word_set(key: str) -> frozenset[str]:
    """A word list of ``programs.yaml`` as a set (``shells``, ``xargs_valued`` ...)."""
    return frozenset(programs()[key])


@cache
def wrappers() -> dict[str, Wrapper]:
    out = {}
    for name, spec in programs()["wrappers"].items():
        unknown = set(spec) - {"valued", "operands", "sub", "assignments", "runs_nothing_with"}
        if unknown:
            raise ValueError(f"{PROGRAMS_FILE}: wrappers.{name}: unknown keys {sorted(unknown)}")
        out[name] = Wrapper(frozenset(spec.get("valued", ())), int(spec.get("operands", 0)),
                            frozenset(spec.get("sub", ())), bool(spec.get("assignments", False)),
                            frozenset(spec.get("runs_nothing_with", ())))
    return out


def program(argv: list[str]) -> str:
    """The program's name as the controls compare it: no directory, no leading backslash
    (``/usr/bin/timeout``, ``\\rm`` and ``timeout``, ``rm`` are one program)."""
    return posixpath.basename(argv[0].lstrip("\\")) if argv else ""


_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")


def skip_options(argv: list[str], i: int, valued: frozenset[str] | set[str], assignments: bool = False) -> int:
    """Index of the first word from ``i`` that is not an option (nor, with ``assignments``, a
    ``NAME=value``); ``--`` ends the options and is skipped."""
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return i + 1
        if assignments and _ASSIGNMENT.match(word):
            i += 1
        elif word.startswith("-") and len(word) > 1:
            i += 2 if word in valued else 1  # `-n10`, `--signal=KILL`: the value is attached
        else:
            break
    return i


def wrapped(argv: list[str]) -> list[str] | None:
    """The command the wrapper ``argv[0]`` runs, its own words skipped; None when the program is
    no wrapper, or this use of it runs no command (``uv sync``, ``env`` alone, ``command -v x``)."""
    spec = wrappers().get(program(argv))
    if spec is None:
        return None
    i = 1
    if spec.sub:  # options may come before the subcommand: `uv --directory api run make`
        i = skip_options(argv, 1, spec.valued)
        if i >= len(argv) or argv[i] not in spec.sub:
            return None
        i += 1
    end = skip_options(argv, i, spec.valued, spec.assignments)
    if spec.runs_nothing_with & set(argv[i:end]):
        return None
    end += spec.operands
    return argv[end:] if end < len(argv) else None


_DEPTH = 8


def unwrap(argv: list[str]) -> tuple[list[str], str]:
    """The command the wrappers in front of ``argv`` run, and ``"xargs>"`` when it runs through
    ``xargs``: ``["timeout", "30", "nice", "-n", "5", "make"]`` -> ``(["make"], "")``. A wrapper
    with no command after it (``env`` alone prints the environment) is the command itself."""
    via = ""
    for _ in range(_DEPTH):
        if program(argv) == "xargs":  # its -I {} is kept with the command, whose words use the name
            i, keep = xargs_command(argv)
            rest, via = ([argv[i], *keep, *argv[i + 1:]], "xargs>") if i < len(argv) else (None, via)
        else:
            rest = wrapped(argv)
        if not rest:
            break
        argv = rest
    return argv, via


_XARGS_REPLACE = re.compile(r"^(?:-I|-i|--replace)")


def xargs_command(argv: list[str]) -> tuple[int, list[str]]:
    """Where the command ``xargs`` runs starts in ``argv``, and its replace option (``-I {}``)."""
    i, keep = 1, []
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        word = argv[i]
        if _XARGS_REPLACE.match(word):
            keep.append(word)
            if word in ("-I", "--replace") and i + 1 < len(argv):
                keep.append(argv[i + 1])
                i += 1
        elif word in word_set("xargs_valued"):
            i += 1
        i += 1
    if i < len(argv) and argv[i] == "--":
        i += 1
    return i, keep
