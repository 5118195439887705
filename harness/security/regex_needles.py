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
from collections.abc import Iterator
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


_SINGLE_SPACES = 1 << 20
"""A flag of the proof only (no ``re`` flag uses the bit): the text's whitespace runs are single
spaces."""
_SPACES = frozenset(map(ord, " \t\n\r\f\v"))


def _whitespace_only(items: Any) -> bool:
    """``items`` is one character class of whitespace only (``\\s``, ``[ \\t]``)."""
    return len(items) == 1 and items[0][0] is _c.IN and all(
        op is _c.CATEGORY and av is _c.CATEGORY_SPACE or op is _c.LITERAL and av in _SPACES for op, av in items[0][1])


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
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and flags & _SINGLE_SPACES \
            and _whitespace_only(av[2]):  # a text with single spaces: `\\s+` is one space
        return frozenset({" "} | ({""} if av[0] == 0 else set()))
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


def _copies(av: Any, flags: int) -> frozenset[str] | None:
    """The first copies of a repeat that every match holds side by side, spelled out (``[ \\t]{2,}``:
    two of them), as many as ``MAX_STRINGS`` allows; None when its item is not spelled out."""
    item = _spell_seq(av[2], flags)
    copies = item
    for _ in range(min(av[0], 8) - 1):
        longer = _product(copies, item)
        if longer is None:
            break
        copies = longer
    return copies


def _nested(op: Any, av: Any, flags: int) -> list[tuple[Any, int]]:
    """The sequences inside an element that is not spelled out, each with its flags, where every
    match of the element passes through one of them (all of them but a branch's)."""
    if op is _c.SUBPATTERN:
        return [(av[3], (flags | av[1]) & ~av[2])]
    if op is _c.ATOMIC_GROUP:
        return [(av, flags)]
    if op is _c.ASSERT:  # a lookahead or lookbehind: its match is in the text, if not in the match
        return [(av[1], flags)]
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and av[0] >= 1:
        return [(av[2], flags)]
    if op is _c.BRANCH:
        return [(alt, flags) for alt in av[1]]
    return []


def _needs(op: Any, av: Any, flags: int) -> Needles:
    """Needles of one element that is not spelled out, which must match for the whole to."""
    nested = _nested(op, av, flags)
    if op is _c.BRANCH:
        out: set[str] = set()
        for alt, alt_flags in nested:
            found = _needs_seq(alt, alt_flags)
            if found is None:
                return None
            out |= found
        return frozenset(out)
    if not nested:
        return None
    inner = _needs_seq(*nested[0])
    copies = _copies(av, flags) if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) else None
    return _best([c for c in (inner, copies) if c is not None])


def _parts(items: Any, flags: int) -> Iterator[tuple[frozenset[str] | None, Any, Any]]:
    """What every match of the sequence ``items`` passes through: each run of consecutive
    spelled-out elements, concatenated, as ``(strings, None, None)``; each other element, and
    each lookaround, as ``(None, op, av)``."""
    run: frozenset[str] = frozenset({""})
    for op, av in items:
        spelled = _spelled(op, av, flags)
        if op is _c.ASSERT:
            yield None, op, av  # (zero-width, so also part of the run)
        if spelled is None:
            yield run, None, None
            run = frozenset({""})
            yield None, op, av
            continue
        longer = _product(run, spelled)
        if longer is None:  # too many strings: the run so far is one part, a new one starts
            yield run, None, None
            longer = spelled
        run = longer
    yield run, None, None


def _needs_seq(items: Any, flags: int) -> Needles:
    """The most selective of what each part of the sequence needs (``_parts``): every element of
    a sequence is part of every match."""
    found = (run if run is not None else _needs(op, av, flags) for run, op, av in _parts(items, flags))
    return _best([c for c in found if c is not None])


def _covers(strings: frozenset[str], triggers: tuple[str, ...]) -> bool:
    return "" not in strings and all(any(t in s for t in triggers) for s in strings)


def _proves_seq(items: Any, flags: int, triggers: tuple[str, ...]) -> bool:
    return any(_covers(run, triggers) if run is not None else _proves(op, av, flags, triggers)
               for run, op, av in _parts(items, flags))


def _proves(op: Any, av: Any, flags: int, triggers: tuple[str, ...]) -> bool:
    nested = _nested(op, av, flags)
    if op is _c.BRANCH:
        return all(_proves_seq(alt, alt_flags, triggers) for alt, alt_flags in nested)
    if op in (_c.MAX_REPEAT, _c.MIN_REPEAT, _c.POSSESSIVE_REPEAT) and av[0] >= 1:
        copies = _copies(av, flags)
        if copies is not None and _covers(copies, triggers):
            return True
    return any(_proves_seq(seq, seq_flags, triggers) for seq, seq_flags in nested)


def proves(regex: re.Pattern[str], triggers: tuple[str, ...], single_spaces: bool = False) -> bool:
    """Whether the parse of ``regex`` shows that every match in an ASCII text holds one of the
    lower-case ``triggers`` (a hand-written pre-filter, as in the rule files' ``triggers:``);
    with ``single_spaces``, in a text whose whitespace runs are single spaces (where the
    triggers are sought in the text with its whitespace collapsed). False means not shown: the
    proof reads runs of spelled-out elements, alternatives and repeats, not everything a regex
    can say; and an alternative that no ASCII text can match proves nothing about other texts."""
    flags = regex.flags | (_SINGLE_SPACES if single_spaces else 0)
    return _proves_seq(_parser.parse(regex.pattern, regex.flags).data, flags, triggers)


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
