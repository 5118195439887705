"""The HTTP answers the proxy gives instead of forwarding: the same wire formats the scripted
provider plays (``evals.wire_faults``), in the dialect the rule names (OpenAI by default)."""

from __future__ import annotations

from evals.realmodel.schedule import ProxyRule
from evals.wire_faults import WireFault, wire_fault

FaultAnswer = WireFault
"""One HTTP answer (status, JSON body, headers) with ``encode()`` for the wire."""


def retry_after_of(rule: ProxyRule) -> float | None:
    """The retry hint the answer carries: a real rate limit always says when to come back."""
    return 1.0 if rule.kind == "rate_limit" and rule.retry_after is None else rule.retry_after


def fault_answer(rule: ProxyRule, model: str, prompt_tokens: int) -> FaultAnswer:
    """The answer for an HTTP fault (every kind but the transport ones)."""
    return wire_fault(rule.kind, rule.dialect, model=model, retry_after=retry_after_of(rule),
                      n_ctx=rule.max_context, prompt_tokens=prompt_tokens, status=rule.status)


def upstream_error(message: str) -> FaultAnswer:
    """The proxy's own answer when the upstream cannot be reached (a gateway's 502)."""
    return WireFault(502, {"error": {"message": f"proxy could not reach the upstream: {message}",
                                     "type": "upstream_error", "param": None, "code": None}})
