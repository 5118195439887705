"""Where to cut a history, without ever separating a tool call from its result (seed 004 rule 1).

An assistant message with tool calls and the tool messages answering it form one *group*; every
cut (the kept tail, the chunks handed to the summariser) falls between groups, so no tool message
is orphaned and no assistant tool-call message loses its results.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.messages import Message


def safe_cut(messages: Sequence[Message], index: int) -> bool:
    """True when cutting before ``messages[index]`` keeps every tool call with its results."""
    if index <= 0 or index >= len(messages):
        return True
    pending: set[str] = set()
    for m in messages[:index]:
        if m.role == "assistant":
            pending = {c.id for c in m.tool_calls}
        elif m.role == "tool" and m.tool_call_id in pending:
            pending.discard(m.tool_call_id)
    return not pending and messages[index].role != "tool"


def tail_start(messages: Sequence[Message], keep_last: int, floor: int = 0) -> int:
    """Index where the kept tail starts: the last ``keep_last`` messages, moved earlier until the
    cut is pair-safe (a tool message's assistant call is kept with it). Never below ``floor``."""
    start = max(floor, len(messages) - keep_last)
    while start > floor and not safe_cut(messages, start):
        start -= 1
    return start


@dataclass(frozen=True)
class Plan:
    """A history cut in three: ``head`` kept verbatim, ``middle`` compacted, ``tail`` kept."""

    head: list[Message]
    middle: list[Message]
    tail: list[Message]


def plan_compaction(messages: Sequence[Message], keep_last: int, pin_task: bool = False) -> Plan:
    """Keep the system prompt (and the task message when ``pin_task``) and the last ``keep_last``
    messages; everything between is the middle to compact."""
    head_end = 1 if messages and messages[0].role == "system" else 0
    if pin_task and head_end < len(messages) and messages[head_end].role == "user":
        head_end += 1
    start = tail_start(messages, keep_last, floor=head_end)
    return Plan(list(messages[:head_end]), list(messages[head_end:start]), list(messages[start:]))


def split_by_token_share(
    messages: Sequence[Message], parts: int, tokens_of: Callable[[Message], int]
) -> list[list[Message]]:
    """Split into about ``parts`` chunks of similar token share (seed 004
    ``split_by_token_share``); a chunk only ends where no tool call is awaiting its result."""
    if parts <= 1 or len(messages) <= 1:
        return [list(messages)] if messages else []
    sizes = [tokens_of(m) for m in messages]
    target = sum(sizes) / parts
    chunks: list[list[Message]] = []
    current: list[Message] = []
    current_tokens = 0
    pending: set[str] = set()
    for m, size in zip(messages, sizes, strict=True):
        if not pending and current and current_tokens + size > target and m.role != "tool":
            chunks.append(current)
            current, current_tokens = [], 0
        current.append(m)
        current_tokens += size
        if m.role == "assistant":
            pending = {c.id for c in m.tool_calls}
        elif m.role == "tool":
            pending.discard(m.tool_call_id or "")
    if current:
        chunks.append(current)
    return chunks
