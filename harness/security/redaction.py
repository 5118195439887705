"""Secret redaction (seed 004 "log redaction"): API keys and tokens never reach logs or disk.

``redact(text)`` is what everything persisted or logged goes through (transcripts, events, log
records). Fixed-prefix formats are data (``redaction_patterns.yaml``); secrets without one are
found by the checks after them (``_PASSES``): by their name, shape and entropy, the position
their syntax gives them, or the document, table or record that holds them. Callers may add
regexes (``RedactionConfig.extra_patterns``), whose whole match becomes ``[REDACTED]``.

Source: seed 004, "API keys and tokens must never appear in logs" (``SENSITIVE_PATTERNS``, ``redact_for_log``).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from functools import lru_cache, partial
from typing import Any

from harness.security.patterns import compile_extra, load_patterns
from harness.security.redaction_passes import redact_positions, redact_shapes, run_passes
from harness.security.redaction_shapes import PATTERN_FILE, PLACEHOLDER
from harness.security.redaction_structured import redact_structured
from harness.security.redaction_tables import redact_records, redact_tables
from harness.security.regex_needles import may_match


def redact(text: str, extra_patterns: Sequence[str] = ()) -> str:
    """``text`` with every known secret format (and each ``extra_patterns`` match) replaced."""
    if not text:
        return text
    text = _redact_known(text) if len(text) <= CACHED_CHARS else _redact_uncached(text)
    for rx in compile_extra(tuple(extra_patterns), "redaction.extra_patterns"):
        text = rx.sub(PLACEHOLDER, text)
    return text


CACHED_CHARS = 200_000
"""Texts up to this size are memoised: one tool output is redacted for the model, the event
log and the transcript, and each would otherwise pay the scan again."""


@lru_cache(maxsize=1024)
def _redact_known(text: str) -> str:
    return _redact_uncached(text)


def _redact_uncached(text: str) -> str:
    return deque(passes(text), maxlen=1)[0][1]  # the text after the last pass


_PASSES: tuple[tuple[str, Callable[[str], str]], ...] = (
    ("table-columns", redact_tables), ("credential-calls", partial(run_passes, "credential-calls")),
    ("structured-documents", redact_structured), ("secret-shapes", redact_shapes),
    ("syntax-positions", redact_positions), ("data-records", redact_records),
)
"""The passes after the fixed formats, in order, each under the id of its rule (the ``checks`` of
``redaction_patterns.yaml``)."""


def passes(text: str) -> Iterator[tuple[str, str]]:
    """``(rule id, text after it)`` for each rule in the order they apply: the fixed formats of
    ``redaction_patterns.yaml`` one by one, then the checks. The last text is ``redact``'s
    (without the caller's extra patterns). A fixed format whose regex cannot match the text
    (``regex_needles``) is not scanned for."""
    lowered = text.lower()
    for p in load_patterns(PATTERN_FILE, "secrets", "replace"):
        if may_match(p.regex, text, lowered):
            changed = p.regex.sub(p.text, text)
            if changed != text:
                text, lowered = changed, changed.lower()
        yield p.id, text
    for rule, redact_pass in _PASSES:
        text = redact_pass(text)
        yield rule, text


def redact_data(value: Any, extra_patterns: Sequence[str] = ()) -> Any:
    """``redact`` applied to every string inside nested dicts, lists and tuples (event data,
    JSON records). Keys are kept; other values are returned unchanged."""
    if isinstance(value, str):
        return redact(value, extra_patterns)
    if isinstance(value, dict):
        return {k: redact_data(v, extra_patterns) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return type(value)(redact_data(v, extra_patterns) for v in value)
    return value
