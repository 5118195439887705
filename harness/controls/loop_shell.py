"""One simple shell command reduced to what it means, for comparing calls (``shell_key``).

The words come from ``harness.security.shell_parse`` (bashlex: quotes removed the way bash
removes them). What is left to canonicalise is how the same program and arguments can be spelled:
the program's path (``./run.sh``, ``././run.sh``, ``run.sh``; ``/usr/bin/python3`` and
``python3``), an interpreter or wrapper in front of it (``sh run.sh``, ``command ./run.sh``),
the order of flags, a number attached to a short flag (``-n5`` or ``-n 5``), and ``./`` or a
trailing ``/`` on a path operand. ``--opt v`` and ``--opt=v`` stay apart: whether ``v`` is the
flag's value or an operand depends on the program, and guessing would merge different calls.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

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


def _path_operand(word: str) -> str:
    """``./src/`` and ``src`` name one path; URLs and bare ``/`` are left alone."""
    if "/" not in word or "://" in word:
        return word
    while word.startswith("./") and len(word) > 2:
        word = word[2:]
    return word.rstrip("/") or "/"


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


def simple_key(argv: list[str], redirects: list[tuple[str, str]]) -> list[Any]:
    """``[program, sorted flags, operands in order, sorted redirections]``."""
    argv = program_argv(argv)
    flags: set[str] = set()
    operands: list[str] = []
    words = iter(argv[1:])
    for a in words:
        if a == "--":  # end of options: the rest are operands, even with a leading dash
            operands.extend(_path_operand(w) for w in words)
            break
        attached = _ATTACHED.match(a)
        if a.startswith("--") or (a.startswith("-") and "=" in a):  # `--tb=short`: flag and value
            flags.add(a)
        elif a.startswith("-") and len(a) > 1 and a[1:].isalpha():
            flags.update(f"-{ch}" for ch in a[1:])
        elif attached:
            flags.update(f"-{ch}" for ch in attached.group(1))
            operands.append(attached.group(2))
        else:
            operands.append(_path_operand(a))
    program = [program_key(argv[0])] if argv else []
    return [program, sorted(flags), operands, sorted((op, _path_operand(t)) for op, t in redirects)]
