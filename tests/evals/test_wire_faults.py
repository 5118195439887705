"""Provider faults on the wire: each dialect's answer, classified by the harness's own classifier
from what a client sees (the model relay that plays them to a harness in a container is tested in
``test_model_relay.py``)."""

from __future__ import annotations

import json

import pytest

from evals.adapter import classify_error
from evals.scripted_provider import ScriptedConnectionError, ScriptedFault
from evals.wire_faults import DIALECTS, HTTP_KINDS, TRANSPORT_KINDS, wire_fault


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("kind", HTTP_KINDS)
def test_each_dialect_fault_is_classified_from_the_wire_alone(dialect: str, kind: str) -> None:
    fault = ScriptedFault(wire_fault(kind, dialect, model="m", retry_after=2, n_ctx=1000), "m",
                          {"kind": kind, "dialect": dialect})
    assert not hasattr(fault, "looplab_kind")
    err = classify_error(fault, "m")
    assert err.kind == kind, f"{dialect}/{kind}: {err.kind} ({err.reason})"
    assert err.status == fault.status_code
    if kind == "rate_limit":
        assert err.retry_after == 2.0


def test_retry_hints_travel_as_each_provider_sends_them() -> None:
    assert wire_fault("rate_limit", "openai", retry_after=1.5).headers["retry-after-ms"] == "1500"
    assert "x-ms-retry-after-ms" in wire_fault("rate_limit", "azure", retry_after=3).headers
    anthropic = wire_fault("overloaded", "anthropic", retry_after=3)
    assert anthropic.status == 529 and anthropic.headers["retry-after"] == "3"
    google = wire_fault("rate_limit", "google", retry_after=13)
    assert google.headers == {}
    assert google.body["error"]["details"][-1] == {
        "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}
    assert wire_fault("rate_limit", "openai").headers == {}  # no hint unless the scenario says


def test_context_overflow_names_the_window_in_each_dialect() -> None:
    for dialect in DIALECTS:
        text = json.dumps(wire_fault("context_overflow", dialect, n_ctx=4096, prompt_tokens=5000).body)
        assert "4096" in text and "5000" in text, dialect


def test_bad_names_are_refused() -> None:
    with pytest.raises(ValueError, match="provider dialect 'bedrock'"):
        wire_fault("rate_limit", "bedrock")
    with pytest.raises(ValueError, match="fault kind 'stall' has no HTTP answer"):
        wire_fault("stall")


@pytest.mark.parametrize("kind", TRANSPORT_KINDS)
def test_transport_faults_are_timeouts_with_their_reason(kind: str) -> None:
    err = classify_error(ScriptedConnectionError(kind), "m")
    assert err.kind == "timeout" and err.status is None and err.reason == kind


def test_a_non_provider_exception_is_other() -> None:
    assert classify_error(RuntimeError("no scenario is active"), "m").kind == "other"
