"""Model calls with failover (seed 004 ``run_with_model_fallback``).

The router owns the fallback chain. Retriable faults (rate limit, overloaded, quota, auth) move to
the next model; non-retriable ones end the run at once without trying fallbacks; when every model
has failed the run ends with ``FALLBACKS_EXHAUSTED`` (the transcript is saved by the loop).
"""

from __future__ import annotations

import asyncio

from collections.abc import Sequence
from typing import TYPE_CHECKING

from harness.config import FailoverConfig
from harness.messages import Message
from harness.model import Model, ModelReply, ProviderError, ToolSpec
from harness.state import RunState
from harness.status import ExitStatus, RunEnded

if TYPE_CHECKING:
    from harness.controls.base import Control

HANDOFF_NOTE = (
    "[harness] The previous model ({old}) failed with {kind} and is out of service for this run. "
    "You ({new}) are now the orchestrator of this session: continue the task from the "
    "conversation so far; do not redo work that is already done."
)


class ModelRouter:
    def __init__(self, models: list[Model], config: FailoverConfig) -> None:
        if not models:
            raise ValueError("at least one model is required")
        self.models = models if config.enabled else models[:1]
        self.config = config
        self.current = 0

    @property
    def model(self) -> Model:
        return self.models[self.current]

    async def generate(
        self, run: RunState, tools: list[ToolSpec], controls: Sequence[Control] = ()
    ) -> ModelReply:
        attempts = 0
        repaired = 0
        while True:
            model = self.model
            run.model_name = model.name
            run.model_calls += 1
            try:
                return await model.generate(run.messages, tools)
            except ProviderError as e:
                attempts += 1
                run.emit("provider.error", model=model.name, kind=e.kind, status=e.status,
                         message=e.message[:300])
                # A control may repair the cause (e.g. compact after an overflow); the same
                # oversize request is never resent in a loop: one repair per model call.
                if repaired == 0 and await _any_repaired(controls, run, e):
                    repaired += 1
                    continue
                await self._on_error(run, e, attempts)
                if self.model is not model:
                    attempts = 0

    async def _on_error(self, run: RunState, e: ProviderError, attempts: int) -> None:
        if e.kind == "context_overflow":
            raise RunEnded(ExitStatus.CONTEXT_OVERFLOW, e.message)
        if not self.config.enabled or not e.retriable:
            raise RunEnded(ExitStatus.PROVIDER_ERROR, f"{e.kind}: {e.message}")
        if attempts < self.config.max_attempts_per_model:
            await asyncio.sleep(max(self.config.backoff_s, e.retry_after or 0.0))
            return
        if self.current + 1 >= len(self.models):
            raise RunEnded(
                ExitStatus.FALLBACKS_EXHAUSTED,
                f"all models failed: {[m.name for m in self.models]} (last: {e.kind})",
            )
        old = self.model.name
        self.current += 1
        run.emit("failover.switch", old=old, new=self.model.name, kind=e.kind)
        if self.config.handoff_note:
            run.messages.append(Message.user(
                HANDOFF_NOTE.format(old=old, kind=e.kind, new=self.model.name), origin="harness"
            ))


async def _any_repaired(controls: Sequence[Control], run: RunState, e: ProviderError) -> bool:
    for c in controls:
        if await c.on_provider_error(run, e):
            run.emit("provider.repaired", by=c.name, kind=e.kind)
            return True
    return False
