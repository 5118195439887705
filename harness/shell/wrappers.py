"""Programs that run another command without changing what it does: the one wrapper table.

A model retrying a failing command often puts something in front of it: a time limit
(``timeout 30``, then ``timeout 90s``), a priority (``nice -n 10``), an environment (``env
RUST_LOG=debug``, ``uv run``, ``npx``), a user (``sudo -u app``), a measurement (``time``), CPU
placement (``numactl -N 0``), a lock (``flock``). What runs is the command after it. Loop
detection compares calls by that command (``meaning``); the command and path guards judge
that command (``expand``). Both read the table of ``programs.yaml`` through ``wrapped``, so
whatever one reads through, the other does too (``tests/harness/test_shell_wrappers.py``).

Each wrapper is described by how its own words are built (options, how many take a value,
operands such as ``timeout``'s duration, a subcommand such as ``uv run``), not by the commands
seen, so any option value and any nesting is skipped the same way.

``xargs`` runs the command on its input: loop detection keeps it as a marker (``xargs>flake8``)
without its options, since ``-0``, ``-r`` or ``-P 4`` change how the input is split or how many
run at once, not what runs.

What actually runs (``expand``, for the guards): ``sudo rm``, ``env X=1 rm``, ``timeout 5 rm``,
``xargs rm``, ``find -exec rm {} ;``, ``bash -c "rm ..."``, ``eval "rm ..."``, ``sh`` fed a
script on stdin: each runs an inner command whose meaning is what counts. ``expand`` returns the
command and every command it runs, nested shells parsed again (to a bounded depth, so a
pathological line cannot recurse without end), through the same table, and a shell's script
through the one reader (``shell_script``) loop detection uses too.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, replace
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from harness.shell.syntax import SimpleCommand, parse

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


# --- what runs: every command a command runs -----------------------------------------------------
_EXPAND_DEPTH = 4


def shells() -> frozenset[str]:
    return word_set("shells")


def expand(cmd: SimpleCommand, depth: int = 0) -> list[SimpleCommand]:
    """``cmd`` and every command it runs (wrappers unwrapped, shells and ``eval`` re-parsed)."""
    out = [cmd]
    if depth >= _EXPAND_DEPTH or not cmd.argv:
        return out
    for inner in _inner(cmd):
        out += expand(inner, depth + 1)
    return out


def _inner(cmd: SimpleCommand) -> list[SimpleCommand]:
    prog, args = program(cmd.argv), cmd.argv[1:]
    if prog in programs()["script_users"] and (script := shell_script(cmd.argv)) is not None:
        return list(parse(script).commands)
    if (rest := wrapped(cmd.argv)) is not None:
        return [_same_run(cmd, rest)]
    if prog == "git":
        return _git_runs(args)
    if prog == "nix" and args[:1] and args[0] in ("develop", "shell") and "-c" in args:  # nix develop [flake] -c CMD
        rest = args[args.index("-c") + 1:]
        return [_same_run(cmd, rest)] if rest else []
    if prog in programs()["command_strings"]:
        return _command_strings(prog, args)
    if prog == "parallel":  # parallel CMD ::: ARGS: CMD runs once per argument, like xargs
        words = args[:next((i for i, a in enumerate(args) if a.startswith(":::") or a == "::::"), len(args))]
        words = words[skip_options(words, 0, word_set("parallel_valued")):]
        inner = parse(words[0]).commands if len(words) == 1 and " " in words[0] else (SimpleCommand(words),)
        return [SimpleCommand(c.argv, c.redirects, c.stdin_text, "parallel") for c in inner if c.argv]
    if prog == "xargs":
        start, _ = xargs_command(cmd.argv)
        return [SimpleCommand(cmd.argv[start:] or ["echo"], [], "", "xargs")]
    if prog == "find":
        return _find_exec(args)
    if prog == "busybox" and args and args[0] not in shells():  # busybox rm -rf x: the applet runs
        return [_same_run(cmd, args)]
    if prog in shells():
        # find -exec sh -c 'rm "$1"' _ {} ';': still one run per file found
        return [replace(c, via=c.via or cmd.via) for c in _shell_runs(cmd)]
    if prog == "eval":
        return list(parse(" ".join(args)).commands)
    return []


def _same_run(cmd: SimpleCommand, argv: list[str]) -> SimpleCommand:
    """The command a wrapper runs: same redirections, input and loop variables as the wrapper."""
    return SimpleCommand(argv, cmd.redirects, cmd.stdin_text, cmd.via, list(cmd.piped_from), [], dict(cmd.loop_words))


def _git_runs(args: list[str]) -> list[SimpleCommand]:
    """Commands git runs for you: ``git submodule foreach CMD``, ``git bisect run CMD``,
    ``git rebase --exec CMD``, ``git filter-branch --tree-filter CMD``."""
    i = skip_options(args, 0, word_set("git_global_valued"))
    sub, rest = (args[i], args[i + 1:]) if i < len(args) else ("", [])
    if sub == "submodule" and rest[:1] == ["foreach"]:
        words = [a for a in rest[1:] if a not in ("--recursive", "-q", "--quiet")]
        return list(parse(" ".join(words)).commands) if words else []
    if sub == "bisect" and rest[:1] == ["run"]:
        return [SimpleCommand(rest[1:])] if rest[1:] else []
    out: list[SimpleCommand] = []
    for j, a in enumerate(rest):
        name, eq, value = a.partition("=")
        if sub in ("rebase", "filter-branch") and name in word_set("git_command_options"):
            out += parse(value if eq else rest[j + 1] if j + 1 < len(rest) else "").commands
    return out


def _command_strings(prog: str, args: list[str]) -> list[SimpleCommand]:
    """``script -qc 'CMD' /dev/null``, ``nix-shell --run 'CMD'``, ``sg grp -c 'CMD'``, ``hyperfine 'CMD'``."""
    opts = set(programs()["command_strings"][prog])
    out: list[SimpleCommand] = []
    for i, a in enumerate(args):
        glued = a.split("=", 1)
        if a in opts or (prog == "script" and _c_cluster(a)):
            out += parse(args[i + 1]).commands if i + 1 < len(args) else []
        elif len(glued) == 2 and glued[0] in opts:
            out += parse(glued[1]).commands
        elif prog == "hyperfine" and not a.startswith("-") and (i == 0 or args[i - 1] not in word_set("hyperfine_valued")):
            out += parse(a).commands
    return out


def _find_exec(args: list[str]) -> list[SimpleCommand]:
    out, i = [], 0
    while i < len(args):
        if args[i] in word_set("find_exec"):
            j = i + 1
            while j < len(args) and args[j] not in (";", "+", "\\;"):
                j += 1
            if args[i + 1:j]:
                out.append(SimpleCommand(args[i + 1:j], [], "", "find"))
            i = j
        i += 1
    return out


def _c_cluster(word: str) -> bool:
    """A short-option cluster that ends with ``-c`` (``-c``, ``-lc``, ``-qc``)."""
    return word.startswith("-") and not word.startswith("--") and word.endswith("c")


def has_c(word: str) -> bool:
    """A shell's short-option cluster that includes ``-c`` (``-c``, ``-lc``, ``-euxc``)."""
    return word.startswith("-") and not word.startswith("--") and "c" in word[1:]


def _shell_options(argv: list[str]) -> tuple[int, bool]:
    """Where a shell's operands start in ``argv`` (past ``-o pipefail``, ``-e``, ``+x`` ...), and
    whether ``-c`` (alone or in a cluster: ``-lc``, ``-euxc``) was among the options."""
    i, found = 1, False
    while i < len(argv) and argv[i][:1] in "-+" and argv[i] not in ("-", "--"):
        found = found or has_c(argv[i])
        i += 2 if argv[i] in ("-o", "+o", "-O", "+O") else 1
    return i, found


def shell_script(argv: list[str]) -> str | None:
    """The command line a shell runs with ``-c`` (``bash -c "make lint"``, ``zsh -l -c``,
    ``bash -o pipefail -ec``, ``busybox sh -c``) or a user switch with ``-c`` (``su - app -c
    'cmd'``, ``runuser -u app -c``), if the line gives one. Loop detection and the guards both
    read a script here."""
    if program(argv) in programs()["script_users"]:
        return next((argv[i + 1] for i, a in enumerate(argv[1:-1], 1) if a == "--command" or _c_cluster(a)), None)
    if program(argv) == "busybox" and argv[1:2] and argv[1] in shells():
        argv = argv[1:]
    if program(argv) not in shells():
        return None
    i, found = _shell_options(argv)
    return argv[i] if found and i < len(argv) else None


def _shell_runs(cmd: SimpleCommand) -> list[SimpleCommand]:
    """What a shell runs: its ``-c`` script, or the script it reads from stdin (``echo ... | sh``,
    a here-document) when no script file is named."""
    script = shell_script(cmd.argv)
    if script is not None:
        return list(parse(script).commands)
    argv = cmd.argv[1:] if program(cmd.argv) == "busybox" else cmd.argv
    i, found = _shell_options(argv)
    return list(parse(cmd.stdin_text).commands) if cmd.stdin_text and not found and i >= len(argv) else []
