"""One file reached from another directory (loop detection with ``normalise_calls``).

``cd tools && ./gen.sh`` runs the file ``./tools/gen.sh`` runs; ``cd web; npm test`` is
``npm --prefix``-free ``npm test`` in ``web``; ``make -C services/api test`` and ``git -C vendor/lib
status`` are ``make test`` and ``git status`` run from those directories. A ``cd`` (or ``pushd``)
to a directory written as a path moves the working directory for the commands after it on the
same line; the relative words of those commands (the program when it is a path, path-like
operands) are then read from the workspace root, so every spelling of the same file meets.

A command that runs from another directory but names no relative path (``cd api && make``)
keeps that directory in its key: the same words run somewhere else are another call.
"""

from __future__ import annotations

import posixpath
import re

from harness.shell.paths import path_key
from harness.shell.syntax import parse
from harness.shell.words import STAND_IN_ROOT, Scope, assign, expand_word, substitutions
from harness.shell.wrappers import programs

_RELATIVE = re.compile(r"^(?![/~$-])[\w.@%+,:*?/-]+$")
"""A word read relative to the working directory: path characters only, not absolute, not
``~``, not a variable, not an option."""


def cd_target(argv: list[str], cwd: str, root: str | None, stack: list[str] | None = None) -> str | None:
    """The working directory after ``argv`` when it is ``cd DIR``/``pushd DIR`` with ``DIR``
    written as a path, or ``popd`` after a ``pushd`` (``stack``: the directories pushed)
    (``cd -``, ``cd ~``, ``cd $X``: None, the command stays in the key)."""
    if argv == ["popd"] and stack:
        return stack.pop()
    if len(argv) != 2 or argv[0] not in ("cd", "pushd"):
        return None
    if argv[0] == "pushd" and stack is not None:
        stack.append(cwd)
    target = argv[1]
    if target.startswith("/"):
        return _here(path_key(target, root))
    return _here(join(cwd, target)) if _RELATIVE.match(target) else None


def join(cwd: str, word: str) -> str:
    """``word`` read from ``cwd`` (workspace-relative), in normal form."""
    return posixpath.normpath(posixpath.join(cwd, word)) if cwd else posixpath.normpath(word)


def _here(path: str) -> str:
    """A working directory: ``""`` for the workspace root."""
    return "" if path == "." else path


def chdir_option(argv: list[str], cwd: str, root: str | None) -> tuple[list[str], str]:
    """``argv`` without the program's own change of directory (``make -C dir``), and the
    working directory it runs in."""
    options = tuple(programs()["chdir_options"].get(argv[0] if argv else "", ()))
    if not options:
        return argv, cwd
    out = [argv[0]]
    i = 1
    while i < len(argv):
        word = argv[i]
        name, eq, value = word.partition("=")
        if word in options and i + 1 < len(argv):
            cwd, i = _moved(cwd, argv[i + 1], root), i + 2
            continue
        if eq and name in options:
            cwd = _moved(cwd, value, root)
        elif word.startswith("-C") and len(word) > 2 and "-C" in options:
            cwd = _moved(cwd, word[2:], root)
        else:
            out.append(word)
        i += 1
    return out, cwd


def _moved(cwd: str, target: str, root: str | None) -> str:
    target = path_key(target, root)
    return _here(target if target.startswith("/") else join(cwd, target))


class Relative:
    """Words of one command read from its working directory ``cwd`` (workspace-relative; ``""``:
    the root), in normal form (``paths.path_key``). ``moved``: some word was relative, so
    the command's key names its files from the root and needs no record of the directory;
    otherwise the directory stays in the key (``cd api && make`` is not ``make``)."""

    def __init__(self, cwd: str, root: str | None) -> None:
        self.cwd, self.root, self.moved = cwd, root, False

    def path(self, word: str) -> str:
        if self.cwd and _RELATIVE.match(word):
            self.moved = True
            word = join(self.cwd, word)
        return path_key(word, self.root)


class Expander:
    """The words of a line with the parts the line itself fixes evaluated (``words``, the
    path guard's evaluator: ``$(pwd)``, `` `pwd` ``, ``$(realpath .)``, ``${PWD%/}``,
    ``$(cd src && pwd)``, variables assigned earlier on the line), against the workspace root as
    the shell's directory, so ``"$(pwd)"/queue.sh`` is ``./queue.sh``. A word with an unknown
    part stays as written. The commands inside an evaluated substitution are then not commands
    of the line (bashlex lists them after the one that holds them: ``skip``)."""

    def __init__(self, root: str | None) -> None:
        self.root = root or STAND_IN_ROOT
        self.scope = Scope(self.root, {}, set(), None)
        self.used: set[str] = set()
        """Variables of the line that an evaluated word used (their assignment is then in it)."""

    def argv(self, argv: list[str], assignments: list[str], cwd: str) -> tuple[list[str], int]:
        self.scope.cwd = cwd if cwd.startswith("/") else posixpath.join(self.root, cwd) if cwd else self.root
        skip = 0
        for a in assignments:
            assign(a, self.scope)
            if self.scope.vars.get(a.partition("=")[0].rstrip("+")) is not None:
                skip += _nested(a.partition("=")[2])  # `d=$(pwd)`: `pwd` is part of the value
        out = []
        for word in argv:
            refs = set(_REF.findall(word))
            known = {"PWD", "OLDPWD", "HOME"} | {k for k, v in self.scope.vars.items() if v is not None}
            if ("$" in word or "`" in word) and refs <= known:  # no default stands in for an unknown
                value = expand_word(word, self.scope)
                if value is not None and "\n" not in value:
                    skip += _nested(word)
                    self.used |= refs
                    word = value
            out.append(word)
        return out, skip


_REF = re.compile(r"\$\{?#?([A-Za-z_]\w*)")


def _nested(word: str) -> int:
    """How many simple commands the substitutions in ``word`` hold."""
    count = 0
    for start, end in substitutions(word):
        closer = "`" if word[start] == "`" else ")"
        body = word[start + (1 if closer == "`" else 2):end]
        count += len(parse(body[:-1] if body.endswith(closer) else body).commands)
    return count
