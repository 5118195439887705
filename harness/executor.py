"""Tool execution: every call answered exactly once, controls consulted before and after.

Today calls run in order. This is the seam for the scheduler (read-only calls in parallel,
writes in sequence), per-tool deadlines and late-write suppression.
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.messages import Message, ToolCall
from harness.state import RunState
from harness.tools import Tool, ToolContext, ToolOutcome

log = subsystem_logger("executor")


class ToolExecutor:
    def __init__(self, config: HarnessConfig, tools: list[Tool], controls: Sequence[Control]) -> None:
        self.config = config
        self.tools = {t.name: t for t in tools}
        self.controls = controls

    async def execute(self, state: RunState, calls: list[ToolCall]) -> None:
        """Run ``calls`` and append exactly one tool message per call to ``state.messages``."""
        for i, call in enumerate(calls):
            try:
                outcome = await self.run_tool(state, call)
            except BaseException:
                # Every call is answered exactly once, even when the run is ending mid-turn.
                for rest in calls[i:]:
                    state.messages.append(Message.tool(rest, "[not executed: the run ended]", True))
                raise
            state.messages.append(Message.tool(call, outcome.content, outcome.is_error))

    async def run_tool(self, state: RunState, call: ToolCall) -> ToolOutcome:
        state.tool_calls += 1
        outcome: ToolOutcome | None = None
        for c in self.controls:
            outcome = await c.before_tool(state, call)
            if outcome is not None:
                state.emit("tool.denied", tool=call.name, by=c.name, reason=outcome.content[:300])
                break
        if outcome is None:
            outcome = await self.dispatch(state, call)
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
        ctx = ToolContext(state.workspace, self.config, timeout=self.config.tool_timeout_s)
        try:
            return await tool.run(call.arguments, ctx)
        except (ValueError, TypeError) as e:
            return ToolOutcome("failure", f"Invalid arguments for {call.name}: {e}")
        except Exception as e:
            log.debug("tool %s raised", call.name, exc_info=True)
            return ToolOutcome("failure", f"Tool {call.name} failed: {type(e).__name__}: {e}")
