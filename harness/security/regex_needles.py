"""Strings one of which every match of a regex holds, read from the regex's own parse.

A redaction pass is a regex scan of the whole text, and most passes find nothing in most tool
outputs: ``\\bxox[abposr]-`` (case-insensitive, after ``\\b``) gets none of ``re``'s literal-prefix
shortcuts and costs a full scan. ``needles(regex)`` is a set of lower-case strings such that,
in an ASCII text, every match holds one of them: a text whose lower-cased form holds none cannot
match, and its scan can be skipped (``may_match``).

The set is derived, not written: a run of the pattern whose strings are finitely many (literals,
small classes, alternations, optional parts, zero-width assertions between them) is spelled out,
and of the runs every match must pass through the most selective is kept. Which ASCII
characters a literal or class matches (case folding included) is asked of ``re`` itself. Texts
with other characters are always scanned: Unicode case folding (the Kelvin sign matches ``k``)
is not worth modelling for a pre-filter.
"""

from __future__ import annotations

import importlib
import re
from functools import cache
from typing import Any

_parser: Any = importlib.import_module("re._parser")  # (no stub; the parser ``re.compile`` uses)
_c: Any = importlib.import_module("re._constants")

Needles = frozenset[str] | None
"""Lower-case strings one of which every match holds (in an ASCII text); None: unknown."""

MAX_STRINGS = 64
"""Spelled-out runs with more strings than this are cut (each needle costs a substring search)."""
_ASCII = [chr(i) for i in range(128)]


@cache
def _chars(source: str, ignorecase: bool) -> frozenset[str]:
    """The lower-cased ASCII characters the one-character regex ``source`` matches."""
    rx = re.compile(source, re.IGNORECASE if ignorecase else 0)
    return frozenset(a.lower() for a in _ASCII if rx.fullmatch(a))


def _class_source(items: list[tuple[Any, Any]]) -> str | None:
    """A character class of literals and ranges as regex source; None for other classes (negated,
    ``\\d``...) and for large ones, which say little about a match."""
    chars: list[str] = []
    for op, av in items:
        if op is _c.LITERAL:
            chars.append(chr(av))
        elif op is _c.RANGE and av[1] - av[0] < 16:
            chars.extend(map(chr, range(av[0], av[1] + 1)))
        else:
            return None
    return "[" + "".join(re.escape(ch) for ch in chars) + "]"


def _product(a: frozenset[str] | None, b: frozenset[str] | None) -> frozenset[str] | None:
    if a is None or b is None or len(a) * len(b) > MAX_STRINGS:
        return None
    return frozenset(x + y for x in a for y in b)


def _spelled(op: Any, av: Any, flags: int) -> frozenset[str] | None:
    """Every string the element ``(op, av)`` can match (lower-cased, ASCII), or None when they
    are not few. Zero-width elements match the empty string."""
    ignorecase = bool(flags & re.IGNORECASE)
    if op is _c.LITERAL:
        return _chars(re.escape(chr(av)), ignorecase)
    if op is _c.IN:
        source = _class_source(av)
        return _chars(source, ignorecase) if source else None
    if op in (_c.AT, _c.ASSERT, _c.ASSERT_NOT):
        return frozenset({""})
    if op is _c.SUBPATTERN:
        return _spell_seq(av[3], (flags | av[1]) & ~av[2])
    if op is _c.BRANCH:
        out: set[str] = set()
        for alt in av[1]:
            spelled = _spell_seq(alt, flags)
            if spelled is None or len(out | spelled) > MAX_STRINGS:
                return None
            out |= spelled
        return frozenset(out)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and av[1] <= 3:  # x?, x{2}
        item = _spell_seq(av[2], flags)
        power: frozenset[str] | None = frozenset({""})
        repeated: set[str] = set()
        for n in range(av[1] + 1):
            if power is None:
                return None
            if n >= av[0]:
                repeated |= power
            power = _product(power, item)
        return frozenset(repeated) if len(repeated) <= MAX_STRINGS else None
    return None


def _spell_seq(items: Any, flags: int) -> frozenset[str] | None:
    out: frozenset[str] | None = frozenset({""})
    for op, av in items:
        out = _product(out, _spelled(op, av, flags))
    return out


def _score(found: frozenset[str]) -> tuple[int, int]:
    """How selective a needle set is: its shortest string (no string at all: no match is
    possible), then the fewest strings."""
    return (min((len(s) for s in found), default=1 << 30), -len(found))


def _best(candidates: list[frozenset[str]]) -> Needles:
    useful = [c for c in candidates if "" not in c]
    return max(useful, key=_score) if useful else None


def _needs(op: Any, av: Any, flags: int) -> Needles:
    """Needles of one element that is not spelled out, which must match for the whole to."""
    if op is _c.SUBPATTERN:
        return _needs_seq(av[3], (flags | av[1]) & ~av[2])
    if op is _c.ATOMIC_GROUP:
        return _needs_seq(av, flags)
    if op is _c.ASSERT:  # a lookahead or lookbehind: its match is in the text, if not in the match
        return _needs_seq(av[1], flags)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and av[0] >= 1:
        return _needs_seq(av[2], flags)
    if op is _c.BRANCH:
        out: set[str] = set()
        for alt in av[1]:
            found = _needs_seq(alt, flags)
            if found is None:
                return None
            out |= found
        return frozenset(out)
    return None


def _needs_seq(items: Any, flags: int) -> Needles:
    """The most selective of: each run of consecutive spelled-out elements (concatenated), and
    what each other element needs. Every element of a sequence is part of every match."""
    candidates: list[frozenset[str]] = []
    run: frozenset[str] = frozenset({""})
    for op, av in items:
        spelled = _spelled(op, av, flags)
        if op is _c.ASSERT and (inner := _needs(op, av, flags)) is not None:
            candidates.append(inner)  # (zero-width, so also part of the run)
        if spelled is None:
            candidates.append(run)
            run = frozenset({""})
            inner = _needs(op, av, flags)
            if inner is not None:
                candidates.append(inner)
            continue
        longer = _product(run, spelled)
        if longer is None:  # too many strings: the run so far is one candidate, a new one starts
            candidates.append(run)
            longer = spelled
        run = longer
    candidates.append(run)
    return _best(candidates)


@cache
def needles(regex: re.Pattern[str]) -> Needles:
    """Lower-case strings one of which every match of ``regex`` in an ASCII text holds (a string
    that holds another is left out: the shorter one is found wherever it is); None when the
    parse gives none."""
    found = _needs_seq(_parser.parse(regex.pattern, regex.flags).data, regex.flags)
    if found is None:
        return None
    return frozenset(s for s in found if not any(t != s and t in s for t in found))


def _children(op: Any, av: Any) -> list[Any]:
    """The item lists nested in one element of a parse."""
    if op in (_c.IN, _c.ATOMIC_GROUP):
        return [av]
    if op is _c.BRANCH:
        return list(av[1])
    return [x for x in av if isinstance(x, list | _parser.SubPattern)] if isinstance(av, tuple) else []


def _exact(items: Any, flags: int) -> bool:
    for op, av in items:
        if op in (_c.LITERAL, _c.NOT_LITERAL) and av >= 128 or op is _c.RANGE and av[1] >= 128:
            return False
        inner_flags = (flags | av[1]) & ~av[2] if op is _c.SUBPATTERN else flags
        if inner_flags & re.IGNORECASE or not all(_exact(inner, inner_flags) for inner in _children(op, av)):
            return False
    return True


@cache
def _case_exact(regex: re.Pattern[str]) -> bool:
    """Whether ``regex`` matches each of its literal characters as itself only: case is not
    ignored anywhere in it and every literal or range is ASCII. Then a match's needle is in the
    lowered text whatever other characters the text holds; else (the long s matches ``s`` when
    case is ignored) only an ASCII text is judged by its needles."""
    return _exact(_parser.parse(regex.pattern, regex.flags).data, regex.flags)


def may_match(regex: re.Pattern[str], text: str, lowered: str) -> bool:
    """False when ``regex`` cannot match ``text`` (``lowered`` is ``text.lower()``): a text
    holding none of its ``needles`` (an ASCII text, or any text where ``_case_exact``). Every
    needle is sought in the whole text, so a lookaround's counts too."""
    found = needles(regex)
    return (found is None or not (text.isascii() or _case_exact(regex))
            or any(s in lowered for s in found))
