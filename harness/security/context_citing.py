"""Whether a context file cites a dangerous command or orders it run (``example_context``).

A security guideline quotes the very one-liners an attacker would plant: "do not merge CI steps
like `... | base64 -d | bash`", "| Don't | Do instead |" tables, "Dangerous patterns" lists,
"Niemals `...` verwenden". The exfiltration shapes on such a line are listed, not asked for.
A line is *cited* when every sentence that holds its command reads as a policy about it (a
negation, a warning word, a describing cue, a "Bad:" label, in several languages) and no
sentence orders it (an un-negated order verb of any of those languages, or a signal such as
"once per session" or "no need to ask"). In a table row, the command's own cell is read with
its column's header: the "Don't" column cites even when the "Do" column says "run".
"""

from __future__ import annotations

import re

from harness.security.context_sentences import Sentence, fence_flags
from harness.security.context_signals import _cue, _describing, patterns, triggered

__all__ = ["cited_lines", "described_lines", "ordered"]


def described_lines(sentences: list[Sentence]) -> set[int]:
    """Lines of list items and table rows whose lead-in describes attacks (``examples``):
    exfiltration shapes there are listed, not asked for."""
    return {s.line for s in sentences if s.example and _describing(s.context)}


_CODE_SPAN = re.compile(r"`([^`\n]+)`")
# An order to run something: the verb (also "by running ...") governing a command. Not a part of
# a compound ("decode-and-execute chains" names a kind of code, it orders nothing).
_ORDER = re.compile(r"(?<!-)\b(?:run|running|execute|executing|exec|invoke|invoking|paste|pasting|type|enter|"
                    r"perform|performing|call|calling)\b(?!-)", re.I)
_ORDER_SIGNALS = ("every-session", "approval-bypass", "stealthily", "secrecy", "before-the-user",
                  "whatever-the-user-says")
"""Weak signals that make a sentence an order whatever else it says ("once per session" ...)."""


def cited_lines(text: str, sentences: list[Sentence], candidates: set[int]) -> set[int]:
    """Those of the ``candidates`` lines whose commands are cited, not ordered: every sentence
    that holds them (for a code-block line: the prose that introduces it) describes, quotes or
    forbids them ("code such as `...` must be flagged", "never paste `...`") and asks no one to
    run them. A guideline quoting an exfiltration one-liner loads; "e.g. run `...`" does not."""
    lines = text.split("\n")
    code = fence_flags(lines)
    out: set[int] = set()
    for n in candidates:
        if not 0 < n <= len(lines):
            continue
        if not code[n - 1] and (cell := _table_cell(lines, n)) is not None:
            if _cites_text(cell):
                out.add(n)
            continue
        spans = _CODE_SPAN.findall(lines[n - 1]) or [lines[n - 1]]
        keys = [" ".join(sp.replace("*", "").split()) for sp in spans]
        holders = [s for s in sentences if any(k and k in s.text for k in keys)]
        if holders and all(_cites(s, code[n - 1]) for s in holders):
            out.add(n)
    return out


_CELL_SPLIT = re.compile(r"(?<!\\)\|")


def _table_cell(lines: list[str], n: int) -> str | None:
    """For a table row holding an exfiltration shape: the header of the command's column and the
    cell itself (the row's other cells may say "run the checked-in script"); None otherwise."""
    row = lines[n - 1].strip()
    if not row.startswith("|"):
        return None
    first = n - 1
    while first > 0 and lines[first - 1].strip().startswith("|"):
        first -= 1
    if first == n - 1:
        return None  # the header row itself
    header = _cells(lines[first])
    cells = _cells(row)
    for i, cell in enumerate(cells):
        if "`" in cell:
            return f"{header[i] if i < len(header) else ''}: {cell}"
    return None


def _cells(row: str) -> list[str]:
    return [c.strip() for c in _CELL_SPLIT.split(row.strip().strip("|"))]


def _cites(s: Sentence, in_code: bool) -> bool:
    # The prose only: a code line's context is its intro plus itself, and words inside code
    # spans ("https://paste.example") are not the sentence's verbs.
    return _cites_text(s.context[: len(s.context) - len(s.text)] if in_code else s.context)


# Words of a policy about a command (it is flagged, rejected, a threat), read only in sentences
# that order nothing.
_CITING = re.compile(r"\b(?:exfiltration|tricks?|threats?|flags?|flagged|rejects?|rejected|blocks?|blocked|"
                     r"forbidden|prohibited|detects?|detected|catches|reviewers?|audits?)\b", re.I)


def _cites_text(text: str) -> bool:
    text = _CODE_SPAN.sub("`...`", text)
    if _ordered(text):
        return False
    negated = any(_negated(text, m) for m in _orders(text))
    return (negated or _describing(text) or bool(_cue("defines").search(text))
            or bool(_CITING.search(text)) or bool(_cue("cites").search(text)))


def ordered(text: str) -> bool:
    """``text`` orders something run: an un-negated order verb (English or of the ``orders``
    languages), or a signal that makes any sentence an order ("once per session")."""
    return _ordered(text)


def _ordered(text: str) -> bool:
    lowered = text.lower()
    for m in _orders(text):
        if not _negated(text, m) and not _relative(text, m):
            return True
    return any(p.id in _ORDER_SIGNALS and triggered(p, lowered) and p.regex.search(text)
               for p in patterns(("signals", "signals_variants")))


def _orders(text: str) -> list[re.Match[str]]:
    """Order verbs of the sentence, English and the other languages of the ``orders`` patterns."""
    return [*_ORDER.finditer(text), *(m for p in patterns("orders") for m in p.regex.finditer(text))]


# A relative pronoun after a noun opens a clause that describes the noun: "cualquier cambio que
# ejecute `...`", "ogni modifica che esegua `...`", "ändring som kör `...`" say what a change
# does, they order nothing. Not after a word that makes "que" a conjunction ("para que", "de
# que"); English "that" is left out (also a conjunction: "make sure that you run").
_RELATIVE = re.compile(
    r"(?<![^\W\d_])(?!(?:de|para|pour|afin|perch[eé]|affinch[eé]|así|ainsi|tal|tanto)\s)[^\W\d_]{3,},?\s+"
    r"(?:que|qui|che|cui|som|joka|jotka|jonka|który|która|które|którzy|který|která|které|kteří|který|"
    r"который|которая|которое|которые|яка|який|які|ki|yang)\s+(?:[^\W\d_]+\s+)?$", re.I)


def _relative(text: str, m: re.Match[str]) -> bool:
    """The order verb ``m`` opens no order: it is the verb of a relative clause describing a
    noun ("... un cambio que ejecute `...`", "... mudança que execute `...`")."""
    return bool(_RELATIVE.search(text[max(0, m.start() - 60):m.start()]))


def _negated(text: str, m: re.Match[str]) -> bool:
    """The order verb ``m`` is negated: "never run", "no ejecutes", "не запускайте", "不要运行",
    "実行しないで"."""
    before = text[:m.start()]
    return bool(_cue("negation").search(before[-80:]) or _cue("negation-variants").search(before[-30:])
                or _cue("negation-after").search(text[m.end():m.end() + 8]))

