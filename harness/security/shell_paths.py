"""The file arguments of a shell command line (the path guard's shell mode).

The path guard confines file tools to the workspace; a shell tool reaches the same files with
``cat ../secret`` or through a symlink. ``path_words`` parses the line (``shell_parse``), follows
``cd``, unwraps wrappers and nested shells (``shell_unwrap``) and returns every word that can
name a file: operands, ``--opt=value`` values, redirection targets, and path-like string
literals of interpreter one-liners (``open('../x')``). The guard then resolves each one the way
it resolves file-tool paths (symlinks followed, inside the workspace). Words that cannot name a
local file (URLs, text with spaces, unexpanded variables) are left out; so are the arguments of
programs that only print their arguments (``echo "see ../docs"``).
"""

from __future__ import annotations

import posixpath
import re

from harness.security.shell_parse import SimpleCommand, parse
from harness.security.shell_rules import _INTERPRETERS, _STRING, _code
from harness.security.shell_unwrap import expand, program

_TEXT_ONLY = {"echo", "printf", "true", "false", ":", "sleep", "export", "unset", "alias", "read",
              "expr", "seq", "date", "which", "type", "exit", "return", "shift", "local", "declare",
              "let", "wait", "kill", "jobs", "set", "hash", "help", "history", "getopts", "trap"}
_GLOB = re.compile(r"[*?\[]")
_HOME = re.compile(r"^(?:~|\$HOME\b|\$\{HOME\})")


def path_words(command: str) -> list[tuple[str, str]]:
    """``(cwd, word)`` pairs: each word that may name a file, with the directory (relative to the
    workspace root, ``cd`` followed) it is relative to. ``~``/``$HOME`` are kept as ``~``."""
    out: list[tuple[str, str]] = []
    cwd = "."
    for cmd in parse(command).commands:
        if program(cmd.argv) in ("cd", "pushd") and len(cmd.argv) <= 3:
            target = next((a for a in cmd.argv[1:] if not a.startswith("-")), "~")
            out.append((cwd, target))
            cwd = target if target.startswith(("/", "~", "$")) else posixpath.normpath(posixpath.join(cwd, target))
            continue
        for c in expand(cmd):
            out += [(cwd, w) for w in _words(c)]
    return [(c, w) for c, w in dict.fromkeys(out) if w]


def _words(cmd: SimpleCommand) -> list[str]:
    words = [t for op, t in cmd.redirects if not (op in (">&", "<&") and (t.isdigit() or t == "-"))]
    prog = program(cmd.argv)
    if prog in _TEXT_ONLY:
        return [_pathish(w) for w in words]
    if _INTERPRETERS.match(prog):
        code = _code(cmd)
        words += [next(g for g in m.groups() if g is not None) for m in _STRING.finditer(code)]
        words = [w for w in words if "/" in w or w.startswith("..")]
        if code:
            return [_pathish(w) for w in words]
    for a in cmd.argv[1:]:
        if a.startswith("-"):
            a = a.split("=", 1)[1] if "=" in a else ""
        words.append(a)
    return [_pathish(w) for w in words]


def _pathish(word: str) -> str:
    """The part of ``word`` that names a file, or ``""`` when it cannot name a local one."""
    if not word or any(ch.isspace() for ch in word) or "://" in word or "$(" in word or "`" in word:
        return ""
    if word.startswith("$") and not _HOME.match(word):
        return ""
    if "$" in word.split("/", 1)[-1] and not _HOME.match(word):
        word = word.split("$", 1)[0]  # dir/$NAME: the literal directory part
    if _GLOB.search(word):
        word = posixpath.dirname(word[:_GLOB.search(word).start()])  # type: ignore[union-attr]
    if _HOME.match(word):
        word = "~" + word[_HOME.match(word).end():]  # type: ignore[union-attr]
    return word if word not in ("", "{}", "-") else ""
