"""How long a provider asks us to wait, read the way the official clients read it.

Sources, most specific first: ``retry-after-ms`` / ``x-ms-retry-after-ms`` (OpenAI, Azure),
``retry-after`` (seconds or an HTTP date), a body's ``RetryInfo.retryDelay`` (Google: ``"13s"``),
the rate-limit reset headers (``x-ratelimit-reset-requests: 6m0s``, Anthropic's
``anthropic-ratelimit-*-reset`` timestamps), and last the message's own wording
("Please retry in 13.6s", "retry after 6 seconds").
"""

from __future__ import annotations

import email.utils
import re
import time
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)", re.IGNORECASE)
_UNIT_S = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}
_WORDED = re.compile(
    r"(?:retry|try again)\s+(?:after|in)\s+(\d+(?:\.\d+)?)\s*"
    r"(ms|milliseconds?|s|secs?|seconds?|m|mins?|minutes?|h|hours?)\b",
    re.IGNORECASE,
)
_RESET_FAMILIES = ("requests", "tokens", "input-tokens", "output-tokens")


def lower_headers(headers: Any) -> dict[str, str]:
    """Header names lower-cased (HTTP names are case-insensitive); any ``items()`` works."""
    if not headers:
        return {}
    items = headers.items() if hasattr(headers, "items") else headers
    return {str(k).lower(): str(v) for k, v in items}


def parse_duration(text: str | float | int | None) -> float | None:
    """``"13s"``, ``"1.5s"``, ``"6m0s"``, ``"20ms"``, ``"1h2m3s"``, ``"7"`` or a number → seconds."""
    if text is None or isinstance(text, bool):
        return None
    if isinstance(text, int | float):
        return max(0.0, float(text))
    s = str(text).strip()
    try:
        return max(0.0, float(s))
    except ValueError:
        pass
    parts = _DURATION.findall(s)
    if not parts or _DURATION.sub("", s).strip():
        return None
    return sum(float(n) * _UNIT_S[u.lower()] for n, u in parts)


def _http_date_or_seconds(value: str) -> float | None:
    seconds = parse_duration(value)
    if seconds is not None:
        return seconds
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    return max(0.0, when.timestamp() - time.time())


def _timestamp_or_duration(value: str) -> float | None:
    """Anthropic resets are RFC 3339 timestamps; OpenAI's and Groq's are durations."""
    seconds = parse_duration(value)
    if seconds is not None:
        return seconds
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        return None
    return max(0.0, when.timestamp() - time.time())


def header_retry_after(h: Mapping[str, str]) -> float | None:
    """The explicit retry headers only (milliseconds first: they are the precise ones)."""
    for name in ("retry-after-ms", "x-ms-retry-after-ms"):
        ms = parse_duration(h.get(name))
        if ms is not None:
            return ms / 1000
    value = h.get("retry-after")
    return _http_date_or_seconds(value) if value else None


def reset_header_wait(h: Mapping[str, str]) -> float | None:
    """The longest reset among exhausted limits (remaining 0), or among all when the server
    does not say which is exhausted."""
    exhausted: list[float] = []
    every: list[float] = []
    for prefix in ("x-ratelimit", "anthropic-ratelimit"):
        for fam in _RESET_FAMILIES:
            raw = h.get(f"{prefix}-reset-{fam}") or h.get(f"{prefix}-{fam}-reset")
            wait = _timestamp_or_duration(raw) if raw else None
            if wait is None:
                continue
            every.append(wait)
            remaining = h.get(f"{prefix}-remaining-{fam}") or h.get(f"{prefix}-{fam}-remaining")
            if remaining is not None and remaining.strip() in ("0", "0.0"):
                exhausted.append(wait)
    chosen = exhausted or every
    return max(chosen) if chosen else None


def body_retry_delay(details: Iterable[Any]) -> float | None:
    """Google's ``google.rpc.RetryInfo`` detail: ``{"retryDelay": "13s"}`` (or proto JSON)."""
    for d in details:
        if not isinstance(d, dict) or "retryDelay" not in d:
            continue
        delay = d["retryDelay"]
        if isinstance(delay, dict):  # {"seconds": 13, "nanos": 500000000}
            try:
                return float(delay.get("seconds", 0)) + float(delay.get("nanos", 0)) / 1e9
            except (TypeError, ValueError):
                continue
        seconds = parse_duration(delay)
        if seconds is not None:
            return seconds
    return None


def worded_retry_after(message: str) -> float | None:
    m = _WORDED.search(message or "")
    if not m:
        return None
    unit = m.group(2).lower()
    scale = 0.001 if unit.startswith("ms") or unit.startswith("milli") else \
        60.0 if unit.startswith("m") else 3600.0 if unit.startswith("h") else 1.0
    return float(m.group(1)) * scale
