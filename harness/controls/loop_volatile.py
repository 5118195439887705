"""Tokens that change on every poll without saying anything about progress (``mask_volatile``).

A poll that makes no progress rarely returns the same bytes: a clock, an elapsed time or age, a
PID, a request id, a heartbeat counter or a load average moves every time (and more than
clocks: ports, connection ids, temporary names, GC lines, ``loop_volatile_ids``). They are recognised
by what they are (their shape, or a label that says what kind of number follows), not by the
strings of one tool: timestamps in the usual formats (ISO 8601 and its compact form, RFC 2822 /
HTTP dates, syslog, Apache, ``date(1)``, epoch seconds to nanoseconds), clock times, durations
and ages (``2m10s``, ``3 days``, ``45ms``), hexadecimal and long random identifiers, numbers in
``name[pid]``, labelled counters, identifiers and gauges (load, CPU, memory, latency).

What is never masked is what progress is made of: states, words, ``4/10``, ``40%`` on its own,
``N of M``, unlabelled counts (``pending jobs: 3``), file names. A poll whose substance changes
still differs after masking, so it is never flagged.

Animation is volatile too (``mask_animation``): spinner frames, dots that grow and shrink,
transfer rates and ETAs. A progress bar is reduced to how full it is, so a bar that fills is
progress and one whose head only bounces is not.
"""

from __future__ import annotations

import re

import regex

from harness.controls.loop_volatile_ids import Needs, mask_non_clock, sub_where_possible
from harness.security.patterns import read_rule_file

_VOLATILE_RX: list[tuple[str, re.Pattern[str] | regex.Pattern[str], Needs]] = [
    (e["id"], (regex.compile if e.get("engine") == "regex" else re.compile)(e["pattern"]), tuple(e.get("triggers", ())))
    for e in read_rule_file("volatile.yaml")[1]["volatile"]
]
"""``(placeholder, pattern, triggers)`` in order (``volatile`` of ``harness/rules/volatile.yaml``)."""
_SPACE = re.compile(r"[ \t]+")


_EDGE = 32_000
"""Characters masked at each end of a longer text (about 5 ms per kilobyte): the middle of a
huge output is compared as it is, so a changed clock there only hides a loop, never invents one."""


def mask_volatile(text: str) -> str:
    """``text`` with volatile tokens replaced by placeholders and runs of spaces collapsed (a
    column that widens from ``9s`` to ``10s`` shifts the ones after it)."""
    if len(text) <= 2 * _EDGE:
        return _mask(text)
    # Cut at line ends, so a token that changes length near a cut does not shift the middle.
    head = text.rfind("\n", 0, _EDGE)
    head = head if head > 0 else _EDGE
    tail = text.find("\n", len(text) - _EDGE)
    tail = tail if tail >= head else len(text) - _EDGE
    return "\n".join((_mask(text[:head]), text[head:tail], _mask(text[tail:])))


def _mask(text: str) -> str:
    text = mask_non_clock(mask_animation(text))
    for token, rx, needs in _VOLATILE_RX:
        text = sub_where_possible(rx, token, text, needs)
    return _SPACE.sub(" ", text).strip()


_STATUS_MARKS = "✓✔✗✘✕✖✅❌❎☑☒⚠☐"
"""Check and cross marks: a status, not an animation frame (``✓ tests`` vs ``✗ tests``)."""
_GLYPHS = (r"[\p{Block=Braille_Patterns}\p{Block=Geometric_Shapes}\p{Block=Block_Elements}"
           r"\p{Block=Arrows}\p{Block=Dingbats}\p{Block=Miscellaneous_Symbols}"
           r"\p{Block=Miscellaneous_Symbols_And_Pictographs}--[" + _STATUS_MARKS + "]]")
"""Spinner frames are drawn from these Unicode blocks (the cli-spinners set: braille dots,
quarter circles, block elements, arrows, stars, moons and clocks); matched by block, not by a
list of frames, so a spinner not seen before is still one. ``regex`` for its block properties
and set difference, which ``re`` lacks."""
_BAR_CELLS = r"#=>█▉▊▋▌▍▎▏■▰━<*.\- _·▱░▒▓"
_EMPTY_CELLS = " .-_·▱░"
_ANIMATION: list[tuple[str, regex.Pattern[str], Needs]] = [
    # A progress bar of three cells or more, between [] or | (tqdm, pip, docker, curl).
    ("bar", regex.compile(rf"(?<=[\[|])[{_BAR_CELLS}]{{3,}}(?=[\]|])"), ()),
    # A spinner frame standing alone: one or two glyphs, or one of | / - \ between spaces.
    ("<spin>", regex.compile(rf"(?<![^\s\[(]){_GLYPHS}{{1,2}}(?![^\s\])])", regex.V1), ()),
    ("<spin>", regex.compile(r"(?<![^\s\[(])[|/\\-](?![^\s\])])"), ()),
    # One character in brackets where a status glyph stands, at a line's start: [.] [o] [O] [0]
    # (the bracket and the blanks before it are matched and put back: anchored at the line's
    # start, the pattern is tried once per line, where a look-behind would be tried at every
    # character).
    (r"\1<spin>", regex.compile(rf"(?m)^([ \t]*[\[(])[^\s\]){_STATUS_MARKS}xX](?=[\])])"), ()),
    # Dots that grow and shrink after a word (``waiting.``, ``waiting...``, an ellipsis).
    ("<dots>", regex.compile(r"(?<=\w)(?:\.+|…)(?=\s|$)"), ()),
    # Transfer and iteration rates; an ETA whatever its form (``ETA 1m20s``, ``eta 3:10``, ``--:--``).
    ("<rate>", regex.compile(r"(?i)\b\d+(?:\.\d+)?\s?(?:[KMGTP]i?B|[kKMG]?b(?:it)?|B|it|items?|files?|rows?|"
                             r"records?|ops|req|pkts?)/s\b|\b\d+(?:\.\d+)?\s?s/it\b"), ("/s", "/it")),
    ("<eta>", regex.compile(r"(?i)\beta\b[:=]?\s*[\d:.hmsd-]*\d?[\d:.hmsd-]*"), ()),
]


def mask_animation(text: str) -> str:
    """``text`` with spinner frames, growing dots, rates and ETAs masked, and each progress bar
    reduced to its filled cells (``[####    ]`` -> ``[<bar 4>]``)."""
    for token, rx, needs in _ANIMATION:
        if token == "bar":
            text = rx.sub(lambda m: f"<bar {sum(c not in _EMPTY_CELLS for c in m.group(0))}>", text)
        else:
            text = sub_where_possible(rx, token, text, needs)
    return text
