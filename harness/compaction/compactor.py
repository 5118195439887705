"""One compaction of a history: keep the head and the tail, replace the middle by a summary.

Seed 004's ``compact_history`` with its safety rails: the summary call is bounded by a timeout
(``120 s + context_tokens / 1000``) and falls back to a mechanical digest instead of hanging;
identifiers and batch progress lost by the summariser are restored verbatim; when the result is
still too large, long tool outputs in the kept tail are cut head+tail (seed 000's step 3).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from harness.compaction.identifiers import Verification, verify_summary
from harness.compaction.render import mechanical_summary, render_message
from harness.compaction.split import Plan, plan_compaction
from harness.compaction.summarize import Summarizer, SummaryFailed
from harness.config import CompactionConfig
from harness.messages import Message
from harness.model import Model, Usage
from harness.textcut import truncate
from harness.tokens import TokenCounter

COMPACTED_PREFIX = "[COMPACTED CONTEXT]"
SUMMARY_MAX_SHARE = 0.25
"""A summary never takes more than this share of the context window (a verbose summariser is cut
head+tail): compaction must leave room for the work."""


@dataclass
class CompactionResult:
    messages: list[Message]
    before: int
    after: int
    method: str
    """``model`` (summarised), ``mechanical`` (configured), ``fallback`` (the model failed or
    timed out, a mechanical digest was used), ``tail_only`` (only the kept tail was cut)."""
    reason: str = ""
    """Why the fallback was used (``compaction_timeout``, the summariser's error)."""
    compacted: int = 0
    kept: int = 0
    chunks: int = 0
    tail_cut: int = 0
    duration_s: float = 0.0
    verification: Verification = field(default_factory=Verification)

    @property
    def degraded(self) -> bool:
        """The summariser failed: what replaced the middle is only a digest."""
        return self.method == "fallback"


def compaction_timeout(cfg: CompactionConfig, context_tokens: int) -> float:
    """Seed 004: larger sessions get longer to summarise, within a cap."""
    return cfg.timeout_base_s + min(context_tokens, cfg.timeout_token_cap) / 1000 * cfg.timeout_per_ktoken_s


class Compactor:
    def __init__(self, cfg: CompactionConfig, counter: TokenCounter) -> None:
        self.cfg = cfg
        self.counter = counter

    def plan(self, messages: Sequence[Message], force: bool) -> Plan:
        plan = plan_compaction(messages, self.cfg.keep_last, self.cfg.keep_task_message)
        keep = self.cfg.keep_last
        while force and not plan.middle and keep > 0:  # forced: give up tail messages first
            keep -= 1
            plan = plan_compaction(messages, keep, self.cfg.keep_task_message)
        return plan

    async def compact(
        self,
        messages: Sequence[Message],
        model: Model | None,
        *,
        window: int,
        target: int,
        force: bool = False,
        handoff_reason: str | None = None,
        on_usage: Callable[[Usage], None] | None = None,
    ) -> CompactionResult | None:
        """The compacted history, or None when there is nothing that could be made smaller."""
        t0 = time.monotonic()
        before = await self.counter.count(messages, model)
        plan = self.plan(messages, force)
        result = CompactionResult(list(messages), before, before, "tail_only", kept=len(plan.tail))
        if plan.middle:
            text = await self._summary(plan.middle, model, window, before, handoff_reason,
                                       on_usage, result)
            result.verification = verify_summary(
                text, [render_message(m, 10**9) for m in plan.middle],
                identifiers=self.cfg.verify_identifiers, progress=self.cfg.preserve_progress,
                max_identifiers=self.cfg.max_preserved_identifiers,
            )
            body = f"{COMPACTED_PREFIX}\n\n{text}"
            if result.verification.block:
                body += "\n\n" + result.verification.block
            summary = Message.user(body, origin="compaction")
            result.messages = [*plan.head, summary, *plan.tail]
            result.compacted = len(plan.middle)
        result.after = await self.counter.count(result.messages, model)
        if result.after > target:
            result.messages, result.tail_cut = self._cut_tail(result.messages, len(plan.tail))
            if result.tail_cut:
                result.after = await self.counter.count(result.messages, model)
        result.duration_s = time.monotonic() - t0
        if not plan.middle and not result.tail_cut:
            return None
        return result

    async def _summary(
        self, middle: list[Message], model: Model | None, window: int, context_tokens: int,
        handoff_reason: str | None, on_usage: Callable[[Usage], None] | None,
        result: CompactionResult,
    ) -> str:
        digest_chars = max(2_000, int(0.15 * window * 4))
        if self.cfg.strategy == "mechanical" or model is None:
            result.method = "mechanical"
            return mechanical_summary(middle, digest_chars)
        summarizer = Summarizer(model, window, self.counter.estimate_message,
                                min_parts=self.cfg.chunk_parts, on_usage=on_usage)
        timeout = compaction_timeout(self.cfg, context_tokens)
        try:
            text, result.chunks = await asyncio.wait_for(
                summarizer.summarize(middle, handoff_reason=handoff_reason), timeout
            )
        except TimeoutError:
            result.method, result.reason = "fallback", f"compaction_timeout after {timeout:.1f}s"
        except SummaryFailed as e:
            result.method, result.reason = "fallback", str(e)
        else:
            result.method = "model"
            return truncate(text, int(SUMMARY_MAX_SHARE * window * 4))
        note = f"(the summariser failed: {result.reason}; this is a mechanical digest)\n"
        return note + mechanical_summary(middle, digest_chars)

    def _cut_tail(self, messages: list[Message], tail_len: int) -> tuple[list[Message], int]:
        """Cut long tool outputs among the last ``tail_len`` messages to ``tail_truncate_chars``."""
        limit, out, cut = self.cfg.tail_truncate_chars, list(messages), 0
        for i in range(len(out) - tail_len, len(out)):
            m = out[i]
            if m.role == "tool" and len(m.content) > limit:
                out[i] = m.model_copy(update={"content": truncate(m.content, limit)})
                cut += 1
        return out, cut
