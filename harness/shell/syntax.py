"""Shell command lines as the shell reads them: simple commands with their words and redirections.

Every control that reads shell reads it here (loop detection, the command guard, the path guard,
the context-file scanner): which program runs, with which flags, on which files, not which
phrases the line contains, so ``grep -rl 'rm -rf' .`` is a grep and ``bash -c "rm -rf x"`` is an
rm. Parsing uses ``bashlex`` (a maintained port of GNU bash's own parser to Python, pure Python,
no native build): it removes quotes the way bash does, keeps command and process substitutions
as nested commands, and reports what it cannot parse.

bashlex rejects some valid bash (``case``, ``[[ ]]``, ``$(( ))``, ``time``/``coproc``, an and-or
list inside ``$( )``, here-documents at the end of the input); the line is parsed again with
those read through, and what still fails is read by a tolerant tokenizer (``tokenize``, at the
end: open quotes closed, operators split off, substitutions and loops read through), with
``Parsed.parsed`` False, so a caller can fail closed on what looks destructive. And the flag
splitter every rule uses (``split_flags``).

One parse per distinct line: ``parse`` is cached, and the loop key, the command guard and the
path guard of one call all ask it, so a line is parsed once however many controls read it.
Callers must not change what it returns (the commands are shared).
"""

from __future__ import annotations

import re
import shlex
import threading
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import takewhile
from typing import Any

import bashlex
import bashlex.errors
import bashlex.tokenizer

_HEREDOC = re.compile(r"<<(-?)[ \t]*(['\"]?)([A-Za-z_][\w.-]*)\2")
_CONTINUATION = re.compile(r"\\\r?\n")
_MAX_INPUT = 20_000
"""Longer command lines are tokenized, not parsed (bashlex is recursive and slow on huge input)."""
CACHE_SIZE = 1024
"""Distinct lines kept parsed (a long run repeats far fewer distinct lines than this)."""


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


@dataclass(frozen=True)
class Parsed:
    commands: tuple[SimpleCommand, ...]
    parsed: bool
    """True when bashlex parsed the line; False when the tolerant tokenizer had to."""


@lru_cache(maxsize=CACHE_SIZE)
def parse(command: str) -> Parsed:
    """Every simple command of ``command``, in source order (nested ones included); cached."""
    text, bodies = _cut_heredocs(_CONTINUATION.sub(" ", command))
    if len(text) <= _MAX_INPUT and (trees := _first_parse(text)) is not None:
        out: list[SimpleCommand] = []
        for tree in trees:
            _walk(tree, out)
        return Parsed(tuple(_attach(out, bodies)), True)
    return Parsed(tuple(_attach(tokenize(text), bodies)), False)


def _first_parse(text: str) -> list[Any] | None:
    """bashlex's trees of ``text``, or of ``text`` with what bashlex rejects read through:
    ``time``/``coproc`` prefixes and and-or lists inside ``$( )``."""
    tried = set()
    for soften in (str, soften_prefixes, _soften_lists, lambda t: _soften_lists(soften_prefixes(t))):
        variant = soften(text)
        if variant not in tried and (trees := _try_parse(variant)) is not None:
            return trees
        tried.add(variant)
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


_bashlex_token = bashlex.tokenizer.tokenizer.token


def _counted_token(self: Any) -> Any:
    """bashlex's tokenizer, stopped after a number of tokens proportional to the input.

    bashlex 0.18 never returns on some malformed words (an unmatched quote inside a backtick
    substitution: its tokenizer emits the same word forever). A line of N characters has at most
    about N tokens, times the nesting of its substitutions (each is tokenized again), so a count
    far above that means the tokenizer is stuck; the line is then read by the tolerant tokenizer
    like any other line bashlex rejects. Counting tokens costs one comparison per token (a
    profile hook counting every function call made parsing 2.5x slower)."""
    left = getattr(_budget, "left", None)
    if left is not None:
        if left <= 0:
            raise _OverBudget
        _budget.left = left - 1
    return _bashlex_token(self)


bashlex.tokenizer.tokenizer.token = _counted_token  # type: ignore[method-assign]


# --- what bashlex rejects, read through: ``time``/``coproc`` prefixes and and-or lists in ``$( )`` -----
# ``time`` (with ``-p``) only measures a pipeline and ``coproc`` only runs it in the background
# with a pipe; bash reads them as grammar, not as a program, and bashlex rejects both. They are
# blanked (same length, so positions hold) where a command starts, outside quotes, and the line
# is parsed again. ``!`` (bashlex drops it) and the builtins ``exec``, ``command``, ``builtin``
# (``wrappers``) are already read through.
_PREFIX = re.compile(r"(?:time(?:[ \t]+-p)?(?:[ \t]+--)?|coproc(?:[ \t]+[A-Za-z_]\w*(?=[ \t]*[{(]))?)(?=[ \t]|$)")
"""``time [-p] [--]``, ``coproc [NAME]`` (a name only before a compound command)."""
_TIME_PROGRAM = re.compile(r"time(?=[ \t]+-(?!p(?:[ \t]|$)|-(?:[ \t]|$)))")
"""``time`` with an option bash's reserved word does not take (``time -f %e make``): the line
means the ``time`` program, so it is escaped into a word (``\\time``) and read as a wrapper."""
_STARTS = frozenset(";&|({\n")
"""Characters after which a new command starts."""
_KEEP_START = frozenset({"!", "if", "then", "do", "else", "elif", "while", "until"})
"""Reserved words after which a command still starts (``! time make``, ``if time make``)."""
_WORD = re.compile(r"[^\s;&|()'\"\\]+")


def soften_prefixes(text: str) -> str:
    """``text`` with ``time``/``coproc`` blanked where they start a command (quotes respected)
    and ``time`` made a word where its options are those of the ``time`` program."""
    out, quote, start, i = list(text), "", True, 0
    while i < len(text):
        ch = text[i]
        if quote:
            quote = "" if ch == quote else quote
            i += 2 if ch == "\\" and quote == '"' else 1
            continue
        if ch in "'\"":
            quote, start = ch, False
        elif ch == "\\":
            start, i = False, i + 1
        elif ch in _STARTS:
            start = True
        elif ch not in " \t":
            if start and _TIME_PROGRAM.match(text, i):  # `time -f %e make`: GNU time, a program
                out[i] = "\\t"
                i += 4
                continue
            if start and (m := _PREFIX.match(text, i)):
                out[i:m.end()] = " " * (m.end() - i)
                i = m.end()
                continue
            word = _WORD.match(text, i)
            end = word.end() if word else i + 1
            start = text[i:end] in _KEEP_START
            i = end
            continue
        i += 1
    return "".join(out)


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
        heads: list[int] = []
        for p in node.parts:  # type: ignore[attr-defined]
            if getattr(p, "kind", "") != "pipe":
                heads.append(len(out))
                _walk(p, out)
        _pipe_text(out, heads)
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
        given = len(parts) > 2 and getattr(parts[2], "word", "") == "in"  # `for f; do`: no words given
        words[parts[1].word] = [p.word for p in takewhile(lambda p: p.kind == "word", parts[3:])] if given else []
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


def _pipe_text(out: list[SimpleCommand], heads: list[int]) -> None:
    """``echo 'DROP TABLE t' | psql``: the echoed words are the next command's stdin."""
    for a, b in zip(heads, heads[1:], strict=False):
        if b < len(out):
            out[b].piped_from = list(out[a].argv)
            if out[a].argv[:1] and out[a].argv[0] in ("echo", "printf"):
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
        elif kind == "redirect" and hasattr(part.output, "word"):
            cmd.redirects.append((part.type, part.output.word))
        _nested(part.output if kind == "redirect" else part, out)


def _nested(part: object, out: list[SimpleCommand]) -> None:
    """Command and process substitutions inside a word run as commands of their own."""
    for child in getattr(part, "parts", None) or []:
        if getattr(child, "kind", "") in ("commandsubstitution", "processsubstitution"):
            _walk(child.command, out)
        else:
            _nested(child, out)


# --- the tolerant tokenizer: what bashlex rejects, however malformed -----------------------------
_OPERATORS = {";", "&&", "||", "|", "&", "(", ")", "|&", ";;", "{", "}", "!", "then", "do", "else",
              "elif", "if", "fi", "done", "while", "until", "esac", "in"}
_REDIRECT = re.compile(r"^(\d*)(>>|>\||>|<|&>>|&>)$")


def _operator(tok: str) -> bool:
    return tok in _OPERATORS or set(tok) <= set(";&|()")


def tokenize(text: str) -> list[SimpleCommand]:
    """Simple commands from shell-like text, however malformed."""
    flat = re.sub(r"\$\(|`|\$\{|<\(|>\(", " ; ", text.replace("\n", " ; "))
    tokens = _shlex(flat)
    out: list[SimpleCommand] = []
    cmd = SimpleCommand([])
    frames: list[dict[str, list[str] | None]] = []  # the loops open at this token (see loop_words)
    it = iter(enumerate(tokens))
    for i, tok in it:
        _track_loops(tokens, i, frames, cmd)
        if _operator(tok):
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
            words = list(takewhile(lambda w: not _operator(w), tokens[i + 3:]))
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
    operands; an option in ``value_opts`` (short or long, its value not attached) takes the next
    word as its value (not an operand)."""
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
            skip = a in value_opts
        else:
            flags.update(a[1:])
            skip = a in value_opts
    return flags, operands
