"""One simple shell command reduced to what it means, for comparing calls (``shell_key``).

The words come from ``harness.security.shell_parse`` (bashlex: quotes removed the way bash
removes them). What is left to canonicalise is how the same program and arguments can be spelled:
the program's path (``./run.sh``, ``././run.sh``, ``run.sh``; ``/usr/bin/python3`` and
``python3``), an interpreter or wrapper in front of it (``sh run.sh``, ``command ./run.sh``),
the order of flags, a number attached to a short flag (``-n5`` or ``-n 5``), and how a path
operand is spelled (``loop_paths``: ``./a``, ``a/``, ``x/../a``, the absolute path under the
workspace). ``--opt v`` and ``--opt=v`` stay apart in one call's key: whether ``v`` is the flag's
value or an operand depends on the program. They are compared pairwise instead (``bind``, see
``LoopDetection``): when one call spells ``--opt=v``, the flag takes a value in that program, so
in the other call ``--opt v`` is that flag with the value ``v`` too.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from harness.controls.loop_paths import path_key

_SHELLS = re.compile(r"^(?:ba|da|z|k|)sh$")
_INTERPRETERS = re.compile(r"^(?:(?:ba|da|z|k|)sh|python[\d.]*|pypy[\d.]*|node|ruby|perl|php)$")
"""Programs that run the script named by their first word: ``sh run.sh`` runs ``run.sh``."""
_WRAPPERS = {"command", "exec", "builtin", "nohup", "time"}
"""Words that run the rest of the line as it stands (``command ./run.sh`` is ``./run.sh``)."""
_ATTACHED = re.compile(r"^-([A-Za-z]+)(\d+)$")
"""Short flags with a number attached: ``-n5`` is ``-n 5``."""


def program_key(word: str) -> str:
    """The program as the shell finds it: a path normalised (``././run.sh`` -> ``run.sh``), and
    a program under a ``bin`` directory by its name (``/usr/bin/git`` is what ``git`` runs)."""
    if "/" not in word:
        return word
    path = posixpath.normpath(word)
    if path.startswith("/") and posixpath.basename(posixpath.dirname(path)) in ("bin", "sbin"):
        return posixpath.basename(path)
    return path


def program_argv(argv: list[str]) -> list[str]:
    """``argv`` without the wrappers and interpreters in front of the program that does the
    work: ``command sh ./run.sh -x`` -> ``./run.sh -x``."""
    argv = list(argv)
    while len(argv) > 1 and program_key(argv[0]) in _WRAPPERS and not argv[1].startswith("-"):
        argv = argv[1:]
    if len(argv) > 1 and _INTERPRETERS.match(program_key(argv[0])) and not argv[1].startswith("-"):
        argv = argv[1:]
    return argv


def inline_script(argv: list[str]) -> str | None:
    """The command line a shell runs with ``-c`` (``bash -c "make lint"``), if that is the call."""
    argv = program_argv(argv)
    if len(argv) >= 3 and _SHELLS.match(program_key(argv[0])) and argv[1] in ("-c", "-lc", "-ec"):
        return argv[2]
    return None


def simple_key(
    argv: list[str], redirects: list[tuple[str, str]], root: str | None = None,
    bind: frozenset[str] = frozenset(),
) -> list[Any]:
    """``[program, sorted flags, operands in order, sorted redirections]``. A long flag in
    ``bind`` followed by a word takes that word as its value (``--env prod`` = ``--env=prod``)."""
    argv = program_argv(argv)
    flags: set[str] = set()
    operands: list[str] = []
    words = argv[1:]
    i = 0
    while i < len(words):
        a = words[i]
        i += 1
        if a == "--":  # end of options: the rest are operands, even with a leading dash
            operands.extend(path_key(w, root) for w in words[i:])
            break
        attached = _ATTACHED.match(a)
        if a in bind and i < len(words) and not words[i].startswith("-"):
            flags.add(f"{a}={path_key(words[i], root)}")
            i += 1
        elif a.startswith("--") or (a.startswith("-") and "=" in a):  # `--tb=short`: flag and value
            name, eq, value = a.partition("=")
            flags.add(f"{name}={path_key(value, root)}" if eq else a)
        elif a.startswith("-") and len(a) > 1 and a[1:].isalpha():
            flags.update(f"-{ch}" for ch in a[1:])
        elif attached:
            flags.update(f"-{ch}" for ch in attached.group(1))
            operands.append(attached.group(2))
        else:
            operands.append(path_key(a, root))
    program = [program_key(argv[0])] if argv else []
    return [program, sorted(flags), operands, sorted((op, path_key(t, root)) for op, t in redirects)]


_EQUALS_FLAG = re.compile(r"(?<![^\s'\"])(--[A-Za-z0-9][\w-]*)=")


def equals_flags(command: str) -> frozenset[str]:
    """The long flags a command line spells ``--flag=value`` (what ``bind`` takes)."""
    return frozenset(_EQUALS_FLAG.findall(command))
