"""Conversation history: the only data the loop, the controls and the model exchange.

The shape follows the OpenAI chat format (system / user / assistant with tool calls / tool results)
because every provider we drive speaks it, and the mapping to inspect's ChatMessage is one-to-one.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, Field

Role = Literal["system", "user", "assistant", "tool"]


class ToolCall(BaseModel):
    """One tool invocation requested by the model. What a model sends is screened once, when
    the reply arrives (``harness.tool_arguments.screen_reply``, called by the router)."""

    id: str
    """Provider-assigned id; the matching tool message carries it as ``tool_call_id``."""
    name: str
    """Tool name as the model spelled it (it may not exist: hallucinated tools are real)."""
    arguments: dict[str, Any] = Field(default_factory=dict)
    """Parsed JSON arguments."""


class Message(BaseModel):
    """One chat message."""

    role: Role
    content: str = ""
    """Visible text (for tool messages: the tool's output as the model sees it)."""
    tool_calls: list[ToolCall] = Field(default_factory=list)
    """Assistant only: the calls requested in this reply."""
    tool_call_id: str | None = None
    """Tool only: the id of the call this message answers."""
    name: str | None = None
    """Tool only: the tool's name."""
    is_error: bool = False
    """Tool only: the call failed, was denied or timed out."""
    thoughts: str | None = None
    """Assistant only: hidden reasoning, if the provider returns it separately."""
    origin: str | None = None
    """Who wrote the message when it is not the user or the model: e.g. ``"harness"`` for
    interventions and nudges, ``"compaction"`` for summaries. Kept for auditing."""

    @classmethod
    def system(cls, text: str) -> Message:
        return cls(role="system", content=text)

    @classmethod
    def user(cls, text: str, origin: str | None = None) -> Message:
        return cls(role="user", content=text, origin=origin)

    @classmethod
    def tool(cls, call: ToolCall, content: str, is_error: bool = False) -> Message:
        return cls(
            role="tool", content=content, tool_call_id=call.id, name=call.name, is_error=is_error
        )


def estimate_tokens(messages: list[Message]) -> int:
    """Cheap token estimate (~4 characters per token), used when the model offers no counter."""
    chars = 0
    for m in messages:
        chars += len(m.content) + len(m.thoughts or "") + 16
        for c in m.tool_calls:
            chars += len(c.name) + approx_chars(c.arguments) + 16
    return chars // 4


def unpaired_tool_messages(messages: list[Message]) -> str | None:
    """Why ``messages`` is not a valid tool-call sequence (a result without its call, or calls
    left unanswered before the next turn), or None when every call has exactly one result.
    Providers reject anything else, so a harness must never send it."""
    pending: set[str] = set()
    for m in messages:
        if m.role == "tool":
            if m.tool_call_id not in pending:
                return f"orphan tool result {m.tool_call_id}"
            pending.discard(m.tool_call_id or "")
        else:
            if pending:
                return f"unanswered calls {sorted(pending)} before a {m.role} message"
            if m.role == "assistant":
                pending = {c.id for c in m.tool_calls}
    return f"unanswered calls {sorted(pending)} at the end" if pending else None


def approx_chars(value: Any, cap: int = 10_000_000) -> int:
    """About how many characters ``value`` takes as JSON, without ``str`` or recursion (which
    a huge integer or deep nesting would break), counting at most ``cap``."""
    total, stack = 0, [value]
    while stack and total < cap:
        v = stack.pop()
        if isinstance(v, str):
            total += len(v) + 2
        elif isinstance(v, dict):
            total += 2 + sum(len(str(k)) + 4 for k in v)
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            total += 2 + len(v)
            stack.extend(v)
        elif isinstance(v, int) and not isinstance(v, bool):
            total += v.bit_length() * 3 // 10 + 1
        else:
            total += 5
    return min(total, cap)
