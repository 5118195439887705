"""The HTTP answers the proxy gives instead of forwarding, modelled on real providers: OpenAI's
error bodies for 429/401, Anthropic's 529 for overload, vLLM's 400 for a context overflow."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from evals.realmodel.schedule import ProxyRule

_REASONS = {400: "Bad Request", 401: "Unauthorized", 429: "Too Many Requests",
            502: "Bad Gateway", 503: "Service Unavailable", 529: "Site Overloaded"}


@dataclass
class FaultAnswer:
    status: int
    body: dict
    headers: dict[str, str] = field(default_factory=dict)

    def encode(self) -> bytes:
        payload = json.dumps(self.body).encode()
        head = [f"HTTP/1.1 {self.status} {_REASONS.get(self.status, 'Error')}",
                "Content-Type: application/json", f"Content-Length: {len(payload)}",
                "Connection: close", *(f"{k}: {v}" for k, v in self.headers.items())]
        return ("\r\n".join(head) + "\r\n\r\n").encode() + payload


def _error(message: str, type_: str, code: str | None) -> dict:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def _retry_headers(seconds: float | None) -> dict[str, str]:
    if seconds is None:
        return {}
    # Both forms: Retry-After is whole seconds on the wire, retry-after-ms keeps fractions.
    return {"Retry-After": str(max(0, round(seconds))), "retry-after-ms": str(int(seconds * 1000))}


def fault_answer(rule: ProxyRule, model: str, prompt_tokens: int) -> FaultAnswer:
    """The answer for an HTTP fault (every kind but ``stall`` and ``reset``)."""
    kind = rule.kind
    if kind == "rate_limit":
        return FaultAnswer(rule.status or 429, _error(
            f"Rate limit reached for {model}: please try again later.",
            "rate_limit_exceeded", "rate_limit_exceeded"),
            _retry_headers(1.0 if rule.retry_after is None else rule.retry_after))
    if kind == "overloaded":
        status = rule.status or 529
        body = ({"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
                if status == 529 else
                _error("The server is overloaded or not ready yet.", "server_error", "overloaded"))
        return FaultAnswer(status, body, _retry_headers(rule.retry_after))
    if kind == "quota_exceeded":
        return FaultAnswer(rule.status or 429, _error(
            "You exceeded your current quota, please check your plan and billing details.",
            "insufficient_quota", "insufficient_quota"))
    if kind == "auth_error":
        return FaultAnswer(rule.status or 401, _error(
            "Incorrect API key provided.", "invalid_request_error", "invalid_api_key"))
    if kind == "context_overflow":
        requested = max(prompt_tokens, rule.max_context + 1)
        return FaultAnswer(rule.status or 400, _error(
            f"This model's maximum context length is {rule.max_context} tokens. However, you "
            f"requested {requested} tokens ({requested} in the messages, 0 in the completion). "
            "Please reduce the length of the messages or completion.",
            "BadRequestError", None))
    if kind == "bad_request":
        return FaultAnswer(rule.status or 400, _error(
            "Invalid request: the request was rejected by the server.",
            "invalid_request_error", None))
    raise ValueError(f"fault kind {kind!r} has no HTTP answer")


def upstream_error(message: str) -> FaultAnswer:
    return FaultAnswer(502, _error(f"proxy could not reach the upstream: {message}",
                                   "upstream_error", None))
