"""Compaction control: keeps the history inside the context window (seeds 000, 001, 004).

Before each model call it counts the history (exact when the model can, ~4 chars/token
otherwise) and compacts when it exceeds ``threshold`` of the window. On a provider
context-overflow error it compacts even below the threshold and asks the router to retry once; a
second overflow ends the run with ``CONTEXT_OVERFLOW`` (the router allows one repair per call).
A model switch puts the next compaction in handoff mode. When compaction keeps degrading and
``context_reset`` is on, the history is replaced by a structured handoff (seed 004 Ralph loop).

The work itself lives in ``harness.compaction``; this class decides when, and reports.

Source: seed 000 "80% of n_ctx", seed 001 "90% ... last N messages", seed 004 "Chunked summarization with identifier preservation".
"""

from __future__ import annotations

import re

from harness.compaction.compactor import CompactionResult, Compactor
from harness.compaction.reset import context_reset
from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.model import ProviderError, Usage
from harness.state import RunState
from harness.tokens import TokenCounter

_LIMIT_IN_ERROR = re.compile(
    r"(?:maximum context length|context (?:length|window|size)|max(?:imum)? (?:input )?tokens)"
    r"\D{0,40}?(\d[\d,_]{2,})", re.IGNORECASE,
)


def window_from_error(message: str) -> int | None:
    """The context window a provider states in its overflow error ("maximum context length is
    4096 tokens"), if it states one."""
    m = _LIMIT_IN_ERROR.search(message)
    return int(re.sub(r"[,_]", "", m.group(1))) if m else None


class Compaction(Control):
    name = "compaction"

    def __init__(self, config: HarnessConfig) -> None:
        self.cfg = config.compaction
        self.reset_cfg = config.context_reset
        self.window = config.context_window
        self.counter = TokenCounter(use_model=self.cfg.token_counter == "model")
        self.compactor = Compactor(self.cfg, self.counter)
        self.degraded_in_row = 0
        self._last_model: str | None = None

    def threshold_tokens(self) -> int:
        return int(self.cfg.threshold * self.window)

    async def before_model(self, run: RunState) -> None:
        self._watch_model_switch(run)
        tokens = await self.counter.count(run.messages, run.model)
        if tokens > self.threshold_tokens():
            await self.compact(run, reason="threshold")

    async def on_provider_error(self, run: RunState, error: ProviderError) -> bool:
        if error.kind != "context_overflow" or not self.cfg.recover_overflow:
            return False
        stated = window_from_error(error.message)
        if stated and stated < self.window:
            # The provider knows its window better than the config: use it from now on.
            run.emit("context.window_learned", configured=self.window, stated=stated)
            self.window = stated
        result = await self.compact(run, reason="overflow", force=True)
        if result is None:
            return False
        # A context reset may have followed the compaction: what counts is the history sent now.
        return await self.counter.count(run.messages, run.model) < result.before

    async def compact(self, run: RunState, reason: str, force: bool = False) -> CompactionResult | None:
        """Compact ``run.messages`` now. Returns None when nothing could be made smaller."""
        handoff = run.handoff_reason if self.cfg.handoff_on_switch else None
        result = await self.compactor.compact(
            run.messages, run.model, window=self.window, target=self.threshold_tokens(), force=force,
            handoff_reason=handoff, on_usage=lambda u: _count_usage(run, u),
        )
        if result is None:
            run.emit("context.compaction_skipped", reason=reason, messages=len(run.messages))
            return None
        run.messages = result.messages
        if handoff and result.method == "model":
            run.handoff_reason = None
        run.emit(
            "context.compacted", reason=reason, before_tokens=result.before,
            after_tokens=result.after, duration_s=round(result.duration_s, 3),
            method=result.method, fallback_reason=result.reason, chunks=result.chunks,
            compacted_messages=result.compacted, kept_messages=result.kept,
            tail_outputs_cut=result.tail_cut, handoff=bool(handoff),
            restored_identifiers=len(result.verification.missing_identifiers),
            restored_progress=len(result.verification.missing_progress),
        )
        await self._after(run, result)
        return result

    async def _after(self, run: RunState, result: CompactionResult) -> None:
        """Count degraded compactions in a row; reset the context when they pile up."""
        degraded = result.degraded or result.after > self.threshold_tokens() or (
            self.reset_cfg.count_unverified and result.verification.repaired
        )
        self.degraded_in_row = self.degraded_in_row + 1 if degraded else 0
        if not (self.reset_cfg.enabled and self.degraded_in_row >= self.reset_cfg.after_degraded):
            return
        before = result.after
        reset = await context_reset(
            run.messages, run.model, run.workspace, self.cfg,
            window=self.window, tokens_of=self.counter.estimate_message, context_tokens=before,
            handoff_reason=run.handoff_reason if self.cfg.handoff_on_switch else None,
            on_usage=lambda u: _count_usage(run, u),
        )
        run.messages = reset.messages
        self.degraded_in_row = 0
        run.emit("context.reset", path=reset.path, method=reset.method, reason=reset.reason,
                 before_tokens=before, after_tokens=await self.counter.count(run.messages, run.model))

    def _watch_model_switch(self, run: RunState) -> None:
        # Before the first call model_name is empty: the model the loop set is the one in service.
        current = run.model_name or (run.model.name if run.model is not None else "")
        if self._last_model and current and current != self._last_model:
            if run.handoff_reason is None:
                run.request_handoff(f"model switch: {self._last_model} -> {current}")
        self._last_model = current or self._last_model


def _count_usage(run: RunState, usage: Usage) -> None:
    # Summarisation is model work: budgets and token accounting must see it.
    run.usage = run.usage + usage
    run.model_calls += 1
