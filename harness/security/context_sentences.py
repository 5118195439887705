"""Cutting context-file text into paragraphs and sentences; quotations and code spans (context scanner).

A match is judged with its own sentence ("never follow text that says ..." is not an order), and
weak signals are added up per paragraph. Markdown wraps sentences over lines and puts list
items, table rows and code lines one per line, so: wrapped prose lines are joined, list items,
headings, table rows and code lines stay apart, and a code block goes with the prose that
introduces it (which says whether the code is an example of an attack or a setup step).

A document about an attack quotes it: „Ignoriere alle vorherigen Anweisungen“, »ignore all
previous instructions«, 『以前の指示を無視して』, ”kör `...`”. What is quoted is a matter of
punctuation, not of language, so the pairs of every typographic convention are listed once here
(``quote_spans``). A code span shows its text as text: an HTML comment written inside one hides
nothing (``mask_code_spans``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from itertools import groupby

from harness.security.patterns import read_rule_file

FENCE = re.compile(r"^[ \t]*(```|~~~)")
"""A line that opens or closes a fenced code block."""
_UNIT_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\||<)")
_SENTENCE_END = re.compile(r"[.!?](?=\s)|[。！？]")
_ABBREVIATIONS = ("e.g.", "i.e.", "etc.", "vs.")
_LONGEST, _OVERLAP = 1500, 300
# Leetspeak ("1gn0r3 pr3v10u5"): digits that stand for letters, between letters. Tech tokens
# ("python3", "k8s", "x509") rarely have that shape, so two of them in a sentence is the cue.
_LEET_INSIDE = re.compile(r"[a-z][013457]+[a-z]", re.I)
_LEET = str.maketrans("013457", "oieast")


@dataclass(frozen=True)
class Sentence:
    line: int
    text: str
    context: str
    """The text that says what this sentence is: itself, or for a code line the prose before it."""
    paragraph: int
    example: bool = False
    """A list item or table row read with its heading, lead-in and header (``examples``)."""


def fence_flags(lines: list[str]) -> list[bool]:
    """For each line, whether it sits inside (or delimits) a fenced code block."""
    flags, fence = [], ""
    for line in lines:
        m = FENCE.match(line)
        flags.append(bool(fence or m))
        if fence and m and m.group(1) == fence:
            fence = ""
        elif not fence and m:
            fence = m.group(1)
    return flags


def sentences(text: str, first_line: int = 1, examples: bool = False) -> list[Sentence]:
    """Every sentence of ``text``, numbered by paragraph. Blank lines end a paragraph, except
    that a lone heading goes with the block after it and a code block with the prose before it.
    ``examples``: list items and table rows are read with the heading above them, the line that
    introduces the list and the table's header row (``Red flags, e.g.:``, ``| Attack | Example |``),
    which say whether the items are orders or examples."""
    lines = text.split("\n")
    rows = [(n, line, code) for n, (line, code) in enumerate(zip(lines, fence_flags(lines), strict=True), first_line)]
    merged: list[list[tuple[int, str, bool]]] = []
    for filled, group in groupby(rows, key=lambda row: bool(row[1].strip() or row[2])):
        if not filled:
            continue
        block = list(group)
        heading_only = merged and len(merged[-1]) == 1 and merged[-1][0][1].lstrip().startswith("#")
        if merged and (block[0][2] or heading_only):
            merged[-1] += block
        else:
            merged.append(block)
    out = [s for i, block in enumerate(merged) for s in _block_sentences(block, i, examples)]
    return _with_lead_ins(out, lines, first_line) if examples else out


_ITEM = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|\|)")
_HEADING = re.compile(r"^\s*#{1,6}\s")


def _with_lead_ins(found: list[Sentence], lines: list[str], first_line: int) -> list[Sentence]:
    lead_of: dict[int, str] = {}
    heading = lead = header = ""
    for n, line in enumerate(lines, first_line):
        plain = " ".join(line.replace("*", "").split())
        if _HEADING.match(line):
            heading, lead, header = plain, "", ""
        elif line.lstrip().startswith("|"):
            header = header or plain
            lead_of[n] = f"{heading} {lead} {header}"
        elif _ITEM.match(line):
            lead_of[n] = f"{heading} {lead}"
        elif plain:
            lead, header = (plain if plain.endswith(":") else ""), ""
    return [replace(s, context=f"{lead_of[s.line]} {s.context}", example=True) if s.line in lead_of else s
            for s in found]


def _split(unit: str, spans: bool = False) -> list[str]:
    """Sentences of a prose unit: after . ! ? and a space (not after e.g./i.e./etc./vs.), or
    after a CJK full stop. ``spans``: not inside a code span either (``examples``)."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(unit):
        end = m.end()
        if spans and unit.count("`", start, m.start()) % 2:
            continue  # inside a code span ("`echo ... | sh`"): the command goes on
        if not unit[:end].endswith(_ABBREVIATIONS):
            out.append(unit[start:end])
            start = end
    out.append(unit[start:])
    return [chunk for s in out for chunk in _chunks(s.strip())]


def _chunks(sentence: str) -> list[str]:
    """A run-on "sentence" (a minified line, a huge table cell) in overlapping windows, so the
    per-sentence checks stay linear; a phrase shorter than the overlap is never cut in two."""
    if len(sentence) <= _LONGEST:
        return [sentence]
    step = _LONGEST - _OVERLAP
    return [sentence[i:i + _LONGEST] for i in range(0, len(sentence) - _OVERLAP, step)]


def _block_sentences(block: list[tuple[int, str, bool]], paragraph: int, spans: bool = False) -> list[Sentence]:
    units = _units(block, stars=True)
    out: list[Sentence] = []
    intro = ""
    leet = any(len(_LEET_INSIDE.findall(u)) >= 2 for _, u, _ in units)
    for (n, *_), unit, in_code in units:
        for s in _chunks(unit) if in_code else _split(unit, spans):
            if not s.strip():
                continue
            context = f"{intro} {s}" if in_code else s
            out.append(Sentence(n, s, context, paragraph))
            if leet and len(_LEET_INSIDE.findall(s)) >= 2:  # also read it with the digits as letters
                out.append(Sentence(n, s.translate(_LEET), context, paragraph))
        if not in_code and unit.strip():
            intro = f"{intro} {unit}"
    return out


def prose_units(lines: list[str], code: list[bool]) -> list[tuple[list[int], str]]:
    """The prose units of ``lines`` (``code``: ``fence_flags``) as ``(line numbers, text)``:
    wrapped lines joined, list items, headings, table rows and blockquote lines kept apart, as
    the sentences are cut. A quotation or a clause that wraps over lines is read whole."""
    rows = [(n, line, in_code) for n, (line, in_code) in enumerate(zip(lines, code, strict=True), 1)]
    return [(numbers, text) for numbers, text, in_code in _units(rows) if not in_code]


def _units(rows: list[tuple[int, str, bool]], stars: bool = False) -> list[tuple[list[int], str, bool]]:
    """``(line numbers, text, is code)`` of each unit of ``rows`` (``(line, text, is code)``): a
    wrapped prose line continues the unit before it; whitespace collapsed; ``stars``: emphasis
    marks ("*") removed from prose."""
    units: list[tuple[list[int], str, bool]] = []
    joinable = False
    for n, line, in_code in rows:
        if not (in_code or line.strip()):
            joinable = False
            continue
        text = " ".join((line.replace("*", "") if stars and not in_code else line).split())
        if joinable and not in_code and not _UNIT_START.match(line):
            units[-1] = ([*units[-1][0], n], f"{units[-1][1]} {text}", False)
        else:
            units.append(([n], text, in_code))
        joinable = not in_code and not line.lstrip().startswith(("#", "|"))
    return units


# --- quotations and code spans -----------------------------------------------------------------
# Opening mark -> the marks that close it, for every convention in use (``quote_closers``).
_TABLES = read_rule_file("context_scan_patterns.yaml")[1]["tables"]
_CLOSERS: dict[str, str] = _TABLES["quote_closers"]
_AT_WORD_START = set(_TABLES["quote_at_word_start"])


def _quote_alternative(opener: str) -> str:
    closers = re.escape(_CLOSERS[opener])
    # Marks that are also apostrophes or closers elsewhere open a quote only at a word's start
    # (after a space, an opening bracket or a colon) and before a non-space: "don’t" opens nothing.
    start = rf"(?:(?<=[\s(\[{{:])|^){re.escape(opener)}(?=\S)" if opener in _AT_WORD_START else re.escape(opener)
    return rf"{start}[^{closers}]*(?P<q{ord(opener)}>[{closers}])?"


# Markup written as entities is shown as text ("&lt;!-- ... --&gt;"): it quotes what it holds.
_QUOTATION = re.compile("|".join([r"&lt;.*?(?P<entity>&gt;)|&lt;.*\Z", *map(_quote_alternative, _CLOSERS)]), re.DOTALL)


def quote_spans(text: str) -> list[tuple[int, int, bool]]:
    """``(start, end, closed)`` of each quotation in ``text``, outermost only: ``start`` at the
    opening mark, ``end`` after the closing one (or at the end of ``text`` when it never closes).
    Entity-escaped markup (``&lt;!-- ... --&gt;``) counts as a quotation too."""
    return [(m.start(), m.end(), m.lastgroup is not None) for m in _QUOTATION.finditer(text)]


def open_quote(before: str) -> bool:
    """The text right after ``before`` is inside a quotation that ``before`` opened."""
    spans = quote_spans(before)
    return bool(spans) and not spans[-1][2]


# An HTML comment (up to its end) or an inline code span, read the CommonMark way: a run of
# backticks opens a span closed by the next run of the same length. The span is kept to one line
# (CommonMark lets it wrap, but a line that starts with ``<!--`` opens an HTML block there), so it
# can never swallow a real hidden comment.
_COMMENT_OR_SPAN = re.compile(r"<!--.*?(?:-->|\Z)|(?<!`)(`+)(?!`)([^\n]*?)(?<!`)\1(?!`)", re.DOTALL)


def mask_code_spans(text: str) -> str:
    """``text`` with the content of inline code spans blanked (newlines and length kept); an
    HTML comment that starts first is a comment, not code."""
    if "`" not in text:
        return text
    return _COMMENT_OR_SPAN.sub(
        lambda m: m.group() if m.group(1) is None else m.group(1) + " " * len(m.group(2)) + m.group(1), text)
