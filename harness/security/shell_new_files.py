"""Which files an emptying command empties, so the guard can ask the workspace whether they exist.

``: > data.csv`` destroys data.csv's content; ``: > notes.txt`` when notes.txt does not exist
creates an empty file, which is what ``touch`` does. The line alone cannot tell them apart; the
workspace can. ``emptied_files`` returns the files a line's ``truncate-file`` findings empty
(redirections of a command that writes nothing, an empty source copied, moved, linked or
``tee``d over a file, ``dd`` of nothing), or None when the line does anything else the guard
blocks or names a target it cannot fix (``$VAR``, a glob, a ``cd`` before it): then the block
stands. A target is new when it does not exist before the line runs and no earlier command on
the line moves something onto it (``mv data.csv kept.csv && : > kept.csv`` still destroys).
"""

from __future__ import annotations

import re

from harness.security.shell_parse import SimpleCommand, parse
from harness.security.shell_rules import _empty_sources, _flags, _writes_nothing, judge_simple
from harness.security.shell_unwrap import expand, program

_UNFIXED = re.compile(r"[$`*?\[\]{}~]")
_FILLS = {"mv", "rename", "ln"}
"""Programs that put existing content at their last operand (a target filled earlier is not new)."""


def emptied_files(command: str) -> list[str] | None:
    """The files the line's emptying commands empty; None when the block must stand regardless
    (another rule, an unknown target, or a target an earlier command moved content onto)."""
    made_empty: set[str] = set()
    targets: list[str] = []
    filled: set[str] = set()
    for cmd in parse(re.sub(r"\\\r?\n", " ", command)).commands:
        if program(cmd.argv) in ("cd", "pushd", "popd"):
            return None  # targets are then relative to another directory
        for c in expand(cmd):
            c = _empty_sources(c, made_empty)
            rule = judge_simple(c)
            if rule is not None:
                if rule != "truncate-file" or not (found := _targets(c)) or {_norm(t) for t in found} & filled:
                    return None
                targets += found
            if program(c.argv) in _FILLS and (ops := _flags(c.argv[1:])[1]):
                filled.add(_norm(ops[-1]))
    if not targets or any(_UNFIXED.search(t) for t in targets):
        return None
    return [_norm(t) for t in targets]


def _targets(cmd: SimpleCommand) -> list[str]:
    """The files one ``truncate-file`` command empties ([]: not one of the known forms)."""
    prog, args = program(cmd.argv), cmd.argv[1:]
    redirected = [t for op, t in cmd.redirects if op in (">", ">|", "&>", ">&") and not t.startswith("/dev/")]
    if redirected and _writes_nothing(cmd):
        return redirected
    operands = [a for a in _flags(args)[1]]
    if prog in ("cp", "mv", "install", "ln") and len(operands) >= 2:
        return [operands[-1]]
    if prog == "tee":
        return operands
    if prog == "dd":
        return [a[3:] for a in args if a.startswith("of=")]
    return []


def _norm(path: str) -> str:
    return re.sub(r"^(?:\./)+", "", path)
