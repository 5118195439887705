"""Tool execution: every call answered exactly once, controls consulted before and after.

Per turn, the calls are split into waves (``harness.execution.scheduler``: read-only calls in
parallel when ``parallel_tools`` is on, everything else alone and in order). Each wave runs in
three phases so that controls always see calls in the model's order:

1. in order: count the call, replay control (``replay``), ``before_tool`` of every control;
2. together: run the calls that were not answered in phase 1, each under its deadline
   (``deadlines``: ``harness.execution.deadlines``);
3. in order: ``after_tool`` of every control, record for replay, append the tool message.

Whatever happens (timeout, exception, interrupt), each call gets exactly one tool message.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.execution.deadlines import GatedWorkspace, ToolTrace, TurnBudget, run_with_deadline
from harness.execution.replay import ReplayControl
from harness.execution.scheduler import schedule
from harness.messages import Message, ToolCall
from harness.prompts import load_prompt
from harness.state import RunState
from harness.tools import Tool, ToolContext, ToolOutcome

log = subsystem_logger("executor")
NOT_EXECUTED = "[not executed: the run ended]"


class ToolExecutor:
    def __init__(self, config: HarnessConfig, tools: list[Tool], controls: Sequence[Control]) -> None:
        self.config = config
        self.tools = {t.name: t for t in tools}
        self.controls = controls
        self._run_id: str | None = None
        self._budget: TurnBudget | None = None
        self._replay = ReplayControl(config.replay.invalidate_on_write)
        self._trace = ToolTrace()

    def _per_run(self, state: RunState) -> None:
        # One executor serves every run of its agent; budget, replay memory and trace are per run.
        if state.run_id != self._run_id:
            self._run_id = state.run_id
            self._budget = TurnBudget(self.config.deadlines.turn_budget_s)
            self._replay = ReplayControl(self.config.replay.invalidate_on_write)
            self._trace = ToolTrace()

    async def execute(self, state: RunState, calls: list[ToolCall]) -> None:
        """Run ``calls`` and append exactly one tool message per call to ``state.messages``."""
        self._per_run(state)
        cfg = self.config.parallel_tools
        answered = 0
        try:
            for wave in schedule(calls, self.tools, cfg.key_args, parallel=cfg.enabled):
                wave_calls = [calls[i] for i in wave.indices]
                for call, outcome in zip(wave_calls, await self.run_wave(state, wave_calls), strict=True):
                    outcome = await self.after(state, call, outcome)
                    state.messages.append(Message.tool(call, outcome.content, outcome.is_error))
                    answered += 1
        except BaseException:
            # Every call is answered exactly once, even when the run is ending mid-turn.
            for rest in calls[answered:]:
                state.messages.append(Message.tool(rest, NOT_EXECUTED, True))
            raise
        finally:
            self._trace.close_writes([c.id for c in calls])

    async def run_wave(self, state: RunState, calls: list[ToolCall]) -> list[ToolOutcome]:
        """Phases 1 and 2 for one wave: the outcomes before ``after_tool``, in order."""
        early = [await self.before(state, call) for call in calls]
        pending = [c for c, o in zip(calls, early, strict=True) if o is None]
        sem = asyncio.Semaphore(self.config.parallel_tools.max_parallel)

        async def limited(call: ToolCall) -> ToolOutcome:
            async with sem:
                return await self.dispatch(state, call)

        ran = iter(await asyncio.gather(*(limited(c) for c in pending)) if pending else [])
        out = []
        for call, outcome in zip(calls, early, strict=True):
            if outcome is None:
                outcome = next(ran)
                if self.config.replay.enabled:
                    self._replay.record(call, self.tools.get(call.name), outcome)
            out.append(outcome)
        return out

    async def before(self, state: RunState, call: ToolCall) -> ToolOutcome | None:
        state.tool_calls += 1
        if self.config.replay.enabled:
            prior = self._replay.should_skip(call, self.tools.get(call.name))
            if prior is not None:
                state.emit("tool.replay_skipped", tool=call.name, prior_call=prior.call_id)
                text = load_prompt("executor_replay_skipped.md").format(tool=call.name)
                return ToolOutcome("denied", text, {"replay_skipped": True})
        for c in self.controls:
            outcome = await c.before_tool(state, call)
            if outcome is not None:
                state.emit("tool.denied", tool=call.name, by=c.name, reason=outcome.content[:300])
                return outcome
        return None

    async def after(self, state: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        for c in self.controls:
            outcome = await c.after_tool(state, call, outcome)
        return outcome

    async def dispatch(self, state: RunState, call: ToolCall) -> ToolOutcome:
        tool = self.tools.get(call.name)
        if tool is None:
            # Structured and predictable, so the unknown-tool detector can recognise it.
            return ToolOutcome(
                "failure", f"Unknown tool: {call.name!r}. Available: {sorted(self.tools)}",
                {"unknown_tool": True},
            )
        if not self.config.deadlines.enabled:
            ctx = ToolContext(state.workspace, self.config, timeout=self.config.tool_timeout_s)
            return await self.invoke(tool, call, ctx)
        return await self.dispatch_with_deadline(state, tool, call)

    async def dispatch_with_deadline(self, state: RunState, tool: Tool, call: ToolCall) -> ToolOutcome:
        cfg = self.config.deadlines
        assert self._budget is not None
        deadline = self._budget.per_tool_remaining_s(cfg.per_tool_cap_s)
        if deadline <= 0:
            state.emit("tool.deadline_denied", tool=call.name)
            text = load_prompt("executor_budget_spent.md").format(budget=cfg.turn_budget_s)
            return ToolOutcome("denied", text, {"budget_spent": True})
        gate = self._trace.start(call.id)
        ctx = ToolContext(GatedWorkspace(state.workspace, gate), self.config, timeout=deadline)

        def late(task: asyncio.Future[Any]) -> None:
            # The tool finished after its deadline: its result is dropped, never appended.
            if not task.cancelled() and task.exception() is None:
                self._trace.complete_trace(call.id)
                state.emit("tool.late_result_suppressed", tool=call.name, call_id=call.id)

        in_time, result = await run_with_deadline(
            lambda: self.invoke(tool, call, ctx), call.id, deadline + cfg.grace_s, self._trace, late,
        )
        if in_time:
            return result
        state.emit("tool.timeout", tool=call.name, deadline_s=round(deadline, 3))
        text = load_prompt("executor_tool_timeout.md").format(tool=call.name, deadline=round(deadline, 1))
        return ToolOutcome("timeout", text, {"deadline_s": deadline})

    async def invoke(self, tool: Tool, call: ToolCall, ctx: ToolContext) -> ToolOutcome:
        """Run the tool; its exceptions become ``failure`` outcomes (never raised)."""
        try:
            return await tool.run(call.arguments, ctx)
        except (ValueError, TypeError) as e:
            return ToolOutcome("failure", f"Invalid arguments for {call.name}: {e}")
        except Exception as e:
            log.debug("tool %s raised", call.name, exc_info=True)
            return ToolOutcome("failure", f"Tool {call.name} failed: {type(e).__name__}: {e}")
