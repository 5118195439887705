"""One simple shell command reduced to what it means, for comparing calls (loop detection's key).

The words come from ``syntax`` (bashlex: quotes removed the way bash
removes them). What is left to canonicalise is how the same program and arguments can be spelled:
the program's path (``./run.sh``, ``././run.sh``, ``run.sh``; ``/usr/bin/python3`` and
``python3``), an interpreter or wrapper in front of it (``sh run.sh``, ``command ./run.sh``),
the order of flags, a number attached to a short flag (``-n5`` or ``-n 5``), and how a path
operand is spelled (``paths``: ``./a``, ``a/``, ``x/../a``, the absolute path under the
workspace). ``--opt v`` and ``--opt=v`` stay apart in one call's key: whether ``v`` is the flag's
value or an operand depends on the program. They are compared pairwise instead (``bind``, see
``LoopDetection``): when one call spells ``--opt=v``, the flag takes a value in that program, so
in the other call ``--opt v`` is that flag with the value ``v`` too.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from harness.shell.code import code_flags, interpreter_valued, is_interpreter
from harness.shell.cwd import Relative, chdir_option
from harness.shell.paths import path_key
from harness.shell.runs import has_c, shell_script, shells
from harness.shell.wrappers import unwrap

_ATTACHED = re.compile(r"^-([A-Za-z]+)(\d+)$")
"""Short flags with a number attached: ``-n5`` is ``-n 5``."""
_SCRIPT_SUFFIX = re.compile(r"(?:/__main__)?\.py$|(?:/index)?\.[cm]?js$")
"""``python app/cli.py``, ``python -m app.cli`` and ``./app/cli.py`` run one file (a package's
``__main__.py`` is what ``python -m pkg`` runs); so do ``node scripts/seed`` and ``node
scripts/seed.js`` (Node's resolution adds ``.js``, or ``/index.js`` for a directory)."""


def program_key(word: str) -> str:
    """The program as the shell finds it: a path normalised (``././run.sh`` -> ``run.sh``), a
    program under a ``bin`` directory by its name (``/usr/bin/git`` is what ``git`` runs), and a
    Python script by its module path (``app/cli.py`` = ``python -m app.cli`` = ``app/cli``)."""
    word = _SCRIPT_SUFFIX.sub("", word) if word.endswith(("py", "js")) else word
    if "/" not in word:
        return word
    path = posixpath.normpath(word)
    if path.startswith("/") and posixpath.basename(posixpath.dirname(path)) in ("bin", "sbin"):
        return posixpath.basename(path)
    return path


def command_argv(argv: list[str]) -> tuple[list[str], str, bool]:
    """``argv`` without the wrappers and interpreters in front of the program that does the work
    (``timeout 30 sh ./run.sh -x`` -> ``./run.sh -x``); ``"xargs>"`` when the program runs through
    ``xargs``; and whether the program is a file named by its path (``./gen.sh``, ``python app.py``)."""
    argv, via = unwrap(list(argv))
    run = _interpreted(argv)
    return run, via, bool(run) and ("/" in run[0] or run is not argv)


def _interpreted(argv: list[str]) -> list[str]:
    """The script an interpreter runs, past the interpreter's own options (``python -u x.py``
    runs ``x.py``); ``python -m pkg.mod`` runs ``pkg/mod.py``. Inline code stays as it is."""
    name = program_key(argv[0]) if argv else ""
    if len(argv) < 2 or not (is_interpreter(name) or name in shells()):
        return argv
    i, valued = 1, interpreter_valued()
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        word = argv[i]
        if word not in valued and (word in code_flags() or (name in shells() and has_c(word))):
            return argv  # inline code: the call is that code, kept as written
        if word == "-m" and i + 1 < len(argv) and argv[0].startswith(("python", "pypy")):
            return [argv[i + 1].replace(".", "/") + ".py", *argv[i + 2:]]
        i += 2 if word in valued else 1
    return argv[i:] if i < len(argv) else argv


def inline_script(argv: list[str]) -> str | None:
    """The command line a shell runs with ``-c`` (``bash -c "make lint"``, ``timeout 9 zsh -l -c``,
    ``su - app -c``), if that is the call (``runs.shell_script``, which the guards read too)."""
    return shell_script(command_argv(argv)[0])


def simple_key(
    argv: list[str], redirects: list[tuple[str, str]], root: str | None = None,
    bind: frozenset[str] = frozenset(), cwd: str = "",
) -> list[Any]:
    """``[program, sorted flags, operands in order, sorted redirections]``. A long flag in
    ``bind`` followed by a word takes that word as its value (``--env prod`` = ``--env=prod``).
    ``cwd``: the directory a ``cd`` before it moved to (``cwd``), which relative paths are
    read from; the program's own ``-C dir`` (``make``, ``git``) moves it the same way."""
    argv, via, is_path = command_argv(argv)
    argv, cwd = chdir_option(argv, cwd, root)
    at = Relative(cwd, root)
    flags: set[str] = set()
    operands: list[str] = []
    words = argv[1:]
    i = 0
    while i < len(words):
        a = words[i]
        i += 1
        if a == "--":  # end of options: the rest are operands, even with a leading dash
            operands.extend(at.path(w) for w in words[i:])
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
            operands.append(at.path(a))
    # `/ws/bin/x` = `bin/x`; a script named by its path is read from the working directory.
    program = [via + program_key(at.path(argv[0]) if is_path else path_key(argv[0], root))] if argv else []
    key = [program, sorted(flags), operands, sorted((op, at.path(t)) for op, t in redirects)]
    return key if not cwd or at.moved else [*key, {"cwd": cwd}]


_EQUALS_FLAG = re.compile(r"(?<![^\s'\"])(--[A-Za-z0-9][\w-]*)=")


def equals_flags(command: str) -> frozenset[str]:
    """The long flags a command line spells ``--flag=value`` (what ``bind`` takes)."""
    return frozenset(_EQUALS_FLAG.findall(command))
