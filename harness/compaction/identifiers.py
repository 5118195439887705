"""Verification that a summary kept what it must keep: opaque identifiers and batch progress.

Summarisers (weak models especially) reconstruct ``fc3a...`` as ``abc1...`` and write "some items
were processed" instead of "17 of 43" (seed 004, rules 2 and 3). Instructions alone do not stop a
model that ignores them, so after summarising we extract the identifiers and progress lines from
the messages that were compacted away and append, verbatim, whatever the summary lost.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from itertools import pairwise

from harness.security.patterns import load_patterns
from harness.textcut import MIDDLE_MARKER

_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (p.id, p.regex) for p in load_patterns("identifiers.yaml", "identifiers", "id", flags=0)
]
"""``(kind, pattern)``, most opaque kinds first (``harness/rules/identifiers.yaml``)."""
_PASS_THROUGH = frozenset({"ipv6", "base64", "token", "handle"})
"""Kinds whose invalid matches are left for the later kinds (a time ``12:30:45`` is not an
address; a hex SHA matched by the base64 pattern is still a SHA; ``job-4417.lock`` is a file
name)."""
_RANK: dict[str, float] = {kind: i for i, (kind, _) in enumerate(_PATTERNS)}
_RANK["number"] = _RANK["sha"] + 0.5
"""Opacity order for the cap: the order of ``_PATTERNS`` (paths, less opaque, come last), but
numbers after SHAs: in a column of hex checksums a few are digits only, and the checksums with
letters are the ones the cap must keep first."""
_ISO_TIME = re.compile(r"^\d{4}-?\d{2}-?\d{2}[T_ ]?\d{2}(?::?\d{2})")
_ALNUM_RUN = re.compile(r"[A-Za-z]+|\d+")
_TRAILING = ".,;:!?"
_CUT = re.compile(
    re.escape(MIDDLE_MARKER) + r"|\n\[[\d,]+ characters omitted|\n\[\.\.\.\]"
    r"|(?<=[\w/=+-])(?:\.\.\.|…)(?=[\s\])}\"']|$)|(?:(?<=[\s(\[{\"'])|^)(?:\.\.\.|…)(?=[\w/])"
)
"""Where a text was cut (head+tail markers, an omission note, an ellipsis glued to a token): an
identifier that touches one was cut mid-way and is a fragment, not something to restore."""
_PROGRESS = re.compile(
    r"(?<![\w/.:-])(\d{1,7})\s*(?:/|\bof\b|\bout of\b)\s*(\d{1,7})(?![\w/-]|[.:]\w)"
)


def _valid(kind: str, token: str) -> bool:
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


def _cut_points(text: str) -> tuple[set[int], set[int]]:
    """``(ends, starts)``: offsets where a cut begins (a token ending there was cut) and where
    one ends (a token starting there was cut)."""
    ends, starts = set(), set()
    for m in _CUT.finditer(text):
        ends.add(m.start())
        starts.add(m.end())
    return ends, starts


def extract_identifiers(text: str) -> list[tuple[str, str]]:
    """``(kind, identifier)`` pairs found in ``text``, most opaque kinds first, in order of first
    appearance within a kind, without duplicates."""
    return [(kind, token) for kind, token, _ in _scan_identifiers(text)]


def _scan_identifiers(text: str) -> list[tuple[str, str, int]]:
    """``(kind, identifier, offset of its last match)``, in ``extract_identifiers`` order. The
    offsets come from the same pass: looking each identifier up again in a multi-megabyte tool
    output is quadratic (a 4 MB output holds ~10^5 checksums)."""
    last: dict[str, int] = {}
    found: list[tuple[str, str]] = []
    ends, starts = _cut_points(text)
    cut = bool(ends or starts)
    for kind, pattern in _PATTERNS:
        labelled = "tok" in pattern.groupindex
        # Sentence punctuation after it is not part of it; an IPv6 network ends in `::`.
        trailing = ".,;!?" if kind == "ipv6" else _TRAILING
        passes = kind in _PASS_THROUGH
        verdicts: dict[str, bool] = {}  # _valid is pure: a word seen 500 times is judged once

        def blank(m: re.Match[str], kind: str = kind, labelled: bool = labelled, trailing: str = trailing,
                  passes: bool = passes, verdicts: dict[str, bool] = verdicts) -> str:
            whole = m.group(0)
            if labelled:  # (a label before it is not part of it)
                at = m.start("tok")
                token = whole[at - m.start():].rstrip(trailing)
            else:
                at, token = m.start(), whole.rstrip(trailing)
            if cut and (at in starts or at + len(token) in ends):
                return " " * len(whole)  # cut mid-way by truncation: a fragment
            if token not in last:
                valid = verdicts.get(token)
                if valid is None:
                    valid = verdicts[token] = _valid(kind, token)
                if not valid:
                    return whole if passes else " " * len(whole)
                found.append((kind, token))
            last[token] = at
            return " " * len(whole)

        text = pattern.sub(blank, text)
    return [(kind, token, last[token]) for kind, token in found]


def _line_around(text: str, token: str, width: int = 160) -> str:
    """The line holding ``token``, cut to ``width`` characters around it. A line that is already
    an entry of an earlier preserved block comes back whole, so entries carry over unchanged."""
    i = text.find(token)
    start, end = text.rfind("\n", 0, i) + 1, text.find("\n", i)
    line = text[start:end if end >= 0 else len(text)].strip()
    if len(line) <= width or line.startswith(f"- {token}"):
        return line
    j = line.find(token)
    lo = max(0, min(j - width // 3, len(line) - width))
    return ("..." if lo else "") + line[lo:lo + width] + ("..." if lo + width < len(line) else "")


def _unwrap(line: str) -> str:
    """A line of an earlier preserved block back to its source text."""
    line = line.strip()
    while line.startswith("- "):
        line = line[2:].lstrip()
    if "(from: " in line and line.endswith(")"):
        line = line[line.index("(from: ") + 7:-1]
    return line


def progress_lines(text: str, keep: int = 5) -> list[tuple[str, str, str]]:
    """Batch-progress lines ("processed 17 of 43 files"): the latest line of each kind, at most
    ``keep`` kinds, most recent last, as ``(done, total, line)``. The kind is the count with the
    three words before it, digits ignored ("processed # of #"): the rest of the line may hold an
    id that differs on every line."""
    latest: dict[str, tuple[str, str, str]] = {}
    for raw in text.splitlines():
        line = _unwrap(raw)
        for m in _PROGRESS.finditer(line):
            done, total = m.group(1), m.group(2)
            if int(total) < 2 or int(done) > int(total):
                continue
            words = " ".join(line[: m.start()].split()[-3:])
            key = re.sub(r"\d+", "#", f"{words} {m.group(0)}".lower())
            latest.pop(key, None)  # re-insert so dict order is recency
            latest[key] = (done, total, line[:300])
    return list(latest.values())[-keep:]


def _kept(kind: str, token: str, summary: str) -> bool:
    """Whether the summary carries ``token`` verbatim. A number must stand alone: the first
    digits of a longer number (a paraphrase that appended or rounded digits) are not it."""
    if kind != "number":
        return token in summary
    return re.search(rf"(?<!\d){token}(?!\d)", summary) is not None


def _progress_in(summary: str, done: str, total: str) -> bool:
    return bool(re.search(rf"(?<!\d){done}\s*(?:/|of|out of)\s*{total}(?!\d)", summary))


_SCAN_HEAD, _SCAN_TAIL = 50_000, 200_000
"""Characters of the replaced text that are checked: the start (the task, early decisions) and
the most recent part. A compacted history fits the context window and is checked whole; only an
oversize tool output being summarised exceeds this. Such an output (megabytes) holds ~10^5
identifiers, far more than the block may restore (``max_identifiers``, most recent first), and
scanning all of it costs seconds of CPU while every other sample of the process waits."""


def _bounded(text: str) -> str:
    if len(text) <= _SCAN_HEAD + _SCAN_TAIL:
        return text
    return text[:_SCAN_HEAD] + MIDDLE_MARKER + text[-_SCAN_TAIL:]  # the cut is marked


@dataclass
class Verification:
    """What the summary lost, and the verbatim block that restores it."""

    missing_identifiers: list[str] = field(default_factory=list)
    missing_progress: list[str] = field(default_factory=list)
    block: str = ""

    @property
    def repaired(self) -> bool:
        return bool(self.block)


def verify_summary(
    summary: str,
    sources: Iterable[str],
    *,
    identifiers: bool = True,
    progress: bool = True,
    max_identifiers: int = 60,
) -> Verification:
    """Compare ``summary`` with the texts it replaced; build the block of what it lost."""
    text = _bounded("\n".join(sources))
    result = Verification()
    parts: list[str] = []
    if identifiers:
        scanned = [(k, t, at) for k, t, at in _scan_identifiers(text) if not _kept(k, t, summary)]
        if len(scanned) > max_identifiers:  # over the cap: most opaque kinds, then most recent
            scanned.sort(key=lambda kta: (_RANK[kta[0]], -kta[2]))
            scanned = scanned[:max_identifiers]
        missing = [(k, t) for k, t, _ in scanned]
        result.missing_identifiers = [t for _, t in missing]
        if missing:
            lines, shown = [], set()
            for _, token in missing:
                ctx = _line_around(text, token)
                if ctx.startswith(f"- {token}"):  # carried over from an earlier block
                    lines.append(ctx)
                    continue
                # Each source line is quoted once: the first identifier from it carries it.
                bare = ctx == token or ctx in shown
                shown.add(ctx)
                lines.append(f"- {token}" if bare else f"- {token}  (from: {ctx})")
            parts.append(
                "Preserved identifiers (verbatim from the compacted messages; the summary did not "
                "carry them exactly):\n" + "\n".join(lines)
            )
    if progress:
        lost = [line for done, total, line in progress_lines(text) if not _progress_in(summary, done, total)]
        result.missing_progress = lost
        if lost:
            parts.append("Batch progress (verbatim, latest last):\n" + "\n".join(f"- {x}" for x in lost))
    result.block = "\n\n".join(parts)
    return result
