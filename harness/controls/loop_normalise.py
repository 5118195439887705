"""Calls and outputs compared by meaning, not bytes (loop detection's ``normalise_calls`` and
``mask_volatile_output``).

A model stuck in a loop rarely retypes a call byte for byte: it adds a space, swaps ``-r -n``
for ``-nr``, reorders JSON keys or changes a tool name's case. And a poll that makes no progress
rarely returns the same bytes: a timestamp, an elapsed time, a PID or a request id changes every
time. ``call_key`` and ``mask_volatile`` take those differences out before the detectors compare.
"""

from __future__ import annotations

import json
import re
import shlex
from functools import lru_cache
from typing import Any

from harness.controls.loop_names import flat, name_keys
from harness.controls.loop_volatile import mask_volatile
from harness.shell.meaning import (
    READ_KEY,
    Expander,
    cd_target,
    equals_flags,
    inline_script,
    passes_through,
    path_key,
    shell_read_path,
    simple_key,
    tool_read_path,
)
from harness.shell.syntax import SimpleCommand, parse

__all__ = ["call_equals_flags", "call_key", "mask_volatile", "shell_key", "without_echo", "wrapped_keys"]


_SHELL_ARGS = ("command", "cmd")
"""The arguments that hold a shell command line (compared by meaning, ``shell_key``)."""


def call_key(
    name: str, args: dict[str, Any], root: str | None = None, bind: frozenset[str] = frozenset(),
    keyed: dict[str, str] | None = None,
) -> dict[str, Any]:
    """What identifies a call: the tool name's words run together in lower case (``run_tests``,
    ``RunTests`` and ``run-tests`` are one name, ``loop_names``), string arguments with
    whitespace collapsed and paths in normal form (``harness.shell.meaning.path_key``, ``root``: the workspace), shell
    command lines by meaning (``shell_key``; ``bind``: long flags that take a value; ``keyed``:
    arguments already keyed by the caller)."""
    norm = _Norm(root, bind)
    words = name_keys(name)[0]
    out = {k: keyed[k] if keyed and k in keyed else norm.value(v, k in _SHELL_ARGS) for k, v in args.items()}
    path = _whole_read(words.split(), args, out)
    if path is not None:  # the read tool, `cat`, `less`, `head -n 500`: one read (`harness.shell.meaning`)
        return {"name": READ_KEY, "args": {"path": path_key(" ".join(path.split()), root)}}
    return {"name": flat(words), "args": out}


def _whole_read(words: list[str], args: dict[str, Any], keyed: dict[str, Any]) -> str | None:
    """The file a call reads whole, through a read tool or a one-command shell line."""
    shell = [k for k in _SHELL_ARGS if isinstance(keyed.get(k), str)]
    if len(shell) == 1 and len(args) == 1 and keyed[shell[0]].startswith("[["):
        return shell_read_path(json.loads(keyed[shell[0]]))
    return tool_read_path(words, args)


class _Norm:
    def __init__(self, root: str | None, bind: frozenset[str]) -> None:
        self.root, self.bind = root, bind

    def value(self, v: Any, shell: bool) -> Any:
        if isinstance(v, str):
            return shell_key(v, self.root, self.bind) if shell else path_key(" ".join(v.split()), self.root)
        if isinstance(v, dict):
            return {k: self.value(x, False) for k, x in v.items()}
        if isinstance(v, list):
            return [self.value(x, False) for x in v]
        return v


def call_equals_flags(args: dict[str, Any]) -> frozenset[str]:
    """The long flags the call's command lines spell ``--flag=value`` (``harness.shell.meaning.equals_flags``)."""
    found: frozenset[str] = frozenset()
    for k in _SHELL_ARGS:
        if isinstance(args.get(k), str):
            found |= equals_flags(args[k])
    return found


@lru_cache(maxsize=1024)
def shell_key(command: str, root: str | None = None, bind: frozenset[str] = frozenset()) -> str:
    """A command line with the same meaning gives the same key: for each simple command, the
    program (``harness.shell.meaning.program_key``: ``./run.sh`` = ``run.sh``, ``/usr/bin/git`` = ``git``,
    ``sh run.sh`` = ``run.sh``), its operands in order (paths in normal form), and its flags as a
    set (``-rn``, ``-r -n`` and ``-n -r`` are one; ``-n5`` = ``-n 5``). Quotes are
    removed the way the shell removes them (the shell model, ``harness.shell``). Unparseable lines
    are compared with whitespace collapsed. Cached: a repeated line is keyed once."""
    parsed = parse(command)
    if not parsed.parsed:
        return " ".join(command.split())
    return json.dumps(commands_key(parsed.commands, 0, root, bind))


_NO_WORK = frozenset({"exit", "return", "true", ":"})
"""Commands that do no work of their own beside others on a line (``cd dir || exit 1``)."""


def commands_key(
    commands: tuple[SimpleCommand, ...] | list[SimpleCommand], depth: int, root: str | None = None, bind: frozenset[str] = frozenset(),
    cwd: str = "",
) -> list[Any]:
    """Each simple command's key, read from the directory the ``cd``s before it moved to
    (``harness.shell.meaning``: ``cd tools && ./gen.sh`` is ``./tools/gen.sh``)."""
    out: list[Any] = []
    expand = Expander(root)
    root = expand.root
    skip, went = 0, False
    pushed: list[str] = []
    for c in commands:
        if skip:  # a command inside a substitution already evaluated into its word
            skip -= 1
            continue
        argv, skip = expand.argv(c.argv, c.assignments, cwd)
        if not argv and not c.redirects:  # `d=x;`: in the key unless later words used it (`./$d/y`)
            out.append(tuple(c.assignments))
            continue
        if argv and argv[0] in _NO_WORK and len(commands) > 1 and not c.redirects:  # `cd web || exit 1; ...`
            continue
        if passes_through(c):  # `| cat`, `| tee /dev/null`: the output is the stage before's
            continue
        moved = cd_target(argv, cwd, root, pushed)
        if moved is not None:
            cwd, went = moved, True
            continue
        inner = inline_script(argv)
        if inner is not None and depth < 3:  # `bash -c "make lint"` runs `make lint`
            parsed = parse(inner)
            if parsed.parsed:
                out.extend(commands_key(parsed.commands, depth + 1, root, bind, cwd))
                continue
        out.append(simple_key(argv, c.redirects, root, bind, cwd))
    out = [_unused(x, expand.used) if isinstance(x, tuple) else x for x in out]
    out = [x for x in out if x is not None]
    return out or ([{"cd": cwd}] if went else [])  # a line that only changes directory says where


def _unused(assignments: tuple[str, ...], used: set[str]) -> dict[str, Any] | None:
    """An assignment-only command's key, None when every variable it sets was used by a later
    word of the line (then the words carry the values)."""
    names = {a.partition("=")[0].rstrip("+") for a in assignments}
    return None if names <= used else {"set": list(assignments)}


def without_echo(output: str, args: dict[str, Any]) -> str:
    """``output`` with the call's own string arguments taken out where it repeats them (the
    untrusted-output wrapper names its source, ``[... FROM bash: ./queue.sh --all]``): two
    spellings of one call must not look like two different results. An argument matches
    wherever its words appear, whatever the whitespace around and between them."""
    values = {" ".join(v.split()) for v in args.values() if isinstance(v, str) and len(v.strip()) >= 3}
    for value in sorted(values, key=len, reverse=True):
        if len(value) > 2_000:  # file contents, not a header's echo: a plain replace is enough
            output = output.replace(value, "<call>")
            continue
        words = value.split(" ")
        pattern = r"[ \t]*" + r"\s+".join(re.escape(w) for w in words) + r"[ \t]*"
        output = re.sub(pattern, " <call> ", output)
    return output


_TAIL_WORDS = 8
"""How far into a command line a wrapper's own words may reach (``wrapped_keys``)."""


def wrapped_keys(name: str, args: dict[str, Any], root: str | None = None) -> list[dict[str, Any]]:
    """The keys of the calls this call would be if the first words of its command line were a
    wrapper that does not change what runs (``harness.shell.wrappers`` knows the common ones; this covers
    the ones it does not: ``tini -- make``, ``coverage run -m pytest``, ``aws-vault exec dev --
    terraform plan``): one key per tail of a one-command line that starts with a word that is not
    an option. ``LoopDetection`` merges two calls when one's key is among the other's, and the
    detectors still count them only when their results are the same."""
    out = []
    for k in _SHELL_ARGS:
        command = args.get(k)
        if not isinstance(command, str):
            continue
        for tail, keyed in _tails(command, root):
            out.append(call_key(name, {**args, k: tail}, root, keyed={k: keyed}))
    return out


@lru_cache(maxsize=1024)
def _tails(command: str, root: str | None) -> tuple[tuple[str, str], ...]:
    """``(tail, its shell key)`` for each tail of a one-command line that starts with a word that is
    not an option, keyed from the words already parsed (no second parse of the line); cached."""
    parsed = parse(command)
    if not parsed.parsed or len(parsed.commands) != 1:
        return ()
    argv = parsed.commands[0].argv
    return tuple((" ".join(shlex.quote(w) for w in argv[i:]), json.dumps(commands_key([SimpleCommand(argv[i:])], 0, root)))
                 for i in range(1, min(len(argv), _TAIL_WORDS + 1)) if not (argv[i].startswith("-") or "=" in argv[i]))
