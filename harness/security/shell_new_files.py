"""Which files an emptying command empties, so the guard can ask the workspace whether they exist.

``: > data.csv`` destroys data.csv's content; ``: > notes.txt`` when notes.txt does not exist
creates an empty file, which is what ``touch`` does. The line alone cannot tell them apart; the
workspace can. ``emptied_files`` returns the files a line's ``truncate-file`` findings empty
(redirections of a command that writes nothing, an empty source copied, moved, linked or
``tee``d over a file, ``dd`` of nothing: the rules marked ``new_files_allowed``), or None when the line does anything else the guard
blocks or names a target it cannot fix (``$VAR``, a glob, a ``cd`` before it): then the block
stands. A target is new when it does not exist before the line runs and no earlier command on
the line moves something onto it (``mv data.csv kept.csv && : > kept.csv`` still destroys).
"""

from __future__ import annotations

import posixpath
import re

from harness.security.rule_plugins import redirect_targets, writes_nothing
from harness.security.shell_line import Line
from harness.security.shell_rules import RuleSet, judge_command, rule_set
from harness.shell import SimpleCommand, expand, parse, program, split_flags
from harness.shell.code import code as interpreter_code
from harness.shell.code import is_interpreter

_UNFIXED = re.compile(r"[$`*?\[\]{}~]")
_FILLS = {"mv", "rename", "ln"}
"""Programs that put existing content at their last operand (a target filled earlier is not new)."""


def emptied_files(command: str, rules_file: str = "destructive_commands.yaml") -> list[str] | None:
    """The files the line's emptying commands empty (relative to the root, ``cd`` followed);
    None when the block must stand regardless (another rule, a target the line cannot fix, or a
    target an earlier command moved content onto)."""
    ruleset = rule_set(rules_file)
    line = Line(ruleset.patterns["temp_place"])
    targets: list[str] = []
    filled: set[str] = set()
    cwd = ""
    for cmd in parse(command).commands:
        if program(cmd.argv) in ("cd", "pushd", "popd"):
            moved = _cd(cwd, cmd.argv)
            if moved is None:
                return None  # cd -, cd "$X": targets are then relative to an unknown place
            cwd = moved
            continue
        for c in expand(cmd):
            c = line.prepare(c, {})
            rule = judge_command(c, ruleset)
            if rule is not None:
                found = [_join(cwd, t) for t in _targets(c, ruleset)] if rule.new_files_allowed else []
                if not found or any(_UNFIXED.search(t) for t in found) or set(found) & filled:
                    return None
                targets += found
            if program(c.argv) in _FILLS and (ops := split_flags(c.argv[1:])[1]):
                filled.add(_join(cwd, ops[-1]))
    return targets or None


def _targets(cmd: SimpleCommand, ruleset: RuleSet) -> list[str]:
    """The files one emptying command empties ([]: not one of the known forms)."""
    prog, args = program(cmd.argv), cmd.argv[1:]
    if is_interpreter(prog) and interpreter_code(cmd):
        return _code_targets(cmd, ruleset)
    redirected = redirect_targets(cmd)
    if redirected and writes_nothing(cmd):
        return redirected
    operands = split_flags(args)[1]
    if prog in ("cp", "mv", "install", "ln") and len(operands) >= 2:
        return [operands[-1]]
    if prog == "tee":
        return operands
    if prog == "dd":
        return [a[3:] for a in args if a.startswith("of=")]
    if prog == "truncate":  # the size's value is an operand to split_flags when not glued: drop it
        return [o for o in operands if not re.fullmatch(r"[<>/%]?-?\d+[KMGTPE]?i?B?", o, re.I)]
    return []


_P = r"""(?P<q>['"`])(?P<path>[^'"`$\n{}]+)(?P=q)"""
_CODE_TARGETS = [re.compile(rx) for rx in (
    r"\bopen(?:Sync)?\s*\(\s*" + _P + r"\s*,\s*(?:mode\s*=\s*)?['\"][wW]b?\+?['\"]\s*\)(?:\.close\(\))?",
    r"\bPath\(\s*" + _P + r"\s*\)\.(?:open\(\s*(?:mode\s*=\s*)?['\"]w['\"]\s*\)|write_(?:text|bytes)\(\s*b?(?:''|\"\")\s*\))",
    r"\b(?:writeFileSync|writeFile|File\.write|IO\.write|file_put_contents)\s*\(\s*" + _P + r"\s*,\s*(?:''|\"\"|``)\s*\)",
    r"\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*['\"]>['\"]\s*,\s*" + _P + r"\s*\)?",
)]


def _code_targets(cmd: SimpleCommand, ruleset: RuleSet) -> list[str]:
    """Literal paths a one-liner opens for writing and leaves empty; [] unless, without those
    sites, the code empties nothing else."""
    code = interpreter_code(cmd)
    found, rest = [], code
    for rx in _CODE_TARGETS:
        found += [m.group("path") for m in rx.finditer(rest)]
        rest = rx.sub("None", rest)
    if not found or not code:
        return []
    argv = [rest if a == code else a for a in cmd.argv]
    stdin = rest if cmd.stdin_text == code else cmd.stdin_text
    again = SimpleCommand(argv, cmd.redirects, stdin, cmd.via, cmd.piped_from, cmd.assignments)
    return found if judge_command(again, ruleset) is None else []


def _cd(cwd: str, argv: list[str]) -> str | None:
    """The directory after ``cd`` (relative to the root), None when the line cannot fix it."""
    target = next((a for a in argv[1:] if not a.startswith("-")), None)
    if program(argv) == "popd" or target is None or _UNFIXED.search(target):
        return None
    return _join(cwd, target)


def _join(cwd: str, path: str) -> str:
    return posixpath.normpath(posixpath.join(cwd, path)) if cwd or path.startswith("./") else path
