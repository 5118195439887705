"""Model calls with auth-profile rotation and model failover (seed 004 "failover").

``ModelRouter(models, config)`` takes a list of models. Entries with the same ``name`` are the
auth profiles (credentials) of one model: a model may expose ``profile_id``; without one the
entry is named ``<model>#<n>``. The distinct names, in order, are the fallback chain.

On a retriable fault (rate limit, overloaded, quota, auth, timeout) the failing profile goes into
a cooldown (per reason, or the provider's ``Retry-After``); the next usable profile of the same
model is tried, then the next model (with a handoff note). When the last model has only cooling
profiles the router waits for the soonest one if it frees within ``max_wait_s``, else the run
ends with ``FALLBACKS_EXHAUSTED`` (the loop keeps the transcript). Non-retriable faults end the
run at once with ``PROVIDER_ERROR``, without trying fallbacks. Before any of that, a control may
repair the cause once per call (``on_provider_error``, e.g. compaction after an overflow).

A retry budget bounds all of it: ``retry_budget_s`` (seconds one model call may spend failing and
waiting) and ``max_failed_attempts``. A wait that would pass the budget is not started; the run
ends with ``FALLBACKS_EXHAUSTED`` and a ``failover.budget_spent`` event, so a dead or refusing
server cannot keep a run retrying forever.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable, Sequence
from typing import TYPE_CHECKING

from harness.auth_profiles import AuthProfile, Clock, ProfilePool
from harness.config import FailoverConfig
from harness.events import subsystem_logger
from harness.messages import Message
from harness.model import Model, ModelReply, ProviderError, ToolSpec
from harness.prompts import load_prompt
from harness.state import RunState
from harness.tool_arguments import screen_reply

if TYPE_CHECKING:
    from harness.controls.base import Control

log = subsystem_logger("failover")

Sleep = Callable[[float], Awaitable[None]]


class ModelRouter:
    def __init__(
        self,
        models: list[Model],
        config: FailoverConfig,
        *,
        clock: Clock = time.monotonic,
        sleep: Sleep = asyncio.sleep,
    ) -> None:
        if not models:
            raise ValueError("at least one model is required")
        self.config = config
        self.models = models if config.enabled else models[:1]
        self.pool = ProfilePool(config, clock)
        self.sleep = sleep
        self.chain: list[str] = []
        self.entries: dict[str, list[tuple[AuthProfile, Model]]] = {}
        for m in self.models:
            if m.name not in self.entries:
                self.chain.append(m.name)
                self.entries[m.name] = []
            same = self.entries[m.name]
            pid = getattr(m, "profile_id", None) or f"{m.name}#{len(same)}"
            if any(p.id == pid for p, _ in same):
                raise ValueError(f"model {m.name!r}: duplicate auth profile id {pid!r}")
            same.append((AuthProfile(id=pid, model=m.name), m))
        self.current = 0
        """Index in ``chain`` of the model in service; it only moves forward within a run."""

    def on_run_start(self, run: RunState) -> None:
        """A new run starts again at the head of the chain (called by the loop)."""
        self.current = 0

    @property
    def model(self) -> Model:
        """The entry that would answer next (the best profile of the model in service)."""
        return self._best(self.chain[self.current])[1]

    def _best(self, name: str) -> tuple[AuthProfile, Model]:
        entries = self.entries[name]
        best = self.pool.order([p for p, _ in entries])[0]
        return next(e for e in entries if e[0] is best)

    async def generate(
        self, run: RunState, tools: list[ToolSpec], controls: Sequence[Control] = ()
    ) -> ModelReply:
        budget = RetryBudget(self.pool.clock)
        profile, model = await self._select(run, None, None, budget)
        attempts = repaired = 0
        while True:
            run.model_name, run.profile_id = model.name, profile.id
            run.model = model
            run.provider = getattr(model, "provider", None) or ""
            run.model_calls += 1
            try:
                reply = await model.generate(run.messages, tools)
            except ProviderError as e:
                run.emit("provider.error", model=model.name, profile=profile.id, kind=e.kind,
                         status=e.status, retry_after=e.retry_after, message=e.message[:300])
                # A control may repair the cause (e.g. compact after an overflow); the same
                # oversize request is never resent in a loop: one repair per model call.
                if repaired == 0 and await _any_repaired(controls, run, e):
                    repaired += 1
                    continue
                self._end_if_final(run, e)
                budget.failed(run, e)
                attempts += 1
                cooldown = self.pool.mark_failure(profile, e.kind, e.retry_after)
                run.emit("auth.cooldown", profile=profile.id, kind=e.kind, seconds=cooldown,
                         failures=profile.consecutive_failures)
                if attempts < self.config.max_attempts_per_model:
                    pause = max(self.config.backoff_s, e.retry_after or 0.0)
                    budget.before_wait(run, pause, e)
                    await self.sleep(pause)
                    continue
                attempts = 0
                profile, model = await self._select(run, e, profile, budget)
                continue
            self.pool.mark_success(profile)
            return screen_reply(reply)  # no model output may break a control or a tool

    def _end_if_final(self, run: RunState, e: ProviderError) -> None:
        if e.kind == "context_overflow":
            run.end("context_overflow", e.message)
        if not self.config.enabled or not e.retriable:
            # Non-retriable: another credential or model would fail the same way.
            run.end("provider_error", f"{e.kind}: {e.message}")

    async def _select(
        self, run: RunState, error: ProviderError | None, failed: AuthProfile | None,
        budget: RetryBudget,
    ) -> tuple[AuthProfile, Model]:
        """The entry to call next: a usable profile of the model in service, else the next
        model in the chain, else (last model) wait for the soonest cooldown or give up."""
        while True:
            name = self.chain[self.current]
            profile, model = self._best(name)
            if not self.pool.is_cooling(profile):
                if failed is not None and profile is not failed and profile.model == failed.model:
                    run.emit("auth.rotate", model=name, old=failed.id, new=profile.id)
                return profile, model
            if self.current + 1 < len(self.chain):
                self._switch(run, error)
                continue
            wait = self.pool.remaining(profile)
            if wait <= self.config.max_wait_s:
                budget.before_wait(run, wait, error)
                run.emit("auth.wait", profile=profile.id, seconds=round(wait, 3))
                await self.sleep(wait)
                return profile, model
            tried = [f"{p.id} ({p.last_error or 'cooling'})" for n in self.chain
                     for p, _ in self.entries[n]]
            run.emit("failover.exhausted", tried=tried)
            run.end("fallbacks", f"all models and auth profiles failed: {tried} "
                                 f"(last: {error.kind if error else 'cooling'})")

    def _switch(self, run: RunState, error: ProviderError | None) -> None:
        old = self.chain[self.current]
        self.current += 1
        new = self.chain[self.current]
        reason = f"failed with {error.kind}" if error else "all its credentials are cooling down"
        log.warning("switching model %s -> %s (%s)", old, new, reason)
        run.emit("failover.switch", old=old, new=new, kind=error.kind if error else "cooldown")
        if self.config.handoff_note:
            run.messages.append(Message.user(
                load_prompt("failover_handoff.md").format(old=old, new=new, reason=reason),
                origin="harness",
            ))


class RetryBudget:
    """The retry budget of one model call: failed attempts and seconds since the call began."""

    def __init__(self, clock: Clock) -> None:
        self.clock = clock
        self.started = clock()
        self.failures = 0

    def elapsed(self) -> float:
        return self.clock() - self.started

    def failed(self, run: RunState, error: ProviderError) -> None:
        """Count a failed attempt; end the run when the attempts or the seconds are spent (the
        ``retry_attempts`` and ``retry_seconds`` rows of the limits table)."""
        self.failures += 1
        if run.reached("retry_attempts", self.failures):
            cap = run.limits["retry_attempts"].cap
            self._spent(run, error, "retry_attempts", f"{self.failures} failed attempts "
                                                      f"(max_failed_attempts {cap:g})")
        if run.reached("retry_seconds", self.elapsed()):
            cap = run.limits["retry_seconds"].cap
            self._spent(run, error, "retry_seconds", f"{self.elapsed():.1f}s of retries (retry_budget_s {cap:g})")

    def before_wait(self, run: RunState, seconds: float, error: ProviderError | None) -> None:
        """A wait is only started when the attempt after it still fits in the budget."""
        cap = run.limits["retry_seconds"].cap
        if cap is not None and self.elapsed() + seconds > cap:
            self._spent(run, error, "retry_seconds", f"the next retry in {seconds:.1f}s would pass "
                                                     f"retry_budget_s {cap:g} ({self.elapsed():.1f}s spent)")

    def _spent(self, run: RunState, error: ProviderError | None, limit: str, why: str) -> None:
        last = f"{error.kind}: {error.message[:300]}" if error else "every profile cooling"
        run.emit("failover.budget_spent", failures=self.failures,
                 seconds=round(self.elapsed(), 3), reason=why, last=last)
        run.end(limit, f"retry budget spent: {why}; last: {last}")


async def _any_repaired(controls: Sequence[Control], run: RunState, e: ProviderError) -> bool:
    for c in controls:
        if await c.on_provider_error(run, e):
            run.emit("provider.repaired", by=c.name, kind=e.kind)
            return True
    return False
