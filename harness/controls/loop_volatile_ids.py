"""Volatile tokens that are not clocks (``mask_volatile``, after ``mask_non_clock``).

Between two polls that made no progress, more than the time moves: a new ephemeral port per
connection, connection numbers, random temporary names, object addresses and inodes, restarted
pods' names, data stores' write counters, garbage-collector lines. Each is recognised by how the
system makes it, not by the tools seen (the table and where each comes from:
``harness/rules/volatile.yaml``, ``non_clock``); ports in the ephemeral range (32768-65535:
Linux's ``ip_local_port_range``, IANA's dynamic range), temporary paths and GC lines here.

What stays: unlabelled counts, ``N of M``, ports a server was told to use (below 32768), named
files; a poll whose substance changes still differs.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from harness.security.patterns import load_patterns

Needs = tuple[str, ...] | re.Pattern[str]
"""What a text must hold for a pattern to match anywhere in it (``sub_where_possible``)."""

_EPHEMERAL = range(32768, 65536)

_GC_LINE = re.compile(
    r"(?im)^[^\n]*(?:^[ \t]*gc[:(]|\[gc[\],\]]|\bGC\(\d+\)|\bgc \d+ @|\bscavenge\b|\bmark-(?:sweep|compact)\b"
    r"|\bgarbage[- ]collect)[^\n]*$")
"""Garbage-collector log lines (CPython ``gc:``, Go ``gctrace``, JVM unified logging ``GC(n)``/
``[gc]``, V8 ``--trace-gc`` Scavenge/Mark-Compact): every number in such a line is masked."""
_GC_WORDS = ("gc", "scavenge", "mark-", "garbage")
"""One of these is in every line ``_GC_LINE`` matches."""
_NUMBER = re.compile(r"\d+(?:\.\d+)?")
_HOST_PORT = re.compile(r"((?:\d{1,3}(?:\.\d{1,3}){3}|\]|\blocalhost|\b[\w-]+(?:\.[\w-]+)+|\*)):(\d{5})\b(?!:\d)"
                        r"|(\b\d{1,3}(?:\.\d{1,3}){3})\.(\d{5})\b")
"""``host:port``, and BSD/macOS ``netstat``'s ``127.0.0.1.54321``."""
_FIVE_DIGITS = re.compile(r"[:.]\d{5}")
"""In every match of ``_HOST_PORT``."""
_PORT_WORD = re.compile(r"(?i)(\bport\s+)(\d{5})\b")

_TOKENS: list[tuple[str, re.Pattern[str], Needs]] = [
    (p.id, p.regex, p.triggers) for p in load_patterns("volatile.yaml", "non_clock", "id", flags=0)
]
"""Labelled and shaped tokens (``non_clock`` of ``harness/rules/volatile.yaml``), in order."""
_TEMP_PATH = re.compile(r"(?:/private)?(?:/tmp|/var/tmp|/dev/shm|/var/folders/[^\s/]+/[^\s/]+/T)(?:/[^\s/:'\"]+)+")
_NUMBERED = re.compile(r"(?<=/)(?=[^/]*\d)(?:[A-Za-z_-]*\d+|\d+)(?=/|$)")
"""A numbered entry inside a temporary tree (pytest's ``pytest-12/test_read0``, Go's ``TestX/001``):
a name with a counter and no extension."""
_TEMP_DIR_ENTRY = re.compile(r"((?:^|[\s'\"=(])(?:/private)?(?:/tmp|/var/tmp|/dev/shm|/var/folders/[^\s/]+/[^\s/]+/T)/)"
                             r"(?=[^\s/]*\d)(?=[^\s/]*[A-Za-z])[^\s/]{6,}")


def mask_non_clock(text: str) -> str:
    """``text`` with the volatile tokens above replaced by placeholders."""
    text = sub_where_possible(_GC_LINE, lambda m: _NUMBER.sub("<n>", m.group(0)), text, _GC_WORDS)
    for token, rx, needs in _TOKENS:  # labelled first: `local port 30911` is volatile below 32768 too
        text = sub_where_possible(rx, token, text, needs)
    text = sub_where_possible(_HOST_PORT, lambda m: m.group(1) + ":" + _port(m.group(2)) if m.group(1)
                          else m.group(3) + "." + _port(m.group(4)), text, _FIVE_DIGITS)
    text = _PORT_WORD.sub(lambda m: m.group(1) + _port(m.group(2)), text)
    text = _TEMP_PATH.sub(lambda m: _NUMBERED.sub("<tmp>", m.group(0)), text)
    return _TEMP_DIR_ENTRY.sub(r"\1<tmp>", text)


def _port(number: str) -> str:
    return "<port>" if int(number) in _EPHEMERAL else number


def sub_where_possible(rx: re.Pattern[str] | Any, repl: str | Callable[[Any], str], text: str,
                       needs: Needs) -> str:
    """``rx.sub(repl, text)``, skipped where ``rx`` cannot match: ``needs`` is either words one
    of which is part of every match (ignoring case), or a pattern that finds a part of every
    match. Most keyword patterns cost a scan of the whole text at every word for a word the
    text does not hold; a look for the words costs a fraction of it. The words are looked for
    in ASCII texts only: there lower-casing is exactly what ``(?i)`` matches (outside ASCII,
    ``(?i)`` matches letters, such as the long s, that lower-casing keeps apart)."""
    if isinstance(needs, re.Pattern):
        if needs.search(text) is None:
            return text
    elif needs and text.isascii():
        lower = text.lower()
        if not any(word in lower for word in needs):
            return text
    return rx.sub(repl, text)
