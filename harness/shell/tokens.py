"""The tolerant tokenizer: simple commands from shell-like text bashlex rejects, however malformed.

Quotes left open are closed at the end, operators split off, substitutions read as separate
commands, loops tracked (``for NAME in WORDS``, ``while read NAME``) so the commands inside
know their loop variables like the parser's do. And the flag splitter every rule uses.
"""

from __future__ import annotations

import re
import shlex

from harness.shell.command import SimpleCommand

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
