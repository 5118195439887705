"""Shell command lines as the shell reads them: simple commands with their words and redirections.

Every control that reads shell reads it here (loop detection, the command guard, the path guard,
the context-file scanner): which program runs, with which flags, on which files, not which
phrases the line contains, so ``grep -rl 'rm -rf' .`` is a grep and ``bash -c "rm -rf x"`` is an
rm. Parsing uses ``bashlex`` (a maintained port of GNU bash's own parser to Python, pure Python,
no native build): it removes quotes the way bash does, keeps command and process substitutions
as nested commands, and reports what it cannot parse.

bashlex rejects some valid bash (``case``, ``[[ ]]``, ``$(( ))``, ``time``/``coproc``, an and-or
list inside ``$( )``, here-documents at the end of the input); the line is parsed again with
those read through, and what still fails is read by a tolerant tokenizer (``tokens``), with
``Parsed.parsed`` False, so a caller can fail closed on what looks destructive.

One parse per distinct line: ``parse`` is cached, and the loop key, the command guard and the
path guard of one call all ask it, so a line is parsed once however many controls read it.
Callers must not change what it returns (the commands are shared).
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import bashlex
import bashlex.errors
import bashlex.tokenizer

from harness.shell.command import SimpleCommand
from harness.shell.keywords import soften_prefixes
from harness.shell.tokens import tokenize  # the fallback reader

_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
_CONTINUATION = re.compile(r"\\\r?\n")
_MAX_INPUT = 20_000
"""Longer command lines are tokenized, not parsed (bashlex is recursive and slow on huge input)."""
CACHE_SIZE = 1024
"""Distinct lines kept parsed (a long run repeats far fewer distinct lines than this)."""


@dataclass(frozen=True)
class Parsed:
    commands: tuple[SimpleCommand, ...]
    parsed: bool
    """True when bashlex parsed the line; False when the tolerant tokenizer had to."""


@lru_cache(maxsize=CACHE_SIZE)
def parse(command: str) -> Parsed:
    """Every simple command of ``command``, in source order (nested ones included); cached."""
    text, bodies = _cut_heredocs(_CONTINUATION.sub(" ", command))
    if len(text) <= _MAX_INPUT:
        trees = _first_parse(text)
        if trees is not None:
            out: list[SimpleCommand] = []
            for tree in trees:
                _walk(tree, out)
            return Parsed(tuple(_attach(out, bodies)), True)
    return Parsed(tuple(_attach(tokenize(text), bodies)), False)


def _first_parse(text: str) -> list[Any] | None:
    """bashlex's trees of ``text``, or of ``text`` with what bashlex rejects read through:
    ``time``/``coproc`` prefixes (``keywords``) and and-or lists inside ``$( )``."""
    trees = _try_parse(text)
    if trees is not None:
        return trees
    tried = {text}
    for variant in (soften_prefixes(text), _soften_lists(text), _soften_lists(soften_prefixes(text))):
        if variant not in tried:
            tried.add(variant)
            trees = _try_parse(variant)
            if trees is not None:
                return trees
    return None


def _try_parse(text: str) -> list[Any] | None:
    _budget.left = 500 + 10 * len(text)
    try:
        return bashlex.parse(text)
    except (bashlex.errors.ParsingError, NotImplementedError, IndexError, TypeError, ValueError,
            AttributeError, AssertionError, RecursionError, _OverBudget):
        return None
    finally:
        _budget.left = None


class _OverBudget(Exception):
    pass


_budget = threading.local()
"""Tokens left to the parse under way in this thread (None: no parse of ours is under way)."""


def _install_token_budget() -> None:
    """Stop bashlex after a number of tokens proportional to the input.

    bashlex 0.18 never returns on some malformed words (an unmatched quote inside a backtick
    substitution: its tokenizer emits the same word forever). A line of N characters has at most
    about N tokens, times the nesting of its substitutions (each is tokenized again), so a count
    far above that means the tokenizer is stuck; the line is then read by the tolerant tokenizer
    like any other line bashlex rejects. Counting tokens costs one comparison per token (a
    profile hook counting every function call made parsing 2.5x slower)."""
    original = bashlex.tokenizer.tokenizer.token

    def token(self: Any) -> Any:
        left = getattr(_budget, "left", None)
        if left is not None:
            if left <= 0:
                raise _OverBudget
            _budget.left = left - 1
        return original(self)

    bashlex.tokenizer.tokenizer.token = token  # type: ignore[method-assign]


_install_token_budget()


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


