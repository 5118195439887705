"""Words around a command that do not change what it does, and what ``time`` adds to an output.

Two kinds. Reserved words that prefix a pipeline: ``time`` (with ``-p``) only measures it and
``coproc`` only runs it in the background with a pipe; bash reads them as grammar, not as a
program, and bashlex rejects both. They are blanked (same length, so positions hold) where a
command starts, outside quotes, and the line is parsed again (``syntax.parse``). ``!`` (bashlex drops it) and the
builtins ``exec``, ``command``, ``builtin`` (``wrappers``) are already read through.

And stages after a pipe that pass their input through unchanged to the output the call returns:
``| cat``, ``| cat -``, ``| tee /dev/null``, ``| tee`` with no file, a pager (``| less``, ``|
more``: with no terminal they print their input). A stage that filters, numbers or writes a file
(``| head -5``, ``| cat -n``, ``| tee out.log``) is kept.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from harness.shell.wrappers import programs

if TYPE_CHECKING:
    from harness.shell.syntax import SimpleCommand

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


def passes_through(c: SimpleCommand) -> bool:
    """Whether ``c`` reads a pipe and writes its input to its output unchanged (``programs.yaml``,
    ``pass_through``)."""
    spec = programs()["pass_through"].get(c.argv[0]) if c.argv else None
    if not c.piped_from or c.redirects or c.assignments or spec is None:
        return False
    flags = {w for w in c.argv[1:] if w.startswith("-") and w != "-"}
    operands = {w for w in c.argv[1:] if w not in flags}
    return flags <= set(spec.get("flags", ())) and operands <= set(spec.get("operands", ()))


_TIME_REPORT = re.compile(
    r"(?m)^\n?real[ \t]+(?:\d+m)?[\d.,]+s?\nuser[ \t]+(?:\d+m)?[\d.,]+s?\nsys[ \t]+(?:\d+m)?[\d.,]+s?$\n?"
    r"|^[\d.]+user [\d.]+system [\d:.]+elapsed \d+%CPU \(.*\n[^\n]*pagefaults \d+swaps$\n?"
    r"|^\tCommand being timed: [^\n]*\n(?:\t[^\n]*\n)*?\tExit status: \d+$\n?"
    r"|^.*[ \t][\d.]+s user [\d.]+s system \d+% cpu [\d:.]+ total$\n?"
)
"""What ``time`` adds to a command's output: bash's report (``real/user/sys``, with ``-p``
too), GNU ``/usr/bin/time``'s default and ``-v`` reports, zsh's one-line report."""


def without_time_report(output: str) -> str:
    """``output`` without the timing a ``time`` prefix adds: a measurement of the call, not
    its result, so ``time make`` and ``make`` give one result."""
    return _TIME_REPORT.sub("", output) if ("real" in output or "elapsed" in output or " total" in output
                                            or "Command being timed" in output) else output
