"""The hook surface a control can use. Every hook is optional (the base class does nothing).

Hooks may raise ``RunEnded`` to stop the run with a typed status; any other exception from a
control is a harness bug and ends the run with ``ExitStatus.ERROR``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.messages import ToolCall
from harness.model import ModelReply, ProviderError
from harness.tools.base import ToolOutcome

if TYPE_CHECKING:
    from harness.state import RunState


class Control:
    name: str = "control"

    async def on_run_start(self, run: RunState) -> None:
        """A run begins (its system prompt and task are in ``run.messages``). One control serves
        every run of its agent (a session's runs too): reset per-run state here."""

    async def before_model(self, run: RunState) -> None:
        """Before each model call: may rewrite ``run.messages`` (compaction, context guards)."""

    async def after_reply(self, run: RunState, reply: ModelReply) -> bool:
        """After each reply is appended. Return True to keep the loop going even though the reply
        has no tool calls (e.g. an empty reply was answered with a nudge)."""
        return False

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        """Before a tool runs. Return an outcome (usually ``denied``) to answer the call without
        running the tool."""
        return None

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        """After a tool ran (or was denied): may rewrite what the model will see."""
        return outcome

    async def after_tools(self, run: RunState) -> None:
        """After every call of a turn has been answered: may raise ``RunEnded``."""

    async def on_provider_error(self, run: RunState, error: ProviderError) -> bool:
        """A model call failed. Return True if this control repaired the situation (e.g. compacted
        after a context overflow) and the same call should be retried once more."""
        return False

    async def on_run_end(self, run: RunState, status: str, message: str) -> None:
        """The run is over (any status, also interrupts and harness errors). Must not raise:
        persist, flush, report. Exceptions here are logged and swallowed."""
