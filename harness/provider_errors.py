"""One classifier for provider failures, read the way each provider's own client reads them.

``classify_http_error(status, headers, body, model=..., transport_error=None)`` returns a
:class:`ProviderError` whose ``kind`` failover can act on. Structure is read first: the HTTP
status, the error body's ``type`` / ``code`` / ``status`` fields in each dialect (OpenAI and
Azure OpenAI ``{"error": {"type", "code"}}``, Anthropic ``{"type": "error", "error": {"type"}}``,
Google ``{"error": {"status": "RESOURCE_EXHAUSTED", "details": [...]}}``, vLLM
``{"object": "error", "type": "BadRequestError"}``, llama.cpp ``exceed_context_size_error``),
and the retry headers (``harness.retry_hints``). The message wording is read second, only where
the structure leaves the cause open (a generic ``invalid_request_error`` that is really an
overflow; a bare 429 that speaks of a quota with no retry hint).

A 429 is a hard quota only when the structure says so (OpenAI ``insufficient_quota``, a Google
quota violation over a day or longer, a billing error) or when nothing suggests a short wait;
a 429 carrying a short retry hint is a rate limit. Transport failures (refused, reset, stalled,
a cut stream) are ``timeout`` faults: retriable, bounded by the router's retry budget.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from typing import Any

from harness.model import FaultKind, ProviderError
from harness.retry_hints import (
    body_retry_delay,
    header_retry_after,
    lower_headers,
    reset_header_wait,
    worded_retry_after,
)
from harness.security.patterns import load_patterns, read_rule_file

Body = str | bytes | dict[str, Any] | list[Any] | None

LONG_RETRY_S = 3600.0
"""A retry hint at least this long is a quota window, not a rate limit."""

_LABELS: dict[str, FaultKind] = {
    label: kind for kind, labels in read_rule_file("provider_errors.yaml")[1]["labels"].items() for label in labels
}
"""Labels that settle the kind on their own (``labels`` of ``harness/rules/provider_errors.yaml``)."""

_SUBJECT = (r"(?:context|token|tokens|prompt|input|inputs|sequence|model length|max_model_len|"
            r"payload|request size|message size|body size)")
_OVERFLOW = [
    re.compile(rf"{_SUBJECT}\b[^.;\n]{{0,80}}?(?:exceed|too long|too large|too many|larger than|"
               rf"longer than|greater than|over the|above the|must be <=?|must be less|must not exceed)",
               re.IGNORECASE),
    re.compile(rf"(?:exceed|exceeds|exceeded|exceeding)\b[^.;\n]{{0,60}}?(?:context|{_SUBJECT}"
               rf"[^.;\n]{{0,20}}(?:limit|length|size|window|maximum))", re.IGNORECASE),
    re.compile(r"maximum (?:context|model|sequence|input) length|max(?:imum)? context (?:size|"
               r"length|window)|context (?:size|window|length) (?:is|of) \d+|"
               r"reduce the length of the (?:messages|prompt|input)", re.IGNORECASE),
    re.compile(r"\d+\s*(?:tokens?)?\s*(?:\+\s*\d+\s*)?>\s*\d+\s*(?:tokens?|maximum|limit)",
               re.IGNORECASE),
]
"""Overflow wording in any dialect: a size subject with an excess predicate, in one clause."""
_RATE_WINDOW = re.compile(r"per (?:min|minute|second|sec|hour|day)|\b[RT]P[MDS]\b|rate limit|"
                          r"rate-limit|ratelimit", re.IGNORECASE)
_QUOTA_WORDS = re.compile(r"quota|billing|credit balance|credits|payment|plan and billing|"
                          r"spending limit|usage limit", re.IGNORECASE)
_RATE_WORDS = re.compile(r"rate.?limit|too many requests|slow down|requests per|tokens per|"
                         r"concurrency|try again (?:later|in)|retry (?:after|in)", re.IGNORECASE)
_LONG_QUOTA_ID = re.compile(r"per ?day|daily|per ?month|monthly|per ?year|per ?week|"
                            r"per ?hour|hourly", re.IGNORECASE)
_TIMEOUT_STATUSES = frozenset({408, 504, 522, 524, 598, 599})
"""Request timeout, gateway timeout and the proxies' (Cloudflare, nginx) timeout statuses."""



def classify_http_error(
    status: int | None,
    headers: Mapping[str, str] | Any,
    body: Body,
    *,
    model: str,
    transport_error: str | None = None,
) -> ProviderError:
    """Classify one failed provider call. ``status`` is ``None`` when no HTTP answer came
    (then ``transport_error`` says why: refused, reset, timed out, stream cut)."""
    h = lower_headers(headers)
    data = parse_body(body)
    err = error_object(data)
    message = error_message(err, data, status, transport_error)
    dialect = guess_dialect(h, data, err)
    if status is None and transport_error is not None:
        reason = transport_reason(transport_error)
        return ProviderError("timeout", message, status=None, model=model, headers=h,
                             body=_short(body), dialect=dialect, reason=reason)
    labels = error_labels(data, err)
    raw_details = err.get("details")
    details: list[Any] = raw_details if isinstance(raw_details, list) else []
    hint = retry_hint(h, details, message)
    kind, reason = decide(status, labels, details, message, hint)
    if kind == "quota_exceeded" and hint is not None and hint < LONG_RETRY_S:
        hint = None  # a daily quota's "retry in 40s" would only fail again: the cooldown rules
    return ProviderError(kind, message, status=status, retry_after=hint, model=model,
                         headers=h, body=_short(body), dialect=dialect, reason=reason)


def decide(status: int | None, labels: list[str], details: list[Any], message: str,
           hint: float | None) -> tuple[FaultKind, str]:
    """``(kind, reason)``: structure first, wording second, the bare status last."""
    if _overflow_worded(message) and status not in (429, 401, 403):
        return "context_overflow", "worded overflow"
    for label in labels:
        kind = _LABELS.get(label)
        if kind is not None and not (kind == "rate_limit" and _long_quota(details, hint)):
            return kind, label
    if status == 429 or "resource_exhausted" in labels:
        return _too_many(details, message, hint)
    if status == 529:
        return "overloaded", "529"
    if status in (401, 403):
        return "auth_error", str(status)
    if status in _TIMEOUT_STATUSES:
        return "timeout", str(status)
    if status is not None and status >= 502:
        return "overloaded", str(status)  # gateways and proxies: the server is not answering
    if status == 413:
        return "context_overflow", "413"
    if status == 402 or (status is not None and 400 <= status < 500 and
                         _QUOTA_WORDS.search(message) and not _RATE_WORDS.search(message)):
        return "quota_exceeded", str(status)
    if status is not None and 400 <= status < 500:
        return "bad_request", str(status)
    return "other", str(status) if status is not None else "no status"


def _too_many(details: list[Any], message: str, hint: float | None) -> tuple[FaultKind, str]:
    """A 429 (or RESOURCE_EXHAUSTED): a hard quota or a short rate limit?"""
    if _long_quota(details, hint):
        return "quota_exceeded", "long quota window"
    if hint is not None:
        return "rate_limit", "retry hint"
    if _QUOTA_WORDS.search(message) and not _RATE_WORDS.search(message):
        return "quota_exceeded", "worded quota"
    return "rate_limit", "429"


def _long_quota(details: list[Any], hint: float | None) -> bool:
    """Quota violations over a day/hour/month window, or a retry hint of an hour or more."""
    if hint is not None and hint >= LONG_RETRY_S:
        return True
    for d in details:
        for v in (d.get("violations") or []) if isinstance(d, dict) else []:
            if not isinstance(v, dict):
                continue
            quota_id = f"{v.get('quotaId', '')} {v.get('quotaMetric', '')} {v.get('subject', '')}"
            if _LONG_QUOTA_ID.search(quota_id):
                return True
    return False


def _overflow_worded(message: str) -> bool:
    for clause in re.split(r"(?<=[.;!?])\s+|\n", message):
        if _RATE_WINDOW.search(clause):
            continue
        if any(p.search(clause) for p in _OVERFLOW):
            return True
    return False


def retry_hint(h: Mapping[str, str], details: list[Any], message: str) -> float | None:
    for value in (header_retry_after(h), body_retry_delay(details), reset_header_wait(h),
                  worded_retry_after(message)):
        if value is not None:
            return value
    return None


def parse_body(body: Body) -> Any:
    if body is None or isinstance(body, dict | list):
        return body
    text = body.decode("utf-8", errors="replace") if isinstance(body, bytes) else str(body)
    try:
        return json.loads(text)
    except ValueError:
        return text


def error_object(data: Any) -> dict[str, Any]:
    """The dict that describes the error in any dialect (Google streams wrap it in a list)."""
    if isinstance(data, list) and data and isinstance(data[0], dict):
        data = data[0]
    if not isinstance(data, dict):
        return {}
    err = data.get("error")
    if isinstance(err, dict):
        return err
    return data


def error_labels(data: Any, err: dict[str, Any]) -> list[str]:
    """Every structural label, most specific first: ``code``, ``type``, ``status``, detail
    reasons (Google ``ErrorInfo.reason``), then the envelope's own ``type``."""
    out: list[str] = []
    for key in ("code", "type", "status", "reason"):
        v = err.get(key)
        if isinstance(v, str) and v.strip():
            out.append(v.strip().lower())
    for d in err.get("details") or [] if isinstance(err.get("details"), list) else []:
        if isinstance(d, dict) and isinstance(d.get("reason"), str):
            out.append(d["reason"].lower())
    if isinstance(data, dict) and isinstance(data.get("type"), str) and data["type"] != "error":
        out.append(data["type"].lower())
    return out


def error_message(err: dict[str, Any], data: Any, status: int | None, transport_error: str | None) -> str:
    for v in (err.get("message"), err.get("detail"), err.get("error"),
              data.get("message") if isinstance(data, dict) else None):
        if isinstance(v, str) and v.strip():
            return v.strip()[:2000]
    if isinstance(data, str) and data.strip():
        return data.strip()[:2000]
    if transport_error:
        return transport_error[:2000]
    if err:
        return json.dumps(err, default=str)[:2000]
    return f"HTTP {status}" if status is not None else "no response"


def guess_dialect(h: Mapping[str, str], data: Any, err: dict[str, Any]) -> str:
    """Which server family answered (for the event log; the kind never depends on it)."""
    if any(k.startswith(("x-ms-", "apim-")) for k in h) or "azure" in str(err.get("message", ""
                                                                                  )).lower():
        return "azure"
    if any(k.startswith("anthropic-") for k in h) or (
            isinstance(data, dict) and data.get("type") == "error"):
        return "anthropic"
    status_field = err.get("status")
    if isinstance(status_field, str) and status_field.isupper() or "details" in err:
        return "google"
    if "n_ctx" in err or "llama" in h.get("server", "").lower() or \
            str(err.get("type", "")).endswith(("exceed_context_size_error", "unavailable_error")):
        return "llamacpp"
    if isinstance(data, dict) and data.get("object") == "error" or \
            str(err.get("type", "")).endswith("Error"):
        return "vllm"
    if "type" in err or "x-request-id" in h or "openai-processing-ms" in h:
        return "openai"
    return "unknown"


def transport_reason(text: str) -> str:
    match = next((p for p in load_patterns("provider_errors.yaml", "transport_reasons", "id")
                  if p.regex.search(text)), None)
    return match.id if match else "transport"


def _short(body: Body) -> str | None:
    if body is None:
        return None
    if isinstance(body, bytes):
        return body[:4000].decode("utf-8", errors="replace")
    if isinstance(body, dict | list):
        return json.dumps(body, default=str)[:4000]
    return str(body)[:4000]
