"""Finding opaque identifiers in the messages a compaction replaces, one message at a time.

The scan is defined on the messages joined with ``"\\n"`` (``identifiers.verify_summary``): each
kind of ``harness/rules/identifiers.yaml`` in turn, each match blanked so later kinds do not take
it apart. Scanning that joined text again at every compaction costs ~1-2 µs a character, though
only the previous summary recurs. So each message is scanned alone (and remembered), and the
results are merged into exactly what the joined scan gives:

- no identifier pattern matches or looks at a newline (every class excludes it; no ``^``/``$``),
  so a match never spans two messages and a message's matches do not depend on its neighbours;
- the scan's state across messages is which tokens were already found (a token found under an
  earlier kind is blanked by later kinds without being judged again): the merge takes each
  token's first kind, first message; its last offset is that of its last match in scan order
  (kind, then position), counting an invalid match that the joined scan would have taken as a
  repeat; where such a match was left in place for later kinds (a pass-through kind), the texts
  the later kinds see differ, and the joined text is scanned instead;
- cut points (``_CUT``) are found in the joined text and handed to each message.
"""

from __future__ import annotations

import ipaddress
import re
from bisect import bisect_left, bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise

from harness.security.patterns import load_patterns
from harness.security.regex_needles import may_match
from harness.textcut import MIDDLE_MARKER

PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (p.id, p.regex) for p in load_patterns("identifiers.yaml", "identifiers", "id", flags=0)
]
"""``(kind, pattern)``, most opaque kinds first (``harness/rules/identifiers.yaml``)."""
_PASS_THROUGH = frozenset({"ipv6", "base64", "token", "handle"})
"""Kinds whose invalid matches are left for the later kinds (a time ``12:30:45`` is not an
address; a hex SHA matched by the base64 pattern is still a SHA; ``job-4417.lock`` is a file
name)."""
_ISO_TIME = re.compile(r"^\d{4}-?\d{2}-?\d{2}[T_ ]?\d{2}(?::?\d{2})")
_ALNUM_RUN = re.compile(r"[A-Za-z]+|\d+")
_TRAILING = ".,;:!?"
_CUT = re.compile(
    re.escape(MIDDLE_MARKER) + r"|\n\[[\d,]+ characters omitted|\n\[\.\.\.\]"
    r"|(?<=[\w/=+-])(?:\.\.\.|…)(?=[\s\])}\"']|$)|(?:(?<=[\s(\[{\"'])|^)(?:\.\.\.|…)(?=[\w/])"
)
"""Where a text was cut (head+tail markers, an omission note, an ellipsis glued to a token): an
identifier that touches one was cut mid-way and is a fragment, not something to restore."""
_CUT_STARTS = (MIDDLE_MARKER[:2], "\n[", "...", "…")
"""What every ``_CUT`` match starts with: only these places are tried (``str.find`` runs far
faster than the regex engine trying each position)."""


@lru_cache(maxsize=65_536)
def valid(kind: str, token: str) -> bool:
    """Whether ``token``, matched by ``kind``'s pattern, is one (pure: a word seen 500 times, in
    this compaction or an earlier one, is judged once)."""
    if kind == "ipv6":
        return _ipv6(token)
    if kind == "base64":  # mixed case and digits: not a word, a path or a hex SHA
        return all(re.search(rx, token) for rx in (r"[a-z]", r"[A-Z]", r"\d"))
    if kind == "sha":  # a hash has both digits and letters; "1234567" is a number, "defaced" a word
        return bool(re.search(r"\d", token) and re.search(r"[a-fA-F]", token))
    if kind == "ip":
        return all(int(p) <= 255 for p in re.split(r"[:/]", token)[0].split("."))
    if kind == "relpath":  # "and/or" is not a path: want a file extension or two slashes
        return token.count("/") >= 2 or bool(re.search(r"\.[A-Za-z]\w{0,7}$", token))
    if kind == "path":
        return len(token) > 2
    if kind == "token":
        return _opaque(token)
    if kind == "handle":
        return _handle(token)
    return True


def _handle(token: str) -> bool:
    """A name joined to numbers by `:`, `@` or `#`: it needs a digit, and one of those joints
    (slashes alone make a path). A single ``name:number`` needs a dotted or dashed name or a
    3-digit number, so ``redis:7`` or ``step:2`` stay words; a colon before a version
    (``python:3.11-slim``) is an image pin, not a position."""
    joints = re.findall(r"[:@#]", token)
    if not joints or not re.search(r"\d", token):
        return False
    if joints == [":"]:
        name, _, tail = token.rpartition(":")
        return tail.isdigit() and (bool(re.search(r"[.\-_]", name)) or len(tail) >= 3)
    return True


def _opaque(token: str) -> bool:
    """A token that cannot be rebuilt from words: 8+ characters whose letters and digits
    alternate at least three times (``web-7f9c8d6b5-x2k4p``, ``00:1a:2b:3c:4d:5e``,
    ``01J9Z8X7W6V5T4S3R2Q1P0NMKH``, ``1.4.2-rc.1+build.7``). A word with a version
    (``python3.11``, ``x86_64-linux-gnu``: fewer alternations), a date or a clock time is not."""
    core = token.rstrip("=")
    if len(core) < 8 or _ISO_TIME.match(core):
        return False
    runs = _ALNUM_RUN.findall(core)
    alternations = sum(a[0].isdigit() != b[0].isdigit() for a, b in pairwise(runs))
    if alternations >= 3 or alternations and re.search(r"\d{8}", core):
        return True  # (the second: a prefix and a long number, S-1-5-21-..., INV-2024000123)
    # Mixed case changing often (cus_NffrFeUfNV2Hib): generated, where a CamelCase name
    # (Python3Lexer, getV2Endpoint) changes case a few times only.
    return len(core) >= 10 and bool(re.search(r"\d", core)) and \
        len(re.findall(r"[A-Z]+|[a-z]+|\d+", core)) >= 8


def _ipv6(token: str) -> bool:
    """An IPv6 address (full, compressed, IPv4-mapped, with a zone), not ``12:30:45`` or
    ``a::b``: it must parse and carry at least four hex digits."""
    address = token.split("/")[0].split("%")[0]
    try:
        ipaddress.IPv6Address(address)
    except ValueError:
        return False
    return len(re.findall(r"[0-9A-Fa-f]", address)) >= 4


def cut_points(text: str) -> tuple[list[int], list[int]]:
    """``(ends, starts)``, sorted: offsets where a cut begins (a token ending there was cut) and
    where one ends (a token starting there was cut). The same as ``_CUT.finditer``: no match
    starts anywhere but at a ``_CUT_STARTS``, and ``match`` at an offset sees the text before it
    (lookbehind) and the text's real start (``^``)."""
    tries = set()
    for s in _CUT_STARTS:
        i = text.find(s)
        while i >= 0:
            tries.add(i)
            i = text.find(s, i + 1)
    ends, starts = [], []
    after = 0
    for i in sorted(tries):
        if i < after:
            continue  # inside the previous match, as finditer goes on after it
        m = _CUT.match(text, i)
        if m:
            ends.append(m.start())
            starts.append(m.end())
            after = m.end()
    return ends, sorted(starts)


@dataclass(frozen=True)
class _Scan:
    """One text's scan. Offsets are the text's own; nothing here is changed once made (cached)."""

    found: tuple[tuple[int, str], ...]
    """``(pattern index, token)`` of each token found, in scan order (pattern, first match)."""
    last: dict[str, tuple[int, int]]
    """Token: ``(pattern index, offset)`` of its last match in scan order."""
    rejected: dict[str, tuple[int, int]]
    """Token: the last invalid match that was blanked (a repeat, had the token been found before)."""
    passed: dict[str, int]
    """Token: the last pattern whose invalid match of it was left for the later ones."""


def _scan(text: str, ends: frozenset[int], starts: frozenset[int]) -> _Scan:
    last: dict[str, tuple[int, int]] = {}
    found: list[tuple[int, str]] = []
    rejected: dict[str, tuple[int, int]] = {}
    passed: dict[str, int] = {}
    cut = bool(ends or starts)
    lowered = text.lower()
    for i, (kind, pattern) in enumerate(PATTERNS):
        if not may_match(pattern, text, lowered):
            continue  # the message holds none of the strings every match needs
        labelled = "tok" in pattern.groupindex
        # Sentence punctuation after it is not part of it; an IPv6 network ends in `::`.
        trailing = ".,;!?" if kind == "ipv6" else _TRAILING
        passes = kind in _PASS_THROUGH

        def blank(m: re.Match[str], i: int = i, kind: str = kind, labelled: bool = labelled,
                  trailing: str = trailing, passes: bool = passes) -> str:
            whole = m.group(0)
            if labelled:  # (a label before it is not part of it)
                at = m.start("tok")
                token = whole[at - m.start():].rstrip(trailing)
            else:
                at, token = m.start(), whole.rstrip(trailing)
            if cut and (at in starts or at + len(token) in ends):
                return " " * len(whole)  # cut mid-way by truncation: a fragment
            if token not in last:
                if not valid(kind, token):
                    if passes:
                        passed[token] = i
                        return whole
                    rejected[token] = (i, at)
                    return " " * len(whole)
                found.append((i, token))
            last[token] = (i, at)
            return " " * len(whole)

        text = pattern.sub(blank, text)
    return _Scan(tuple(found), last, rejected, passed)


_CACHED_CHARS = 100_000
"""Texts up to this size are remembered (the previous summary is scanned again at the next
compaction); an oversize tool output is not, so the cache holds at most ~25 MB of keys."""
_scan_cached = lru_cache(maxsize=256)(_scan)


def _scan_piece(text: str, offset: int, ends: list[int], starts: list[int]) -> _Scan:
    """The scan of the piece of a joined text at ``offset``, with the cut points that fall on it."""
    def local(points: list[int]) -> frozenset[int]:
        lo, hi = bisect_left(points, offset), bisect_right(points, offset + len(text))
        return frozenset(p - offset for p in points[lo:hi])

    key = (text, local(ends), local(starts))
    return _scan_cached(*key) if len(text) <= _CACHED_CHARS else _scan(*key)


def scan_pieces(pieces: list[str]) -> list[tuple[str, str, int]]:
    """``(kind, identifier, offset of its last match)`` in ``"\\n".join(pieces)``, most opaque
    kinds first, in order of first appearance within a kind, without duplicates: the scan of the
    joined text, made from each piece's own (see the module's docstring)."""
    text = "\n".join(pieces)
    ends, starts = cut_points(text)
    offsets, at = [], 0
    for piece in pieces:
        offsets.append(at)
        at += len(piece) + 1
    scans = [_scan_piece(p, o, ends, starts) for p, o in zip(pieces, offsets, strict=True)]
    merged = _merge(scans, offsets)
    if merged is None:  # a pass-through kind left what the joined scan blanks as a repeat
        merged = _merge([_scan(text, frozenset(ends), frozenset(starts))], [0])
        assert merged is not None  # (one text: no other piece to disagree with)
    return merged


def _merge(scans: list[_Scan], offsets: list[int]) -> list[tuple[str, str, int]] | None:
    first: dict[str, int] = {}  # token: the first pattern that found it, in any piece
    for sc in scans:
        for i, token in sc.found:
            if first.get(token, len(PATTERNS)) > i:
                first[token] = i
    if any(first.get(token, i) < i for sc in scans for token, i in sc.passed.items()):
        return None
    latest: dict[str, tuple[int, int, int]] = {}  # token: (pattern, piece, offset) last in scan order
    for n, sc in enumerate(scans):
        for token, (i, at) in sc.last.items():
            latest[token] = max(latest.get(token, (i, n, at)), (i, n, at))
        for token, (i, at) in sc.rejected.items():
            if first.get(token, i) < i:  # the joined scan met it as a repeat
                latest[token] = max(latest.get(token, (i, n, at)), (i, n, at))
    order = sorted((i, n, k, token) for n, sc in enumerate(scans) for k, (i, token) in enumerate(sc.found)
                   if first[token] == i)
    out, seen = [], set()
    for i, _, _, token in order:
        if token not in seen:
            seen.add(token)
            _, n, at = latest[token]
            out.append((PATTERNS[i][0], token, offsets[n] + at))
    return out
