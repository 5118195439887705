"""Verification that a summary kept what it must keep: opaque identifiers and batch progress.

Summarisers (weak models especially) reconstruct ``fc3a...`` as ``abc1...`` and write "some items
were processed" instead of "17 of 43" (seed 004, rules 2 and 3). Instructions alone do not stop a
model that ignores them, so after summarising we extract the identifiers and progress lines from
the messages that were compacted away and append, verbatim, whatever the summary lost.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from harness.compaction.identifier_scan import PATTERNS, scan_pieces
from harness.textcut import MIDDLE_MARKER

_RANK: dict[str, float] = {kind: i for i, (kind, _) in enumerate(PATTERNS)}
_RANK["number"] = _RANK["sha"] + 0.5
"""Opacity order for the cap: the order of ``PATTERNS`` (paths, less opaque, come last), but
numbers after SHAs: in a column of hex checksums a few are digits only, and the checksums with
letters are the ones the cap must keep first."""
_PROGRESS = re.compile(
    r"(?<![\w/.:-])(\d{1,7})\s*(?:/|\bof\b|\bout of\b)\s*(\d{1,7})(?![\w/-]|[.:]\w)"
)


def extract_identifiers(text: str) -> list[tuple[str, str]]:
    """``(kind, identifier)`` pairs found in ``text``, most opaque kinds first, in order of first
    appearance within a kind, without duplicates."""
    return [(kind, token) for kind, token, _ in scan_pieces([text])]


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
        if "/" not in raw and "of" not in raw:
            continue  # (every match holds one)
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


def _bounded(sources: list[str]) -> list[str]:
    """The texts to check, whose ``"\n"``-join is the text checked: all of them, or the head and
    the tail of their joined text around ``MIDDLE_MARKER`` (the cut is marked)."""
    if sum(len(s) + 1 for s in sources) - 1 <= _SCAN_HEAD + _SCAN_TAIL:
        return sources
    text = "\n".join(sources)
    pieces = MIDDLE_MARKER.split("\n")
    return [text[:_SCAN_HEAD] + pieces[0], *pieces[1:-1], pieces[-1] + text[-_SCAN_TAIL:]]


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
    pieces = _bounded(list(sources))
    text = "\n".join(pieces)
    result = Verification()
    parts: list[str] = []
    if identifiers:
        scanned = [(k, t, at) for k, t, at in scan_pieces(pieces) if not _kept(k, t, summary)]
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
