"""Typed endings of a run. Every way a run can end is one of these; nothing ends silently."""

from __future__ import annotations

from enum import StrEnum


class ExitStatus(StrEnum):
    COMPLETED = "completed"
    """The model answered without requesting tools."""
    TURN_LIMIT = "turn_limit"
    """``limits.max_turns`` model turns were used."""
    TOOL_CALL_LIMIT = "tool_call_limit"
    """``limits.max_tool_calls`` tool calls were made."""
    TOKEN_BUDGET = "token_budget"
    """The token budget kill switch fired."""
    CIRCUIT_BREAKER = "circuit_breaker"
    """The global tool-call circuit breaker or a critical loop escalation fired."""
    PROVIDER_ERROR = "provider_error"
    """A non-retriable provider error (e.g. a bad request) ended the run."""
    FALLBACKS_EXHAUSTED = "fallbacks_exhausted"
    """Every model and auth profile failed with a retriable error."""
    CONTEXT_OVERFLOW = "context_overflow"
    """The provider rejected the input as too long and recovery was off or failed."""
    EMPTY_REPLIES = "empty_replies"
    """The model kept returning nothing after the allowed nudges."""
    INTERRUPTED = "interrupted"
    """The run was interrupted from outside."""
    ERROR = "error"
    """An unexpected harness error (a bug); the transcript is still saved."""


class RunEnded(Exception):
    """Raised inside the loop to end the run with a typed status (never escapes ``Agent.run``)."""

    def __init__(self, status: ExitStatus, message: str = "") -> None:
        super().__init__(message or status.value)
        self.status = status
        self.message = message
