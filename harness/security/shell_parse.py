"""Shell command lines as the shell reads them: simple commands with their words and redirections.

The command and path guards judge what a command line *does* (which program runs, with which
flags, on which files), not which phrases it contains, so ``grep -rl 'rm -rf' .`` is a grep and
``bash -c "rm -rf x"`` is an rm. Parsing uses ``bashlex`` (a maintained port of GNU bash's own
parser to Python, pure Python, no native build): it removes quotes the way bash does, keeps
command and process substitutions as nested commands, and reports what it cannot parse.

bashlex rejects some valid bash (``case``, ``[[ ]]``, ``$(( ))``, here-documents at the end of the
input); those lines are read by a tolerant tokenizer (``shlex`` with shell punctuation) instead,
and ``Parsed.parsed`` says so, so a caller can fail closed on what looks destructive.
"""

from __future__ import annotations

import re
import shlex
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import bashlex
import bashlex.errors

_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
_MAX_INPUT = 20_000
"""Longer command lines are tokenized, not parsed (bashlex is recursive and slow on huge input)."""


@dataclass
class SimpleCommand:
    argv: list[str]
    """The words after quote removal (expansions such as ``$DIR`` stay as written)."""
    redirects: list[tuple[str, str]] = field(default_factory=list)
    """``(operator, target)``: ``(">", "out.txt")``, ``("<", "in.txt")``; fd duplications left out."""
    stdin_text: str = ""
    """What the command reads on stdin when the line shows it: a here-document's body, or the
    words an ``echo``/``printf`` piped into it."""
    via: str = ""
    """The program that runs this one for many inputs (``find`` -exec, ``xargs``), if any."""
    piped_from: list[str] = field(default_factory=list)
    """The words of the command whose output this one reads through a pipe, if any."""
    assignments: list[str] = field(default_factory=list)
    """``NAME=value`` words before the program, as written (a line of only assignments has
    an empty ``argv``)."""
    loop_words: dict[str, list[str] | None] = field(default_factory=dict)
    """Variables of the loops around this command: a ``for`` variable -> the words it takes in
    turn (``for f in data/*``), a variable ``read`` sets in a ``while``/``until`` condition ->
    None (one value per line of a stream, like ``xargs``)."""


@dataclass
class Parsed:
    commands: list[SimpleCommand]
    parsed: bool
    """True when bashlex parsed the line; False when the tolerant tokenizer had to."""


def parse(command: str) -> Parsed:
    """Every simple command of ``command``, in source order (nested ones included)."""
    text, bodies = _cut_heredocs(command)
    if len(text) <= _MAX_INPUT:
        trees = _try_parse(text)
        if trees is None and (softened := _soften_lists(text)) != text:
            trees = _try_parse(softened)
        if trees is not None:
            out: list[SimpleCommand] = []
            for tree in trees:
                _walk(tree, out)
            return Parsed(_attach(out, bodies), True)
    return Parsed(_attach(tokenize(text), bodies), False)


def _try_parse(text: str) -> list[Any] | None:
    try:
        return _bounded(bashlex.parse, text)
    except (bashlex.errors.ParsingError, NotImplementedError, IndexError, TypeError, ValueError,
            AttributeError, AssertionError, RecursionError, _OverBudget):
        return None


def _soften_lists(text: str) -> str:
    """``&&``/``||`` inside ``$( )`` read as ``;`` (same length, so positions hold).

    bashlex 0.18 rejects an and-or list inside a command substitution (``"$(cd .. && pwd)"``);
    every command of the list still runs in some case, so judging them as a sequence loses
    nothing the guards look at."""
    out, depth, quote, i = list(text), 0, "", 0
    while i < len(text):
        ch = text[i]
        if quote == "'":
            quote = "" if ch == "'" else quote
        elif ch == "'":
            quote = "'"
        elif text.startswith("$(", i):
            depth += 1
            i += 1
        elif ch == ")" and depth:
            depth -= 1
        elif depth and text[i:i + 2] in ("&&", "||"):
            out[i:i + 2] = [";", " "]
            i += 1
        i += 1
    return "".join(out)


class _OverBudget(Exception):
    pass


def _bounded(fn: Callable[[str], list[Any]], text: str) -> list[Any]:
    """``fn(text)`` stopped after a number of function calls proportional to the input.

    bashlex 0.18 loops forever on some malformed words (an unmatched quote inside a backtick
    substitution: ``str.find`` returns -1 and the scan restarts). It is pure Python, so a
    profile hook (per thread, removed afterwards) can count its calls and stop it; the line is
    then read by the tolerant tokenizer like any other line bashlex rejects."""
    budget = [200_000 + 200 * len(text)]
    previous = sys.getprofile()

    def count(frame: object, event: str, arg: object) -> None:
        budget[0] -= 1
        if budget[0] < 0:
            raise _OverBudget

    sys.setprofile(count)
    try:
        return fn(text)
    finally:
        sys.setprofile(previous)


def _cut_heredocs(command: str) -> tuple[str, dict[str, str]]:
    """Here-document bodies cut out (bashlex cannot parse them everywhere) and replaced by a
    ``< __HEREDOC_n__`` redirection whose body is kept aside."""
    if "<<" not in command:
        return command, {}
    lines = command.split("\n")
    out: list[str] = []
    bodies: dict[str, str] = {}
    i = 0
    while i < len(lines):
        line = lines[i]
        i += 1
        for m in list(_HEREDOC.finditer(line))[::-1]:
            if line[m.start() - 1:m.start()] == "<" or line[m.end():m.end() + 1] == "<":
                continue  # <<< here-string
            name = f"__HEREDOC_{len(bodies)}__"
            body: list[str] = []
            while i < len(lines) and (lines[i].strip() if m.group(1) else lines[i]) != m.group(3):
                body.append(lines[i])
                i += 1
            i += 1  # the delimiter line
            bodies[name] = "\n".join(body)
            line = f"{line[:m.start()]}< {name}{line[m.end():]}"
        out.append(line)
    return "\n".join(out), bodies


def _attach(commands: list[SimpleCommand], bodies: dict[str, str]) -> list[SimpleCommand]:
    for c in commands:
        for op, target in c.redirects:
            if op == "<" and target in bodies:
                c.stdin_text = bodies[target]
        c.redirects = [(op, t) for op, t in c.redirects if t not in bodies]
    return commands


def _walk(node: object, out: list[SimpleCommand]) -> None:
    kind = getattr(node, "kind", "")
    if kind == "command":
        _command(node, out)
    elif kind == "pipeline":
        start = len(out)
        parts = [p for p in node.parts if getattr(p, "kind", "") != "pipe"]  # type: ignore[attr-defined]
        heads: list[int] = []
        for p in parts:
            heads.append(len(out))
            _walk(p, out)
        _pipe_text(out, heads, start)
    else:
        start = len(out)
        for child in _children(node):
            _walk(child, out)
        if kind in ("for", "while", "until"):
            _loop_variables(node, out[start:])
        redirects = [(r.type, r.output.word) for r in getattr(node, "redirects", None) or []
                     if hasattr(r.output, "word")]
        if redirects:  # `while ...; done < file`: the block's own redirections
            out.append(SimpleCommand(["(compound)"], redirects))


def _loop_variables(node: object, body: list[SimpleCommand]) -> None:
    """Record on each command of a loop what its loop variables stand for (see ``loop_words``)."""
    parts = list(getattr(node, "parts", None) or [])
    words: dict[str, list[str] | None] = {}
    if getattr(node, "kind", "") == "for" and parts[1:2] and getattr(parts[1], "kind", "") == "word":
        items = []
        for p in parts[2:]:
            if getattr(p, "kind", "") == "word" and getattr(parts[2], "word", "") == "in":
                items.append(p.word)
            elif getattr(p, "kind", "") != "word" and getattr(p, "word", "") != "in":
                break
        words[parts[1].word] = items
    else:  # while read -r f; do ...: the condition's `read` sets one value per input line
        for c in body:
            if c.argv[:1] == ["read"]:
                words.update(dict.fromkeys(_read_names(c.argv[1:])))
    for c in body:
        c.loop_words = {**words, **c.loop_words}


def _read_names(args: list[str]) -> list[str]:
    names, i = [], 0
    while i < len(args):
        if args[i] in ("-a", "-d", "-i", "-n", "-N", "-p", "-t", "-u"):
            names += [args[i + 1]] if args[i] == "-a" and i + 1 < len(args) else []
            i += 2
            continue
        if not args[i].startswith("-"):
            names.append(args[i])
        i += 1
    return names


def _children(node: object) -> list[object]:
    children = list(getattr(node, "parts", None) or []) + list(getattr(node, "list", None) or [])
    sub = getattr(node, "command", None)
    return [*children, sub] if sub is not None else children


def _pipe_text(out: list[SimpleCommand], heads: list[int], start: int) -> None:
    """``echo 'DROP TABLE t' | psql``: the echoed words are the next command's stdin."""
    for a, b in zip(heads, heads[1:], strict=False):
        if a < len(out) and b < len(out):
            out[b].piped_from = list(out[a].argv)
        if a < len(out) and b < len(out) and out[a].argv[:1] and out[a].argv[0] in ("echo", "printf"):
            out[b].stdin_text = " ".join(w for w in out[a].argv[1:] if not w.startswith("-"))


def _command(node: object, out: list[SimpleCommand]) -> None:
    cmd = SimpleCommand([])
    out.append(cmd)
    for part in node.parts:  # type: ignore[attr-defined]
        kind = getattr(part, "kind", "")
        if kind == "word":
            cmd.argv.append(part.word)
        elif kind == "assignment":
            cmd.assignments.append(part.word)
        elif kind == "redirect":
            target = part.output
            if hasattr(target, "word"):
                cmd.redirects.append((part.type, target.word))
            target_parts = [target] if hasattr(target, "kind") else []
            for sub in target_parts:
                _nested(sub, out)
            continue
        _nested(part, out)


def _nested(part: object, out: list[SimpleCommand]) -> None:
    """Command and process substitutions inside a word run as commands of their own."""
    for child in getattr(part, "parts", None) or []:
        if getattr(child, "kind", "") in ("commandsubstitution", "processsubstitution"):
            _walk(child.command, out)
        else:
            _nested(child, out)


# --- the tolerant tokenizer (input bashlex rejects) ------------------------------------------------
_OPERATORS = {";", "&&", "||", "|", "&", "(", ")", "|&", ";;", "{", "}", "!", "then", "do", "else",
              "elif", "if", "fi", "done", "while", "until", "esac", "in"}
_REDIRECT = re.compile(r"^(\d*)(>>|>\||>|<|&>>|&>)$")


def tokenize(text: str) -> list[SimpleCommand]:
    """Simple commands from shell-like text, however malformed: quotes closed at the end when
    left open, operators split off, substitutions read as separate commands."""
    flat = re.sub(r"\$\(|`|\$\{|<\(|>\(", " ; ", text.replace("\n", " ; "))
    tokens = _shlex(flat)
    out: list[SimpleCommand] = []
    cmd = SimpleCommand([])
    frames: list[dict[str, list[str] | None]] = []  # the loops open at this token (see loop_words)
    it = iter(enumerate(tokens))
    for i, tok in it:
        _track_loops(tokens, i, frames, cmd)
        if tok in _OPERATORS or set(tok) <= set(";&|()"):
            if cmd.argv or cmd.redirects:
                out.append(cmd)
            cmd = SimpleCommand([])
            continue
        m = _REDIRECT.match(tok)
        if m:
            target = next(it, (0, ""))[1]
            cmd.redirects.append((m.group(2), target))
            continue
        if not cmd.argv and frames:
            cmd.loop_words = {k: v for f in frames for k, v in f.items()}
        cmd.argv.append(tok)
    if cmd.argv or cmd.redirects:
        out.append(cmd)
    return out


def _track_loops(tokens: list[str], i: int, frames: list[dict[str, list[str] | None]], cmd: SimpleCommand) -> None:
    """Loops as the tokenizer meets them (lines with ``[[ ]]`` or ``case`` that bashlex
    rejects): ``for NAME in WORDS`` opens a frame with the words, ``while``/``until`` one that
    the names a ``read`` sets fill, ``done`` closes the innermost."""
    tok = tokens[i]
    if tok == "for" and not cmd.argv:
        name = tokens[i + 1] if i + 1 < len(tokens) else ""
        words: list[str] = []
        if re.fullmatch(r"[A-Za-z_]\w*", name) and tokens[i + 2:i + 3] == ["in"]:
            for w in tokens[i + 3:]:
                if w in _OPERATORS or set(w) <= set(";&|()"):
                    break
                words.append(w)
        frames.append({name: words} if words else {})
    elif tok in ("while", "until") and not cmd.argv:
        frames.append({})
    elif tok == "done" and not cmd.argv and frames:
        frames.pop()
    elif cmd.argv[:1] == ["read"] and frames and not tok.startswith("-") and re.fullmatch(r"[A-Za-z_]\w*", tok):
        frames[-1][tok] = None


def _shlex(text: str) -> list[str]:
    for closing in ("", '"', "'", "'\"", "\"'"):
        try:
            lexer = shlex.shlex(text + closing, posix=True, punctuation_chars=";&|()<>")
            lexer.whitespace_split = True
            return list(lexer)
        except ValueError:
            continue
    return text.split()


def split_flags(args: list[str], value_opts: frozenset[str] | set[str] = frozenset()) -> tuple[set[str], list[str]]:
    """Short flag letters (of every ``-xyz`` cluster), long flags (without ``=value``) and the
    operands; an option in ``value_opts`` takes the next word as its value (not an operand)."""
    flags: set[str] = set()
    operands: list[str] = []
    done = skip = False
    for a in args:
        if skip:
            skip = False
        elif done or not a.startswith("-") or a == "-":
            operands.append(a)
        elif a == "--":
            done = True
        elif a.startswith("--"):
            flags.add(a.split("=", 1)[0])
        else:
            flags.update(a[1:])
            skip = a in value_opts
    return flags, operands
