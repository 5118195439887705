"""The ``Model`` protocol: what the loop needs from any LLM backend.

Backends raise :class:`ProviderError` for every provider-side failure, classified by ``kind`` so
that failover can decide without parsing messages. Anything else they raise is a harness bug.
Backends that see an HTTP answer build it with ``harness.provider_errors.classify_http_error``.
"""

from __future__ import annotations

from typing import Any, Literal, Protocol, runtime_checkable

from pydantic import BaseModel

from harness.messages import Message

FaultKind = Literal[
    "rate_limit", "overloaded", "quota_exceeded", "auth_error", "context_overflow", "bad_request",
    "timeout", "other",
]

RETRIABLE_KINDS: frozenset[str] = frozenset(
    {"rate_limit", "overloaded", "quota_exceeded", "auth_error", "timeout"}
)
"""Kinds for which another auth profile or fallback model may succeed (seed 004)."""


class ProviderError(Exception):
    """A provider-side failure, classified."""

    def __init__(
        self,
        kind: FaultKind,
        message: str,
        *,
        status: int | None = None,
        retry_after: float | None = None,
        model: str | None = None,
        headers: dict[str, str] | None = None,
        body: str | None = None,
        dialect: str | None = None,
        reason: str | None = None,
    ) -> None:
        super().__init__(f"{kind}: {message}")
        self.kind: FaultKind = kind
        self.message = message
        self.status = status
        self.retry_after = retry_after
        self.model = model
        self.headers = headers or {}
        """The response headers, names lower-cased (empty when no HTTP answer came)."""
        self.body = body
        """The response body as text, cut to a few KB (``None`` when there was none)."""
        self.dialect = dialect
        """Which server family answered (openai, azure, anthropic, google, vllm, llamacpp)."""
        self.reason = reason
        """The finer cause the kind was read from (``insufficient_quota``, ``retry hint``,
        ``connection_refused``...), for the event log."""

    @property
    def retriable(self) -> bool:
        return self.kind in RETRIABLE_KINDS


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cached_tokens=self.cached_tokens + other.cached_tokens,
        )


class ModelReply(BaseModel):
    message: Message
    """The assistant message (text, tool calls, optional thoughts)."""
    usage: Usage = Usage()
    model: str = ""
    """The model that actually answered (after any failover)."""
    stop_reason: str = "stop"


class ToolSpec(BaseModel):
    """A tool as offered to the model (JSON-schema parameters)."""

    name: str
    description: str
    parameters: dict[str, Any]


@runtime_checkable
class Model(Protocol):
    """An LLM backend.

    ``generate`` raises :class:`ProviderError` on provider failures (rate limits, quota, context
    overflow...). ``count_tokens`` returns an exact count when the backend has a tokenizer, or
    ``None`` to let the harness estimate.
    """

    name: str

    async def generate(self, messages: list[Message], tools: list[ToolSpec]) -> ModelReply: ...

    async def count_tokens(self, messages: list[Message]) -> int | None: ...
