"""Provider faults as they travel on the wire: status, headers and JSON body per provider dialect.

One definition for every place that plays a fault: the scripted provider (in process), the model
relay that serves a harness in its container and the real-model fault proxy. The bodies
follow each provider's own error format (OpenAI, Azure OpenAI, Anthropic, Google Gemini, vLLM's
OpenAI server, llama.cpp's server), with the retry hints each one sends (``Retry-After``,
``retry-after-ms``, ``x-ratelimit-*``, ``anthropic-ratelimit-*``, Google's ``RetryInfo``).
Transport faults (a reset connection, a stall, a stream cut mid-way) have no HTTP answer: what
a client reports for them is in ``TRANSPORT_ERRORS``.

Standard library only, so that any process can build them (the model relay's eval side,
``evals.harnesses.model_relay``, plays them to a harness in a container).
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

DIALECTS = ("openai", "azure", "anthropic", "google", "vllm", "llamacpp")
HTTP_KINDS = ("rate_limit", "quota_exceeded", "overloaded", "auth_error", "bad_request",
              "context_overflow")
TRANSPORT_KINDS = ("connection_reset", "stall", "stream_cut")

TRANSPORT_ERRORS = {
    "connection_reset": "[Errno 104] Connection reset by peer",
    "stall": "Request timed out: the server accepted the request and sent nothing back",
    "stream_cut": "peer closed connection without sending complete message body (incomplete chunked read)",
}
"""What a Python HTTP client reports when the transport fails that way (httpx / urllib wording)."""

_REASONS = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 429: "Too Many Requests",
            500: "Internal Server Error", 502: "Bad Gateway", 503: "Service Unavailable",
            529: "Site Overloaded"}


@dataclass(frozen=True)
class WireFault:
    """One HTTP error answer exactly as the provider sends it."""

    status: int
    body: dict[str, Any]
    headers: dict[str, str] = field(default_factory=dict)
    dialect: str = "openai"

    def encode(self) -> bytes:
        """The whole HTTP/1.1 response (one answer per connection)."""
        payload = json.dumps(self.body).encode()
        head = [f"HTTP/1.1 {self.status} {_REASONS.get(self.status, 'Error')}",
                "Content-Type: application/json", f"Content-Length: {len(payload)}",
                "Connection: close", *(f"{k}: {v}" for k, v in self.headers.items())]
        return ("\r\n".join(head) + "\r\n\r\n").encode() + payload

    def message(self) -> str:
        """The error's human text, wherever the dialect puts it."""
        err = self.body.get("error", self.body)
        text = err.get("message") if isinstance(err, dict) else None
        return text if isinstance(text, str) else json.dumps(self.body)


def wire_fault(kind: str, dialect: str = "openai", *, model: str = "model",
               retry_after: float | None = None, n_ctx: int = 16_384,
               prompt_tokens: int | None = None, status: int | None = None) -> WireFault:
    """The answer a ``dialect`` server gives for fault ``kind``. ``retry_after`` (seconds) is
    sent the way that provider sends it; ``status`` overrides the provider's usual status."""
    if dialect not in DIALECTS:
        raise ValueError(f"provider dialect {dialect!r}: expected one of {', '.join(DIALECTS)}")
    if kind not in HTTP_KINDS:
        raise ValueError(f"fault kind {kind!r} has no HTTP answer (HTTP kinds: {', '.join(HTTP_KINDS)})")
    requested = max(prompt_tokens or 0, n_ctx + 1)
    code, body = _BUILDERS[dialect](kind, model, retry_after, n_ctx, requested)
    headers = _headers(dialect, kind, retry_after)
    return WireFault(status or code, body, headers, dialect)


def _headers(dialect: str, kind: str, retry_after: float | None) -> dict[str, str]:
    """Retry headers as each provider sends them (Google sends none: its hint is in the body)."""
    if retry_after is None or kind not in ("rate_limit", "overloaded") or dialect == "google":
        return {}
    seconds = str(max(0, math.ceil(retry_after)))  # whole seconds, never shorter than asked
    ms = str(int(retry_after * 1000))
    if dialect == "anthropic":
        reset = datetime.now(UTC) + timedelta(seconds=retry_after)
        return {"retry-after": seconds, "anthropic-ratelimit-requests-remaining": "0",
                "anthropic-ratelimit-requests-reset": reset.strftime("%Y-%m-%dT%H:%M:%SZ")}
    if dialect == "azure":
        return {"retry-after": seconds, "retry-after-ms": ms, "x-ms-retry-after-ms": ms,
                "x-ms-region": "East US"}
    if dialect == "openai":
        return {"retry-after": seconds, "retry-after-ms": ms,
                "x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": f"{ms}ms"}
    return {"retry-after": seconds}


def _wait_words(retry_after: float | None) -> str:
    return "Please try again later." if retry_after is None else \
        f"Please try again in {retry_after:g}s."


def _openai_error(message: str, type_: str, code: str | None, param: str | None = None) -> dict:
    return {"error": {"message": message, "type": type_, "param": param, "code": code}}


def _openai(kind: str, model: str, ra: float | None, n_ctx: int, req: int) -> tuple[int, dict]:
    if kind == "rate_limit":
        return 429, _openai_error(
            f"Rate limit reached for {model} in organization org-looplab on requests per min "
            f"(RPM): Limit 3, Used 3, Requested 1. {_wait_words(ra)} Visit "
            "https://platform.openai.com/account/rate-limits to learn more.",
            "requests", "rate_limit_exceeded")
    if kind == "quota_exceeded":
        return 429, _openai_error(
            "You exceeded your current quota, please check your plan and billing details. For "
            "more information on this error, read the docs: "
            "https://platform.openai.com/docs/guides/error-codes/api-errors.",
            "insufficient_quota", "insufficient_quota")
    if kind == "overloaded":
        return 503, _openai_error("The engine is currently overloaded, please try again later.",
                                  "server_error", None)
    if kind == "auth_error":
        return 401, _openai_error(
            "Incorrect API key provided: sk-proj-****. You can find your API key at "
            "https://platform.openai.com/account/api-keys.", "invalid_request_error",
            "invalid_api_key")
    if kind == "context_overflow":
        return 400, _openai_error(
            f"This model's maximum context length is {n_ctx} tokens. However, your messages "
            f"resulted in {req} tokens. Please reduce the length of the messages.",
            "invalid_request_error", "context_length_exceeded", "messages")
    return 400, _openai_error("Invalid value for 'messages': the request is malformed.",
                              "invalid_request_error", None, "messages")


def _azure(kind: str, model: str, ra: float | None, n_ctx: int, req: int) -> tuple[int, dict]:
    if kind == "rate_limit":
        wait = "Please retry after a short while" if ra is None else \
            f"Please retry after {max(1, math.ceil(ra))} seconds"
        return 429, {"error": {"code": "429", "message": (
            "Requests to the ChatCompletions_Create Operation under Azure OpenAI API version "
            f"2024-10-21 have exceeded token rate limit of your current OpenAI S0 pricing tier. "
            f"{wait}. Please go here: https://aka.ms/oai/quotaincrease if you would like to "
            "further increase the default rate limit.")}}
    if kind == "quota_exceeded":
        return 429, {"error": {"code": "InsufficientQuota", "message": (
            "The subscription has exhausted its quota for this deployment; check the quota and "
            "billing of the Azure OpenAI resource.")}}
    if kind == "overloaded":
        return 503, {"error": {"code": "ServiceUnavailable", "message": (
            "The service is temporarily unable to process your request. Please try again later.")}}
    if kind == "auth_error":
        return 401, {"error": {"code": "401", "message": (
            "Access denied due to invalid subscription key or wrong API endpoint. Make sure to "
            "provide a valid key for an active subscription and use a correct regional API "
            "endpoint for your resource.")}}
    if kind == "context_overflow":
        body = _openai_error(
            f"This model's maximum context length is {n_ctx} tokens. However, your messages "
            f"resulted in {req} tokens. Please reduce the length of the messages.",
            "invalid_request_error", "context_length_exceeded", "messages")
        body["error"]["status"] = 400
        return 400, body
    return 400, _openai_error("Invalid request: the request body is malformed.",
                              "invalid_request_error", None)


def _anthropic_error(type_: str, message: str) -> dict:
    return {"type": "error", "error": {"type": type_, "message": message},
            "request_id": "req_looplab"}


def _anthropic(kind: str, model: str, ra: float | None, n_ctx: int, req: int) -> tuple[int, dict]:
    if kind == "rate_limit":
        return 429, _anthropic_error("rate_limit_error", (
            "This request would exceed the rate limit for your organization of 50 requests per "
            "minute. For details, refer to: https://docs.claude.com/en/api/rate-limits. You can "
            "see the response headers for current usage."))
    if kind == "quota_exceeded":
        return 400, _anthropic_error("invalid_request_error", (
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & "
            "Billing to upgrade or purchase credits."))
    if kind == "overloaded":
        return 529, _anthropic_error("overloaded_error", "Overloaded")
    if kind == "auth_error":
        return 401, _anthropic_error("authentication_error", "invalid x-api-key")
    if kind == "context_overflow":
        return 400, _anthropic_error("invalid_request_error",
                                     f"prompt is too long: {req} tokens > {n_ctx} maximum")
    return 400, _anthropic_error("invalid_request_error",
                                 "messages.1: roles must alternate between \"user\" and \"assistant\"")


def _google_error(code: int, status: str, message: str, details: list | None = None) -> dict:
    err: dict[str, Any] = {"code": code, "message": message, "status": status}
    if details:
        err["details"] = details
    return {"error": err}


def _quota_failure(quota_id: str) -> dict:
    return {"@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{
        "quotaMetric": "generativelanguage.googleapis.com/generate_content_requests",
        "quotaId": quota_id, "quotaDimensions": {"location": "global", "model": "gemini"},
        "quotaValue": "10"}]}


def _google(kind: str, model: str, ra: float | None, n_ctx: int, req: int) -> tuple[int, dict]:
    help_link = {"@type": "type.googleapis.com/google.rpc.Help", "links": [{
        "description": "Learn more about Gemini API quotas",
        "url": "https://ai.google.dev/gemini-api/docs/rate-limits"}]}
    if kind == "rate_limit":
        # Gemini words a per-minute limit as a quota and always says when to retry.
        delay = 1.0 if ra is None else ra
        details = [help_link, _quota_failure("GenerateRequestsPerMinutePerProjectPerModel"),
                   {"@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": f"{delay:g}s"}]
        return 429, _google_error(429, "RESOURCE_EXHAUSTED", (
            "You exceeded your current quota, please check your plan and billing details. "
            f"Please retry in {delay:g}s."), details)
    if kind == "quota_exceeded":
        return 429, _google_error(429, "RESOURCE_EXHAUSTED", (
            "You exceeded your current quota, please check your plan and billing details."),
            [help_link, _quota_failure("GenerateRequestsPerDayPerProjectPerModel")])
    if kind == "overloaded":
        return 503, _google_error(503, "UNAVAILABLE",
                                  "The model is overloaded. Please try again later.")
    if kind == "auth_error":
        return 403, _google_error(403, "PERMISSION_DENIED", (
            "Method doesn't allow unregistered callers (callers without established identity). "
            "Please use API Key or other form of API consumer identity to call this API."))
    if kind == "context_overflow":
        return 400, _google_error(400, "INVALID_ARGUMENT", (
            f"The input token count ({req}) exceeds the maximum number of tokens allowed ({n_ctx})."))
    return 400, _google_error(400, "INVALID_ARGUMENT", "Request contains an invalid argument.")


def _vllm_error(message: str, type_: str, code: int) -> dict:
    return {"error": {"message": message, "type": type_, "param": None, "code": code}}


def _vllm(kind: str, model: str, ra: float | None, n_ctx: int, req: int) -> tuple[int, dict]:
    # vLLM itself never rate-limits or checks keys beyond --api-key: these are the answers of
    # its OpenAI server (and of the gateway in front of it) in vLLM's own envelope.
    if kind == "rate_limit":
        return 429, _vllm_error(f"Too many requests. {_wait_words(ra)}", "TooManyRequests", 429)
    if kind == "quota_exceeded":
        return 429, _vllm_error("Token quota exceeded for this API key: the daily budget is spent.",
                                "QuotaExceeded", 429)
    if kind == "overloaded":
        return 503, _vllm_error("The server is overloaded or not ready yet.",
                                "ServiceUnavailableError", 503)
    if kind == "auth_error":
        return 401, {"error": "Unauthorized"}
    if kind == "context_overflow":
        return 400, _vllm_error(
            f"This model's maximum context length is {n_ctx} tokens. However, you requested "
            f"{req} tokens ({req} in the messages, 0 in the completion). Please reduce the "
            "length of the messages or completion.", "BadRequestError", 400)
    return 400, _vllm_error("1 validation error for ChatCompletionRequest: messages field "
                            "required", "BadRequestError", 400)


def _llamacpp_error(code: int, message: str, type_: str, **extra: Any) -> dict:
    return {"error": {"code": code, "message": message, "type": type_, **extra}}


def _llamacpp(kind: str, model: str, ra: float | None, n_ctx: int, req: int) -> tuple[int, dict]:
    if kind == "rate_limit":
        return 429, _llamacpp_error(429, f"Too many requests. {_wait_words(ra)}",
                                    "rate_limit_error")
    if kind == "quota_exceeded":
        return 429, _llamacpp_error(429, "Usage quota exceeded for this key.", "quota_exceeded")
    if kind == "overloaded":
        return 503, _llamacpp_error(503, "Loading model", "unavailable_error")
    if kind == "auth_error":
        return 401, _llamacpp_error(401, "Invalid API Key", "authentication_error")
    if kind == "context_overflow":
        return 400, _llamacpp_error(400, "the request exceeds the available context size, try "
                                    "increasing it", "exceed_context_size_error",
                                    n_prompt_tokens=req, n_ctx=n_ctx)
    return 400, _llamacpp_error(400, "Failed to parse messages: invalid request",
                                "invalid_request_error")


_BUILDERS = {"openai": _openai, "azure": _azure, "anthropic": _anthropic, "google": _google,
             "vllm": _vllm, "llamacpp": _llamacpp}


def cut_stream(model: str = "model") -> bytes:
    """The head and first event of a streamed chat completion, after which the server goes
    away: what a client sees when a stream is cut mid-way (no ``[DONE]``, no final chunk)."""
    chunk = {"id": "chatcmpl-looplab", "object": "chat.completion.chunk", "model": model,
             "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Let me"},
                          "finish_reason": None}]}
    event = f"data: {json.dumps(chunk)}\n\n".encode()
    head = (b"HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n"
            b"Connection: close\r\n\r\n")
    return head + f"{len(event):X}\r\n".encode() + event + b"\r\n"
