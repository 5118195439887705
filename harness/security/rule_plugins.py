"""Checks of the command guard's rules that a table of flags cannot say (``plugin:`` entries).

Each plugin is a match function registered under a name, like a detect-secrets plugin: a rule
of ``harness/rules/destructive_commands.yaml`` names it in its ``match`` list, with parameters,
and the rule (its id, source, guidance and cases) stays data. A plugin answers whether one
simple command (wrappers, nested shells and loops already read through by ``harness.shell``)
breaks the rule; it never names a rule itself.
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from harness.security.shell_inplace import keeps_nothing
from harness.shell import SimpleCommand, program, split_flags
from harness.shell.code import is_interpreter

Plugin = Callable[[SimpleCommand, "Context", dict[str, Any]], bool]
PLUGINS: dict[str, Plugin] = {}


def plugin(name: str) -> Callable[[Plugin], Plugin]:
    """Register a match function under ``name`` (what a rule's ``plugin:`` entry names)."""
    def register(fn: Plugin) -> Plugin:
        PLUGINS[name] = fn
        return fn
    return register


@dataclass
class Context:
    """What a plugin may need beyond the command: the rule file's sets and patterns, the loop
    variables around the command, and (for interpreters) the code it runs and what it calls."""

    sets: dict[str, frozenset[str]]
    patterns: dict[str, re.Pattern[str]]
    loops: dict[str, list[str] | None] = field(default_factory=dict)
    code: str = ""
    """The code an interpreter runs (``python -c CODE``), ``""`` for other programs."""
    said: str = ""
    """That code with its string and regex literals blanked: what it calls, not what it quotes."""
    rest: list[str] = field(default_factory=list)
    """The arguments after the program and its subcommand (the entry's ``sub``)."""


# --- emptying a file -----------------------------------------------------------------------------
_QUIET = {":", "true", "false"}
OUTPUT = (">", ">|", "&>", ">&")


def writes_nothing(cmd: SimpleCommand) -> bool:
    """The command's output is empty or blank, so ``> file`` only empties the file (``: > f``,
    ``> f``, ``true > f``, ``cat /dev/null > f``, ``echo -n > f``, ``echo > f``, ``printf '' > f``)."""
    prog, args = program(cmd.argv), cmd.argv[1:]
    if not cmd.argv or prog in _QUIET:
        return True
    if prog == "cat":
        return all(a == "/dev/null" for a in args) and bool(args)
    if prog == "echo":  # `echo > f`, `echo '' > f`: a blank line replaces the content
        return all(re.fullmatch(r"-[neE]+", a) or not a.strip() for a in args)
    if prog == "printf":
        return not args or re.fullmatch(r"(?:\s|\\[ntr])*", args[0]) is not None and len(args) == 1
    return False


def redirect_targets(cmd: SimpleCommand) -> list[str]:
    """Files an output redirection of ``cmd`` writes (devices left out)."""
    return [t for op, t in cmd.redirects if op in OUTPUT and not t.startswith("/dev/")]


@plugin("redirect-empties")
def _redirect_empties(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """A redirection onto a file from a command that writes nothing (``: > data.csv``)."""
    return bool(redirect_targets(cmd)) and writes_nothing(cmd)


@plugin("reads-nothing")
def _reads_nothing(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """``tee FILE`` reading nothing (``< /dev/null``, or a pipe from a command that writes
    nothing) empties each file it is given, unless it appends."""
    flags, operands = split_flags(cmd.argv[1:])
    if flags & {"a", "--append"} or not operands:
        return False
    return any(op == "<" and t == "/dev/null" for op, t in cmd.redirects) or bool(
        cmd.piped_from and writes_nothing(SimpleCommand(cmd.piped_from)))


@plugin("dd-copies-nothing")
def _dd_copies_nothing(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """``dd`` truncates its output file (unless ``conv=notrunc``) and then copies nothing when
    its input is empty or ``count=0``."""
    kv = dict(a.split("=", 1) for a in cmd.argv[1:] if "=" in a)
    target, source = kv.get("of", ""), kv.get("if", "")
    if not target or target.startswith("/dev/") or "notrunc" in kv.get("conv", "") or kv.get("seek", "0") not in ("0", ""):
        return False
    source = source or next((t for op, t in cmd.redirects if op == "<"), "")
    return source == "/dev/null" or kv.get("count") == "0"


@plugin("size-zero")
def _size_zero(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """``truncate -s 0`` (``--size=0``, ``-s0``, ``-s <0``, a negative size) empties its files."""
    args = cmd.argv[1:]
    for i, a in enumerate(args):
        size = a[2:] if a.startswith("-s") and len(a) > 2 else a.split("=", 1)[1] if a.startswith("--size=") else (
            args[i + 1] if a in ("-s", "--size") and i + 1 < len(args) else None)
        if size is not None and (size.lstrip("<") in ("0", "0K", "0k") or size.startswith("-")):
            return True
    return False


@plugin("opens-for-writing-and-writes-nothing")
def _opens_for_writing(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """A one-liner that opens a file for writing from the start (``open(p, 'w')``, Perl's
    ``open(F, '>', p)``) and writes nothing to it."""
    return bool(ctx.said) and bool(ctx.patterns["opens_for_writing"].search(ctx.said)) \
        and not ctx.patterns["writes"].search(ctx.said)


# --- SQL -----------------------------------------------------------------------------------------
@plugin("sql")
def _sql(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """A destructive statement (``params["statement"]``) given to a database: a SQL client's
    arguments or input, a one-liner's database code, or an argument of any program that does
    not merely print or search text (``./db.sh 'DROP TABLE users'``) that is a whole statement."""
    statement = re.compile(params["statement"], re.I)
    prog, args = program(cmd.argv), cmd.argv[1:]
    if prog in ctx.sets["sql_clients"]:
        return bool(statement.search(" ".join(args) + "\n" + cmd.stdin_text))
    if is_interpreter(prog):
        return bool(ctx.code) and bool(ctx.patterns["database_code"].search(ctx.said)) and bool(statement.search(ctx.code))
    if prog in ctx.sets["text_programs"]:
        return False
    return any(ctx.patterns["sql_statement_argument"].search(a) and statement.search(a) for a in args)


# --- in-place editors ----------------------------------------------------------------------------
@plugin("inplace-keeps-nothing")
def _inplace(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """An in-place edit (``sed -i``, ``perl -i``, ``vim -c``, ``gawk -i inplace``) whose script
    keeps no line of the file (``shell_inplace``)."""
    stdin = "\n".join([cmd.stdin_text] + [t for op, t in cmd.redirects if op == "<<<"])
    return keeps_nothing(program(cmd.argv), cmd.argv[1:], stdin, bool(cmd.via))


# --- moves out of the workspace ------------------------------------------------------------------
@plugin("mv-to-temp")
def _mv_to_temp(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """``mv SRC... DEST`` / ``mv -t DEST SRC...`` with a temporary place as the destination and a
    source that is not one (bringing a temp file in is fine)."""
    temp = ctx.patterns["temp_place"]
    args, target, rest, i = cmd.argv[1:], None, [], 0
    while i < len(args):
        a = args[i]
        if a in ("-t", "--target-directory") and i + 1 < len(args):
            target, i = args[i + 1], i + 1
        elif a.startswith("--target-directory="):
            target = a.partition("=")[2]
        elif a.startswith("-t") and len(a) > 2:
            target = a[2:]
        else:
            rest.append(a)
        i += 1
    _, operands = split_flags(rest, {"-S", "--suffix"})
    if target is None and len(operands) >= 2:
        target, operands = operands[-1], operands[:-1]
    return target is not None and bool(temp.search(target)) and any(not temp.search(o) for o in operands)


@plugin("code-moves-to-temp")
def _code_moves_to_temp(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """A one-liner that moves or renames something *to* a temporary place: the destination
    argument holds a temp-dir call or a variable assigned one (``d = tempfile.mkdtemp();
    shutil.move('data', d)``). A temp file moved into the workspace (``os.replace(tmp, 'out')``)
    is the atomic-write idiom, and fine."""
    code, said, temp_dirs = ctx.code, ctx.said, ctx.patterns["temp_dir_code"]
    if not code or not temp_dirs.search(code):
        return False
    temps = [m.group(1) for m in re.finditer(r"([$@]?[A-Za-z_]\w*)\s*:?=(?!=)([^;\n]*)", code) if temp_dirs.search(m.group(2))]
    for m in ctx.patterns["move_call"].finditer(said[:len(code)]):
        args = _arguments(said, code, m.end())
        method = m.group(0).lstrip().startswith((".rename", "renameTo"))  # Path(src).rename(dst)
        dest = args[0] if method and args else args[-1] if args else ""
        if temp_dirs.search(dest) or any(re.search(r"(?<![\w$@])" + re.escape(t) + r"\b", dest) for t in temps):
            return True
    return False


def _arguments(said: str, code: str, start: int) -> list[str]:
    """The arguments (raw text) of the call whose name ends at ``start``: inside ``( )`` when the
    call has them, else up to the end of the statement (Perl ``rename $a, $b``, Tcl words)."""
    i = start
    while i < len(code) and code[i] in " \t":
        i += 1
    if start and said[start - 1] == "(":
        i = start - 1
    if i < len(code) and said[i] == "(":
        depth, j = 0, i
        while j < len(code):
            depth += {"(": 1, ")": -1}.get(said[j], 0)
            if depth == 0:
                break
            j += 1
        lo, hi = i + 1, j
    else:
        end = re.search(r"[;\n}]|\s(?:if|unless|or|and)\s", said[i:len(code)])
        lo, hi = i, i + end.start() if end else len(code)
    parts, depth, last = [], 0, lo
    for j in range(lo, hi):
        depth += {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}.get(said[j], 0)
        if said[j] == "," and depth == 0:
            parts.append(code[last:j])
            last = j + 1
    parts.append(code[last:hi])
    parts = [p.strip() for p in parts if p.strip()]
    return parts if len(parts) > 1 or "," in said[lo:hi] else (parts[0].split() if parts else [])


# --- git checkout ----------------------------------------------------------------------------------
@plugin("git-checkout-discards")
def _git_checkout(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """``git checkout`` that overwrites working-tree changes: forced, or of a whole tree, a glob
    or a folder (``git checkout -- .``, ``git checkout src/``); hunk by hunk (``-p``) asks."""
    rest = ctx.rest
    flags, operands = split_flags(rest, {"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"})
    if flags & {"p", "--patch"}:
        return False
    if flags & {"f", "--force"}:
        return True
    wide, folder = ctx.patterns["wide_pathspec"], ctx.patterns["wide_or_folder"]
    if "--" in rest:
        return any(folder.search(p) for p in rest[rest.index("--") + 1:])
    return any(wide.search(p) for p in operands)


# --- mass deletions ------------------------------------------------------------------------------
_WHOLE = re.compile(r"(?:[*?.]|\[[^\]/]*\])+")
"""A last path component that matches every name in a folder (``*``, ``.*``, ``*.*``, ``?*``, ``.[!.]*``)."""
_GENERATED_SUFFIX = re.compile(r"(?:^|[._-])cache$|\.egg-info$")


@plugin("mass-delete")
def _mass_delete(cmd: SimpleCommand, ctx: Context, params: dict[str, Any]) -> bool:
    """Deleting in bulk with a deleting program; deleting files named one by one stays allowed
    (``rm notes.txt``). ``kind: recursive``: a recursive removal, a whole tree the model has not
    looked at. ``kind: stream-or-whole-folder``: a ``while read`` loop deleting whatever a stream
    names (like ``xargs rm``), or a glob for a folder's whole content (``rm data/*``, ``data/.*``,
    a ``for`` loop over one). Folders a build regenerates (``generated_folders``: ``build/``,
    ``__pycache__`` ...) are exempt; a glob for part of a folder (``data/*.csv``) selects files
    by name and is left to the user's judgement."""
    if program(cmd.argv) not in ctx.sets["deleters"]:
        return False
    flags, operands = split_flags(cmd.argv[1:])
    doomed = [o for o in operands if not _generated(o, ctx.sets["generated_folders"])]
    if params["kind"] == "recursive":
        return bool(flags & {"r", "R", "--recursive"}) and bool(doomed)
    streams = [n for n, items in ctx.loops.items() if items is None]
    if any(refers(o, r) for o in operands for n in streams for r in (f"${{{n}}}", f"${n}")):
        return True  # while read f; do rm "$f"; done: whatever the stream names
    return any(_WHOLE.fullmatch(posixpath.basename(o.rstrip("/")) or "") and "*" in o for o in doomed)


def refers(word: str, ref: str) -> bool:
    """Whether ``word`` uses the variable reference ``ref`` (``$f`` not followed by a name character)."""
    i = word.find(ref)
    return i >= 0 and not (ref[1] != "{" and re.match(r"\w", word[i + len(ref):i + len(ref) + 1]))


def _generated(operand: str, generated: frozenset[str]) -> bool:
    """Whether ``operand`` lies in (or is) a folder a build regenerates."""
    parts = [p for p in posixpath.normpath(operand).split("/") if p not in ("", ".")]
    if ".." in parts or operand.startswith(("/", "~", "$")):
        return False
    return any(p in generated or _GENERATED_SUFFIX.search(p) for p in parts)
