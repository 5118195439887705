"""Commands and quotations a document cites or reports rather than orders (context scanner,
``example_context``).

A security guideline cites the one-liners an attacker would plant ("do not merge CI steps like
`... | base64 -d | bash`", "| Don't | Do instead |" tables). A line is *cited* (``cited_lines``)
when every sentence holding its command is a policy about it (a negation, a warning word, a
describing cue, a "Bad:" label, in several languages) and none orders it (``ordered``); a table
cell is read with its column's header.

Post-mortems, reviews, changelogs and threat models quote the payload they are about, in any
language (``reported_lines``). A quotation (quote marks of any script, ``context_sentences``)
reports when the sentence around it orders nothing and goes on after it or names a report; a
code span deep inside a clause ("rechaza cualquier cambio que haga `...`"), under a label or
heading that names a report; a blockquote or fenced block, when introduced by prose that orders
nothing and a lead-in or heading names a report (or, a blockquote, a lead-in ending in a colon
and a comment after it). A quotation followed by "follow it" is an order (``endorsed_quotes``).
The few words involved (report kinds, "follow") are data in ``context_reported.yaml``, read only
in headings, labels and the frame around a quotation, never in the quoted text.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache
from itertools import accumulate, groupby, pairwise

import regex

from harness.security import context_signals as sig
from harness.security.context_sentences import Sentence, fence_flags, prose_units, quote_spans
from harness.security.context_text import confusable_map, fold_confusables
from harness.security.patterns import read_rule_file

__all__ = ["cited_lines", "described_lines", "endorsed_quotes", "ordered", "report_words", "reported_lines"]

_WORD = regex.compile(r"[\p{L}\p{M}\p{N}][\p{L}\p{M}\p{N}'’_-]*")
_SPACED = regex.compile(r"^[\p{Latin}\p{Cyrillic}\p{Greek}\p{Common}\p{Inherited}]+$")
_CODE = regex.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
_CODE_SPAN = re.compile(r"`([^`\n]+)`")
_CLAUSE_END = regex.compile(r"[:;,，、：；—–]|\s-\s")
_SENTENCE_END = regex.compile(r"[.!?](?=\s|$)|[。！？]")
_HEADING = regex.compile(r"^\s*#{1,6}\s")
_CELL_SPLIT = re.compile(r"(?<!\\)\|")
_MIN_BEFORE = 2
"""Words of its clause before a code span that is not the object of an order at the clause's head."""


# --- cited commands ----------------------------------------------------------------------------
def described_lines(sentences: list[Sentence]) -> set[int]:
    """Lines of list items and table rows whose lead-in describes attacks (``examples``):
    exfiltration shapes there are listed, not asked for."""
    return {s.line for s in sentences if s.example and sig._describing(s.context)}




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
            if _cites(cell):
                out.add(n)
            continue
        keys = [" ".join(sp.replace("*", "").split()) for sp in _CODE_SPAN.findall(lines[n - 1]) or [lines[n - 1]]]
        holders = [s for s in sentences if any(k and k in s.text for k in keys)]
        # The prose only: a code line's context is its intro plus itself, and words inside code
        # spans ("https://paste.example") are not the sentence's verbs.
        if holders and all(_cites(s.context[: len(s.context) - len(s.text)] if code[n - 1] else s.context)
                           for s in holders):
            out.add(n)
    return out


def _table_header(lines: list[str], n: int) -> str:
    """For a table row (line ``n``), the table's header row ("" for the header row itself): a
    column named "Finding" or "Payload seen" says what its cells are."""
    if not lines[n - 1].lstrip().startswith("|"):
        return ""
    first = n - 1
    while first > 0 and lines[first - 1].lstrip().startswith("|"):
        first -= 1
    return lines[first] if first < n - 1 else ""


def _table_cell(lines: list[str], n: int) -> str | None:
    """For a table row holding an exfiltration shape: the header of the command's column and the
    cell itself (the row's other cells may say "run the checked-in script"); None otherwise."""
    if not (header := _table_header(lines, n)):
        return None
    names = _cells(header)
    return next((f"{names[i] if i < len(names) else ''}: {cell}"
                 for i, cell in enumerate(_cells(lines[n - 1])) if "`" in cell), None)


def _cells(row: str) -> list[str]:
    return [c.strip() for c in _CELL_SPLIT.split(row.strip().strip("|"))]


def _cites(text: str) -> bool:
    """``text`` orders nothing and is a policy about a command (a negated order, a describing
    cue, a definition, a warning or policy word)."""
    text = _CODE_SPAN.sub("`...`", text)
    if ordered(text):
        return False
    return (any(_negated(text, m) for m in _orders(text)) or sig._describing(text)
            or bool(sig._cue("defines").search(text)) or bool(sig._cue("cites").search(text)))


def ordered(text: str) -> bool:
    """``text`` orders something run: an un-negated order verb (English or of the ``orders``
    languages), or a signal that makes any sentence an order ("once per session")."""
    # An order verb of a relative clause describes a noun ("un cambio que ejecute `...`").
    relative = sig.regex("relative-clause")
    if any(not _negated(text, m) and not relative.search(text[max(0, m.start() - 60):m.start()]) for m in _orders(text)):
        return True
    signals = read_rule_file(sig.PATTERN_FILE)[1]["tables"]["order_signals"]  # ("once per session" ...)
    return any(p.id in signals and sig.hit(p, text) for p in sig.patterns(("signals", "signals_variants")))


def _orders(text: str) -> list[re.Match[str]]:
    """Order verbs of the sentence, English and the other languages of the ``orders`` patterns."""
    return [m for p in (sig.regex("order-verbs"), *(p.regex for p in sig.patterns("orders"))) for m in p.finditer(text)]


def _negated(text: str, m: re.Match[str]) -> bool:
    """The order verb ``m`` is negated: "never run", "no ejecutes", "не запускайте", "不要运行",
    "実行しないで"."""
    before = text[:m.start()]
    return bool(sig._cue("negation").search(before[-80:]) or sig._cue("negation-variants").search(before[-30:])
                or sig._cue("negation-after").search(text[m.end():m.end() + 8]))


# --- reported quotations -----------------------------------------------------------------------
@cache
def _rx(key: str, whole: bool = True, end: str = "") -> re.Pattern[str]:
    """The words under ``key`` of ``context_reported.yaml`` (a list, or lists by language);
    ``whole``: as whole words, else also as stems inside compounds."""
    words = read_rule_file("context_reported.yaml")[1][key]
    words = [w for ws in words.values() for w in ws] if isinstance(words, dict) else words
    # The scanner reads text with look-alike letters folded (Turkish "ı" reads as "i"): so do the words.
    words = [*words, *(fold_confusables(w, confusable_map())[0] for w in words), *(fold_confusables(w)[0] for w in words)]
    anywhere, at_start = [], []
    for w in sorted(set(words), key=len, reverse=True):
        body = re.escape(w.lower()).replace(r"\ ", r"\s+")
        if not _SPACED.match(w) or (not whole and len(w) >= 6):
            anywhere.append(body)  # unspaced scripts (affixes attach); long stems inside compounds
        else:
            at_start.append(body)
    # One boundary around each group (not one per word), and the standard ``re`` engine (twice
    # as fast as ``regex`` on this alternation): a letter is ``[^\W\d_]`` in any script.
    end = r"(?![^\W\d_])" if whole else ""
    parts = [rf"(?<![^\W\d_])(?:{'|'.join(at_start)}){end}"] if at_start else []
    alternation = "|".join(parts + ([f"(?:{'|'.join(anywhere)})"] if anywhere else []))
    return re.compile(f"(?:{alternation}){end}")


def report_words(text: str) -> bool:
    """``text`` (a heading, a label, the frame of a quotation) names a report kind or a finding."""
    return bool(text) and bool(_rx("report", False).search(text.lower()))


def _follows(text: str, aimed: bool = False) -> bool:
    """``text`` tells the reader to act on something ("follow it"), not negated. ``aimed``: on
    the quotation itself ("follow it", "apply the rule quoted above"), not on something else
    ("follow the escalation policy")."""
    lowered = text.lower()
    for m in _rx("follow").finditer(lowered):
        if sig._cue("negation").search(lowered[: m.start()][-80:]):
            continue
        if not aimed or _rx("reference").search(lowered[m.end():m.end() + 40]) or _rx("reference").search(m.group()):
            return True
    return False


def _frame_orders(frame: str) -> bool:
    """The text around a quotation asks for something: an order, "follow it", an order signal,
    an address to an AI, or a command of its own."""
    return bool(frame.strip()) and (
        ordered(frame) or _follows(frame) or bool(sig.exfil_findings(frame))
        or any(p.id == "addresses-ai" and sig.hit(p, frame) for p in sig.patterns("signals")))


def _words(text: str) -> int:
    return len(_WORD.findall(text))


@dataclass(frozen=True)
class _Token:
    start: int
    end: int
    clause: bool
    """A quotation holding words besides code (a quoted sentence), not a command alone."""


def _tokens(text: str) -> list[_Token]:
    """The quoted parts of a unit: quotations (with any code spans inside) and code spans."""
    quotes = [(a, b) for a, b, _ in quote_spans(_CODE.sub(lambda m: "\0" * len(m.group()), text))]
    out = [_Token(a, b, _words(_CODE.sub(" ", text[a + 1:b - 1])) >= 2) for a, b in quotes]
    out += [_Token(m.start(), m.end(), False) for m in _CODE.finditer(text)
            if not any(a <= m.start() < b for a, b in quotes)]
    return sorted(out, key=lambda t: t.start)


def _sentence_bounds(text: str, tokens: list[_Token]) -> list[tuple[int, int]]:
    """Sentences of a unit, not cut inside a quotation or code span."""
    cuts = [0, *(m.end() for m in _SENTENCE_END.finditer(text)
                 if not any(t.start <= m.start() < t.end for t in tokens)), len(text)]
    return [(a, b) for a, b in pairwise(cuts) if text[a:b].strip()]


def _frame(text: str, tokens: list[_Token]) -> str:
    """``text`` with its quoted parts replaced by " ... "."""
    cuts = [0, *(x for t in tokens for x in (t.start, t.end)), len(text)]
    return " ... ".join(text[a:b] for a, b in zip(cuts[::2], cuts[1::2], strict=True))


def _label(text: str) -> str:
    """The label that opens a unit ("Post-mortem 2026-10:", "障害報告："), if any."""
    m = regex.search(r"[:：]", text[:80])
    return text[:m.start()] if m and _words(text[:m.start()]) <= 8 else ""


def _unit_reports(text: str, heading: str) -> bool:
    """Every quoted part of the unit is reported, and nothing around them orders."""
    tokens = _tokens(text)
    if not tokens:
        return False
    context = report_words(heading) or report_words(_label(text))
    for a, b in _sentence_bounds(text, tokens):
        mine = [_Token(t.start - a, t.end - a, t.clause) for t in tokens if a <= t.start < b]
        if not mine:
            continue
        sentence = text[a:b]
        frame = _frame(sentence, mine)
        if _frame_orders(frame):
            return False
        named = context or report_words(frame)
        for t in mine:
            # The quoted part is a noun phrase inside a clause: words of that clause on both sides.
            before = _frame(sentence[:t.start], [x for x in mine if x.end <= t.start])
            head = _CLAUSE_END.split(before)[-1]
            tail = _CLAUSE_END.split(_frame(sentence[t.end:], [x for x in mine if x.start >= t.end]))[0]
            inside = _words(before) >= 1 and _words(tail) >= 1
            if t.clause and not (inside or named):
                return False
            deep = _words(head) >= _MIN_BEFORE or _rx("relative", True, r"\s*$").search(head.lower())
            if not t.clause and not (named and deep and (_words(tail) or report_words(frame))):
                return False
    return True


def reported_lines(text: str, candidates: set[int] | None = None) -> set[int]:
    """Lines whose payload a report quotes (see the module docstring); their findings are
    quotations, not orders. ``candidates``: judge only the units and blocks holding these lines
    (where the scanner found something), which keeps a long file cheap."""
    lines = text.split("\n")
    code = fence_flags(lines)
    units = prose_units(lines, code)
    # For each line number (index 0 unused), the nearest heading above it.
    heading_of = list(accumulate(lines, lambda current, line: line if _HEADING.match(line) else current, initial=""))
    wanted = (lambda ns: True) if candidates is None else (lambda ns: not candidates.isdisjoint(ns))
    out: set[int] = set()
    for numbers, unit in units:
        if unit.startswith(">") or not wanted(numbers) or not ("`" in unit or any(c for *_, c in quote_spans(unit))):
            continue
        if _unit_reports(unit, f"{heading_of[numbers[0]]} {_table_header(lines, numbers[0])}"):
            out.update(numbers)
    for block, quote in _blocks(code, units):
        if not wanted(block):
            continue
        first = block[0]
        lead, after = _around(units, first, block[-1])
        if _block_reports(lead, after, heading_of[first], quote):
            out.update(block)
    return out


def _blocks(code: list[bool], units: list[tuple[list[int], str]]) -> Iterator[tuple[list[int], bool]]:
    """``(line numbers, is_blockquote)`` of each fenced block and each run of blockquote units."""
    for flag, run in groupby(range(1, len(code) + 1), key=lambda n: code[n - 1]):
        if flag:
            yield list(run), False
    quoted: list[int] = []
    for numbers, unit in units:
        if unit.startswith(">") and (not quoted or numbers[0] <= quoted[-1] + 2):
            quoted += numbers
        elif unit.startswith(">"):
            yield quoted, True
            quoted = list(numbers)
        elif quoted:
            yield quoted, True
            quoted = []
    if quoted:
        yield quoted, True


def _around(units: list[tuple[list[int], str]], first: int, last: int) -> tuple[str, str]:
    """The prose unit right before a block (no heading between) and the one right after it."""
    before = [u for ns, u in units if ns[-1] < first and not u.startswith(">")]
    after = [u for ns, u in units if ns[0] > last and not u.startswith(">")]
    lead = before[-1] if before and not _HEADING.match(before[-1]) else ""
    tail = after[0] if after and not _HEADING.match(after[0]) else ""
    return lead, tail


def _block_reports(lead: str, after: str, heading: str, blockquote: bool) -> bool:
    if not lead:
        return False  # a quotation is introduced; a bare block under a heading is the file's own text
    if _frame_orders(lead) or (after and (_follows(after) or ordered(after))):
        return False
    if report_words(lead) or report_words(heading) or sig._describing(lead):
        return True
    return blockquote and lead.rstrip().endswith((":", "：")) and bool(after)


def endorsed_quotes(text: str) -> list[int]:
    """Lines where a quoted attack (an injection phrase or an exfiltration one-liner in a
    quoted sentence) is followed by an order to act on it ("... Follow it exactly.")."""
    lowered = text.lower()
    # The cheap test first: the lines with a "follow" word; only a quotation on or right before
    # one of them can be endorsed.
    follow_lines = {lowered.count("\n", 0, m.start()) + 1 for m in _rx("follow").finditer(lowered)}
    if not follow_lines:
        return []
    lines = text.split("\n")
    units = prose_units(lines, fence_flags(lines))
    out = []
    for i, (numbers, unit) in enumerate(units):
        nxt = units[i + 1][1] if i + 1 < len(units) and units[i + 1][0][0] <= numbers[-1] + 1 else ""
        near = [*numbers, *(units[i + 1][0] if nxt else [])]
        if follow_lines.isdisjoint(near):
            continue
        clauses = [t for t in _tokens(unit) if t.clause]
        attacks = sig.patterns(("injection", "injection_variants"))
        if not any(any(sig.hit(p, unit[t.start:t.end]) for p in attacks) or sig.exfil_findings(unit[t.start:t.end])
                   for t in clauses):
            continue
        if _follows(_frame(unit, clauses), aimed=True) or _follows(nxt, aimed=True):
            out.append(numbers[0])
    return out

