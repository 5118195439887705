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

_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
_DAY = r"(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)(?:day|sday|nesday|rsday|urday)?\b,?"
_CLOCK = r"\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
_ZONE = r"(?:\s?(?:Z|[+-]\d{2}:?\d{2}|UTC|GMT|[A-Z]{2,4}T))?"
_UNITS = (r"(?:ns|us|µs|ms|s|secs?|seconds?|m|mins?|minutes?|h|hrs?|hours?|d|days?"
          r"|w|wks?|weeks?|mo|months?|y|yrs?|years?)")
_LABEL_SEP = r"[\s:=#\"']*"
_NOT_OF_TOTAL = r"(?![\d.])(?!\s*(?:/|of\s)\s*\d)"
"""After a number: it is not the count of a ``N/M`` or ``N of M`` (which is progress)."""
_NOT_A_QUANTITY = r"(?!\s+[a-z]{2,}s\b)"
"""After a number: it does not count things (``check: 3 objects alive`` is a quantity, not a tick)."""

# (placeholder, pattern[, what every match holds: ``sub_where_possible``]): order matters, whole
# timestamps before their parts, shapes that contain numbers before the number rules.
_VOLATILE: list[tuple[str, str | regex.Pattern[str]] | tuple[str, str, Needs]] = [
    # ISO 8601 / RFC 3339 (also with `/` or a space), and its compact form 20261124T021007Z.
    ("<ts>", rf"\b\d{{4}}[-/.]\d{{1,2}}[-/.]\d{{1,2}}(?:[T ]{_CLOCK})?{_ZONE}(?![\d:])"),
    ("<ts>", r"\b\d{8}T\d{4,6}(?:[.,]\d+)?(?:Z|[+-]\d{4})?\b"),
    # Apache/nginx access logs: 24/Nov/2026:02:10:07 +0000
    ("<ts>", rf"\b\d{{1,2}}/{_MONTH}/\d{{4}}(?::\d{{2}}){{3}}(?:\s[+-]\d{{4}})?"),
    # RFC 2822 / HTTP (24 Nov 2026 02:10:07 GMT), date(1) and syslog (Nov 24 02:10:07).
    ("<ts>", rf"\b\d{{1,2}}[ -]{_MONTH}[ -]\d{{2,4}}(?:\s{_CLOCK})?{_ZONE}"),
    ("<ts>", rf"\b{_MONTH}\s+\d{{1,2}}(?:,?\s+\d{{4}})?(?:\s+{_CLOCK}{_ZONE}(?:\s\d{{4}}\b)?)?"),
    ("<date>", r"\b\d{1,2}/\d{1,2}/\d{2,4}\b"),
    ("<day>", rf"\b{_DAY}"),
    # Clock times: 02:10:07, 2:10 pm; a bare H:MM only where it is not part of a file:line:col.
    ("<time>", rf"(?<![\w.:/]){_CLOCK}\s?[AaPp]\.?[Mm]\b\.?"),
    ("<time>", r"(?<![\w.:/-])\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b"),
    ("<time>", r"(?<![\w.:/-])(?:[01]?\d|2[0-3]):[0-5]\d(?![\d:/])"),
    # Unix time in seconds, milliseconds, microseconds or nanoseconds (2017-2033).
    ("<epoch>", r"\b1[5-9]\d{8}(?:\d{3}|\d{6}|\d{9})?(?:\.\d+)?\b"),
    # Labelled identifiers whatever their shape (request_id=00000042, X-Request-Id: 12, etag "7"),
    # before the shape rules: an id that happens to be all digits gets the same placeholder.
    ("<id>", rf"(?i)\b(?:x-)?(?:request|req|trace|span|correlation|invocation|message|msg|event|txn|"
             rf"transaction|nonce|session)[ _-]?id{_LABEL_SEP}[\w.:-]+|\b(?:etag|nonce){_LABEL_SEP}[\w.:-]+",
     ("req", "trace", "span", "correlation", "invocation", "message", "msg", "event", "txn", "transaction",
      "nonce", "session", "etag")),
    ("<uuid>", r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
    ("<addr>", r"\b0x[0-9a-fA-F]{4,}\b"),
    # Hexadecimal ids (request ids, container ids, short digests) and long random tokens mixing
    # letters and digits (base62 ids, ULIDs): nothing a reader follows as progress.
    ("<hex>", r"\b(?=[0-9a-f]*[a-f])(?=[0-9a-f]*\d)[0-9a-f]{7,}\b|\b(?=[0-9A-F]*[A-F])(?=[0-9A-F]*\d)[0-9A-F]{7,}\b"),
    ("<id>", r"\b(?=[A-Za-z0-9]*[A-Za-z])(?=[A-Za-z0-9]*\d)[A-Za-z0-9]{16,}\b"),
    # Durations and ages: 2m10s, 1h05m22s, 45ms, 3 days, 12.5 seconds.
    ("<dur>", r"\b(?:\d+(?:\.\d+)?(?:ms|us|µs|ns|[dhms])){2,}\b"),
    ("<dur>", rf"\b\d+(?:\.\d+)?\s?{_UNITS}\b"),
    # `worker[2211]:` (syslog), and labelled process ids.
    # Only a plain program name before it and a colon after (`prog[pid]:`): a dotted address or
    # an array's element (`aws_instance.web[2]:`, `items[3]`) is an index, which is progress.
    ("<pid>", regex.compile(r"(?m)(?<=(?:^|[^\w.\[\]-])[A-Za-z][\w-]*)\[\d{2,}\](?=:)")),
    ("<pid>", rf"(?i)\b(?:pid|ppid|tid|process|thread){_LABEL_SEP}\d+"),
    # Gauges that go up and down on their own: load averages, CPU, memory, latency.
    ("<gauge>", rf"(?i)\b(?:load(?:[ _]?averages?)?|loadavg|%?cpu|%?mem(?:ory)?|rss|vsz|heap|temp(?:erature)?|"
                rf"latency|rtt|qps|rps){_LABEL_SEP}\d+(?:\.\d+)?(?:\s?(?:%|[KMGT]i?B\b))?"
                r"(?:,?\s\d+\.\d+){0,2}",
     ("load", "cpu", "mem", "rss", "vsz", "heap", "temp", "latency", "rtt", "qps", "rps")),
    # Counters that tick on every poll (a heartbeat, a retry, a sequence number): labelled, or #N;
    # not when they count towards a total (`request 3 of 10`, `#3/10`): that is progress.
    ("<count>", rf"(?i)(?:\b(?:attempt|retry|retries|try|poll|polls|iteration|iter|heartbeat|tick|seq|"
                rf"sequence|request|req|check|round|loop|ping|probe|generation){_LABEL_SEP}#?|#)\d+"
                rf"{_NOT_OF_TOTAL}{_NOT_A_QUANTITY}",
     ("attempt", "retry", "retries", "try", "poll", "iter", "heartbeat", "tick", "seq", "req", "check", "round",
      "loop", "ping", "probe", "generation", "#")),
]
_VOLATILE_RX: list[tuple[str, re.Pattern[str] | regex.Pattern[str], Needs]] = [
    (row[0], re.compile(row[1]) if isinstance(row[1], str) else row[1], row[2] if len(row) > 2 else ())  # type: ignore[misc]
    for row in _VOLATILE
]
"""Compiled with ``re``; a pattern that needs a variable-length look-behind is ``regex``'s already."""
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
