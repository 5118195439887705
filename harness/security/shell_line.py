"""What the rest of a line tells the command guard about one of its commands.

A command is judged with what the line around it fixes: the words a ``for`` loop gives its
variable (``for f in data/*; do rm "$f"; done`` deletes ``data/*``), variables the line set to a
temporary place (``d=$(mktemp -d); mv data "$d"`` moves data out of the workspace), and files
or folders the line created empty before (``touch e && mv e data.csv`` empties data.csv, like
``cp /dev/null data.csv``). ``Line.prepare`` returns the command with those words spelled out, so
one set of rules (``harness/rules/destructive_commands.yaml``) judges every spelling.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from harness.shell import SimpleCommand, program

_DECLARE = {"export", "local", "declare", "readonly", "typeset"}
_COPIES = {"cp", "mv", "install", "ln", "rsync"}
_EMPTY = "/dev/null"
_TEMP_VAR = "$TMPDIR"
"""How a variable the line assigned a temporary place is spelled once rewritten (``d=$(mktemp -d)``)."""


@dataclass
class Line:
    temp_place: re.Pattern[str]
    """A word naming a temporary place (``$(mktemp -d)``, ``$TMPDIR/x``, ``/tmp/x``)."""
    temps: dict[str, str] = field(default_factory=dict)
    """Variables the line sets: a temporary place as ``$TMPDIR``, any other value as written."""
    made_empty: set[str] = field(default_factory=set)
    """Files (``e``) and folders (``e/``) the line created empty so far."""

    def note(self, cmd: SimpleCommand) -> None:
        """Record the variables a command of the line assigns (``d=...``, ``export d=...``)."""
        words = cmd.assignments + (cmd.argv[1:] if program(cmd.argv) in _DECLARE else [])
        for a in words:
            name, eq, value = a.partition("=")
            if eq and re.fullmatch(r"[A-Za-z_]\w*", name):
                value = self._with_temps([value])[0]
                self.temps[name] = _TEMP_VAR if self.temp_place.search(value) else value

    def prepare(self, cmd: SimpleCommand, loops: dict[str, list[str] | None]) -> SimpleCommand:
        """``cmd`` with loop variables, temporary variables and empty sources spelled out."""
        cmd = loop_expanded(cmd, loops)
        cmd = SimpleCommand(self._with_temps(cmd.argv), cmd.redirects, cmd.stdin_text, cmd.via, cmd.piped_from,
                            cmd.assignments, cmd.loop_words)
        return self._empty_sources(cmd)

    def _with_temps(self, argv: list[str]) -> list[str]:
        """``argv`` with words that start with a variable the line assigned spelled with its value."""
        if not self.temps:
            return argv
        names = "|".join(re.escape(n) for n in sorted(self.temps))
        rx = re.compile(r"\$(?:\{(" + names + r")\}|(" + names + r")\b)")
        return [self.temps[m.group(1) or m.group(2)] + w[m.end():] if (m := rx.match(w)) else w for w in argv]

    def _empty_sources(self, cmd: SimpleCommand) -> SimpleCommand:
        """Files and folders this line creates empty (``touch e``, ``mkdir e``) are empty sources
        later on the line, like ``/dev/null``: ``touch e && mv e data.csv`` empties data.csv and
        ``mkdir e && rsync -a --delete e/ data/`` empties data/. The command comes back with such
        a source spelled ``/dev/null``, so one set of rules judges both."""
        prog, args = program(cmd.argv), cmd.argv[1:]
        operands = [a.rstrip("/") or a for a in args if not a.startswith("-")]
        if prog in ("touch", "mkdir"):  # a folder is "d/" (copying or moving one replaces nothing)
            self.made_empty.update(o + ("/" if prog == "mkdir" else "") for o in operands)
            return cmd
        if prog not in _COPIES or not self.made_empty:
            return cmd
        kind = "/" if prog == "rsync" else ""
        argv = [cmd.argv[0]] + [_EMPTY if not a.startswith("-") and (a.rstrip("/") or a) + kind in self.made_empty else a
                                for a in args]
        return SimpleCommand(argv, cmd.redirects, cmd.stdin_text, cmd.via, cmd.piped_from, cmd.assignments,
                             cmd.loop_words)


def loop_expanded(cmd: SimpleCommand, loop_words: dict[str, list[str] | None]) -> SimpleCommand:
    """``cmd`` with each ``for`` variable of ``loop_words`` replaced by the words the loop gives
    it (every iteration at once: for a deletion the union is what is lost)."""
    if not any(v for v in loop_words.values()):
        return cmd
    argv: list[str] = []
    for word in cmd.argv:
        ref = next(((r, items) for name, items in loop_words.items() if items
                    for r in (f"${{{name}}}", f"${name}") if refers(word, r)), None)
        argv += [word.replace(ref[0], item) for item in ref[1]] if ref else [word]
    return SimpleCommand(argv, cmd.redirects, cmd.stdin_text, cmd.via, cmd.piped_from, cmd.assignments, loop_words)


def refers(word: str, ref: str) -> bool:
    """Whether ``word`` uses the variable reference ``ref`` (``$f`` not followed by a name character)."""
    i = word.find(ref)
    return i >= 0 and not (ref[1] != "{" and re.match(r"\w", word[i + len(ref):i + len(ref) + 1]))
