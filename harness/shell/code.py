"""Interpreters and the code a command line gives them (``python -c CODE``, ``node -e``, a
script fed on stdin), and the string literals in that code.

The interpreters, their code options and the options that take a value are the table of
``programs.yaml``, which loop detection (``meaning``: ``python app.py`` runs ``app.py``) and
the guards (the code of a one-liner, judged by ``harness.security`` rules) share.
"""

from __future__ import annotations

import re
from functools import cache

from harness.shell.syntax import SimpleCommand
from harness.shell.wrappers import programs


@cache
def _interpreters() -> re.Pattern[str]:
    return re.compile(programs()["interpreters"]["pattern"])


def is_interpreter(prog: str) -> bool:
    """Whether ``prog`` (a program name) runs code in some language (``python3``, ``node`` ...)."""
    return bool(_interpreters().match(prog))


@cache
def code_flags() -> frozenset[str]:
    """Options whose value is the code itself (``-c``, ``-e``, ``--eval`` ...)."""
    return frozenset(programs()["interpreters"]["code_flags"])


@cache
def interpreter_valued() -> frozenset[str]:
    """Interpreter options followed by a separate value (``python -W ignore``)."""
    return frozenset(programs()["interpreters"]["valued"])


def code(cmd: SimpleCommand) -> str:
    """The code an interpreter is given on the line (``-c``/``-e`` ...), or on stdin."""
    args = cmd.argv[1:]
    flags = code_flags()
    for i, a in enumerate(args):
        if (a in flags or (a.startswith("-") and not a.startswith("--") and a[-1] in "ce" and len(a) <= 4)) \
                and i + 1 < len(args):
            return args[i + 1]
    if cmd.stdin_text and (not [a for a in args if not a.startswith("-")] or "-" in args):
        return cmd.stdin_text
    return ""


STRING = re.compile(r"""(?<![\w\\])(?:'((?:[^'\\\n]|\\.){1,500})'|"((?:[^"\\\n]|\\.){1,500})"|`([^`\n]{1,500})`)""")
"""A string literal of code (single, double or back quotes), its content in the group that matched."""


def strings(text: str) -> list[str]:
    """The contents of the string literals of ``text``."""
    return [next(g for g in m.groups() if g is not None) for m in STRING.finditer(text)]
