"""``classify_http_error`` over provider answers in every dialect, tuned and held-out cases apart.

``provider_errors/tuned.yaml`` holds the answers the classifier was developed against;
``provider_errors/untuned.yaml`` answers written before it was measured on them (its header
records the first measurement); ``untuned2.yaml`` a second held-out set written after tuning. ``python tests/harness/test_provider_errors.py`` prints both rates.
"""

from __future__ import annotations

import email.utils
import time
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.provider_errors import classify_http_error
from harness.retry_hints import parse_duration, worded_retry_after

HERE = Path(__file__).parent / "provider_errors"


def load(name: str) -> list[dict[str, Any]]:
    return yaml.safe_load((HERE / name).read_text())


def classify(case: dict[str, Any]):
    return classify_http_error(case.get("status"), case.get("headers") or {}, case.get("body"),
                               model="m", transport_error=case.get("transport"))


def matches(case: dict[str, Any]) -> bool:
    e = classify(case)
    if e.kind != case["kind"]:
        return False
    return "retry" not in case or (e.retry_after is not None
                                   and abs(e.retry_after - case["retry"]) < 0.01)


@pytest.mark.parametrize("case", load("tuned.yaml"), ids=lambda c: c["id"])
def test_tuned_cases(case: dict[str, Any]) -> None:
    e = classify(case)
    assert (e.kind, e.retry_after if "retry" in case else None) == \
        (case["kind"], case.get("retry")), e.reason


@pytest.mark.parametrize("case", load("untuned.yaml"), ids=lambda c: c["id"])
def test_untuned_cases(case: dict[str, Any]) -> None:
    e = classify(case)
    assert e.kind == case["kind"], f"{case['id']}: {e.kind} ({e.reason})"
    if "retry" in case:
        assert e.retry_after == pytest.approx(case["retry"])


KNOWN_MISSES_2 = {"anthropic-too-many-images", "google-too-many-tokens-vertex"}
"""untuned2.yaml was measured once (22/24) and not tuned on: these two stay misses."""


@pytest.mark.parametrize("case", load("untuned2.yaml"), ids=lambda c: c["id"])
def test_second_held_out_cases(case: dict[str, Any]) -> None:
    assert matches(case) is (case["id"] not in KNOWN_MISSES_2)


@pytest.mark.parametrize("body", [
    {"error": {"message": "x", "type": "rate_limit_exceeded"}},
    b'{"error": {"message": "x", "type": "rate_limit_exceeded"}}',
    '{"error": {"message": "x", "type": "rate_limit_exceeded"}}',
])
def test_body_as_dict_bytes_or_text(body: Any) -> None:
    e = classify_http_error(429, {"Retry-After": "3"}, body, model="m")
    assert (e.kind, e.retry_after, e.reason, e.model) == ("rate_limit", 3.0,
                                                         "rate_limit_exceeded", "m")
    assert e.headers == {"retry-after": "3"} and e.body and "rate_limit_exceeded" in e.body


def test_retry_after_as_http_date() -> None:
    when = email.utils.formatdate(time.time() + 120, usegmt=True)
    e = classify_http_error(429, {"Retry-After": when}, "slow down", model="m")
    assert e.kind == "rate_limit" and 100 < (e.retry_after or 0) <= 120


def test_header_beats_body_beats_wording() -> None:
    body = {"error": {"status": "RESOURCE_EXHAUSTED", "message": "Please retry in 50s.",
                      "details": [{"retryDelay": "13s"}]}}
    assert classify_http_error(429, {"retry-after-ms": "250"}, body, model="m").retry_after == 0.25
    assert classify_http_error(429, {}, body, model="m").retry_after == 13
    body["error"]["details"] = []
    assert classify_http_error(429, {}, body, model="m").retry_after == 50


@pytest.mark.parametrize("text, seconds", [
    ("13s", 13), ("1.5s", 1.5), ("6m0s", 360), ("20ms", 0.02), ("1h2m3s", 3723), ("7", 7),
    (" 42 ", 42), (3, 3.0),
])
def test_durations(text: Any, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["soon", "13 parsecs", "", "1s later"])
def test_not_durations(text: str) -> None:
    assert parse_duration(text) is None


@pytest.mark.parametrize("text, seconds", [
    ("Please retry after 6 seconds.", 6), ("Please try again in 2.5s.", 2.5),
    ("try again in 20ms", 0.02), ("Retry in 3 minutes", 180), ("retry after 1 hour", 3600),
])
def test_worded_retry(text: str, seconds: float) -> None:
    assert worded_retry_after(text) == pytest.approx(seconds)


@pytest.mark.parametrize("transport, reason", [
    ("[Errno 111] Connection refused", "connection_refused"),
    ("ConnectionResetError: [Errno 104] Connection reset by peer", "connection_reset"),
    ("IncompleteRead(0 bytes read)", "stream_cut"),
    ("TimeoutError: timed out", "stall"),
    ("[Errno -2] Name or service not known", "dns"),
])
def test_transport_failures_are_retriable_timeouts(transport: str, reason: str) -> None:
    e = classify_http_error(None, {}, None, model="m", transport_error=transport)
    assert (e.kind, e.reason, e.status, e.retriable) == ("timeout", reason, None, True)


@pytest.mark.parametrize("message", [
    "Rate limit reached for gpt-4 on tokens per min (TPM): Limit 10000, Requested 12000.",
    "This request would exceed your organization's rate limit of 40,000 input tokens per minute.",
    "have exceeded token rate limit of your current OpenAI S0 pricing tier.",
])
def test_rate_limits_on_tokens_are_not_overflows(message: str) -> None:
    for status in (429, 400):
        kind = classify_http_error(status, {}, {"error": {"message": message}}, model="m").kind
        assert kind != "context_overflow"


def rates() -> dict[str, tuple[int, int]]:
    out = {}
    for name in ("tuned.yaml", "untuned.yaml", "untuned2.yaml"):
        cases = load(name)
        out[name] = (sum(matches(c) for c in cases), len(cases))
    return out


if __name__ == "__main__":
    for name, (ok, n) in rates().items():
        print(f"{name}: {ok}/{n} ({100 * ok / n:.1f}%)")
