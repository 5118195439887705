"""Summarising a run of messages with the run's own model (seed 004 ``compact_history``).

The segment is split by token share (never between a tool call and its result), each chunk is
summarised independently and in parallel, and the partial summaries are merged. Every call carries
the identifier-preservation and must-preserve instructions; a model switch adds the handoff ones.
Failures raise ``SummaryFailed``; the caller decides the fallback (and the timeout).
"""

from __future__ import annotations

import asyncio
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.compaction.render import render_transcript
from harness.compaction.split import split_by_token_share
from harness.messages import Message
from harness.model import Model, ProviderError, Usage
from harness.prompts import load_prompt
from harness.textcut import truncate

CHUNK_SHARE = 0.5
"""A chunk handed to the summariser holds at most this share of the context window, so that the
instructions and the answer still fit."""


_TASK_PROMPTS = {
    "segment": "compaction_segment.md",
    "reset": "reset_handoff.md",
    "tool_output": "tool_output_summary.md",
}


class SummaryFailed(Exception):
    """The summariser could not produce a summary (provider error, empty reply)."""


def summary_instructions(kind: str = "segment", handoff_reason: str | None = None) -> str:
    """The system prompt of a summarisation call, from the prompt files.

    ``kind``: ``segment`` (compaction), ``reset`` (full context reset), ``tool_output``.
    """
    parts = [load_prompt("compaction_identifiers.md")]
    if kind != "tool_output":
        parts.append(load_prompt("compaction_must_preserve.md"))
    if handoff_reason:
        parts.append(load_prompt("handoff.md") + f"\nReason for the handoff: {handoff_reason}")
    parts.append(load_prompt(_TASK_PROMPTS[kind]))
    return "\n\n".join(parts)


@dataclass
class Summarizer:
    """Summarises message segments with ``model``. ``on_usage`` is told of every call's usage so
    the run's token accounting (and budgets) see summarisation too."""

    model: Model
    context_window: int
    tokens_of: Callable[[Message], int]
    min_parts: int = 2
    on_usage: Callable[[Usage], None] | None = None
    calls: int = 0

    async def ask(self, system: str, user: str) -> str:
        """One summarisation call: instructions as the system message, material as the user's."""
        self.calls += 1
        try:
            reply = await self.model.generate([Message.system(system), Message.user(user)], [])
        except ProviderError as e:
            raise SummaryFailed(f"summariser {self.model.name}: {e.kind}: {e.message}") from e
        if self.on_usage is not None:
            self.on_usage(reply.usage)
        text = reply.message.content.strip()
        if not text:
            raise SummaryFailed(f"summariser {self.model.name} returned an empty summary")
        return text

    def chunks(self, messages: Sequence[Message]) -> list[list[Message]]:
        total = sum(self.tokens_of(m) for m in messages)
        parts = max(self.min_parts, math.ceil(total / (CHUNK_SHARE * self.context_window)))
        return split_by_token_share(messages, parts, self.tokens_of)

    async def summarize(
        self, messages: Sequence[Message], *, kind: str = "segment",
        handoff_reason: str | None = None,
    ) -> tuple[str, int]:
        """Summary of ``messages`` and the number of chunks it was made from."""
        system = summary_instructions(kind, handoff_reason)
        # One message never outgrows a chunk: cut it head+tail (in chars, ~4 per token).
        per_message = int(CHUNK_SHARE * self.context_window * 4)
        chunks = self.chunks(messages)
        partials = await asyncio.gather(*(
            self.ask(system, render_transcript(chunk, per_message)) for chunk in chunks
        ))
        if len(partials) == 1:
            return partials[0], 1
        merge = load_prompt("compaction_merge.md") + "\n\n" + "\n\n---\n\n".join(
            f"Part {i + 1}:\n{s}" for i, s in enumerate(partials)
        )
        # The merge keeps the same instructions: a reset briefing stays a structured briefing.
        return await self.ask(system, merge), len(partials)

    async def summarize_text(self, text: str) -> str:
        """Summary of one long text (a tool output), cut head+tail to fit the window first."""
        limit = int(CHUNK_SHARE * self.context_window * 4)
        return await self.ask(summary_instructions("tool_output"), truncate(text, limit))
