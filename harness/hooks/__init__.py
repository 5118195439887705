"""The hook runner (seed 004 "Hooks", seed 002 stop and post-turn hooks), as one Control.

Hooks turn rules into enforcement. Four events:

- ``before_tool_call(call, run) -> HookResult | None``: may block the call; the first block wins.
- ``after_tool_call(call, outcome, run) -> str | None``: extra text appended to the tool result
  (linter output, test results). Success is silent: return ``None``.
- ``stop(run) -> StopRequest | None``: between iterations (before each model call): budget caps,
  kill switches.
- ``post_turn(run, status, message) -> None``: after the run; exceptions are logged and
  swallowed, they never break the turn.

Handlers may be plain or ``async`` functions. Other controls (e.g. a destructive-command
blocker) can ``register`` into a runner; ``build_hook_runner`` adds the built-in hooks.

Source: seed 004, "Hooks are ... the mechanism that converts AGENTS.md rules into actual enforcement"; seed 002 stop and post-turn hooks.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.messages import ToolCall
from harness.state import RunState
from harness.status import ExitStatus
from harness.tools.base import ToolOutcome

log = subsystem_logger("hooks")

EVENTS = ("before_tool_call", "after_tool_call", "stop", "post_turn")


@dataclass(frozen=True)
class HookResult:
    blocked: bool = False
    reason: str = ""
    """What the model sees when the call is blocked: what failed and how to fix it."""


@dataclass(frozen=True)
class StopRequest:
    status: ExitStatus
    reason: str
    limit: str | None = None
    """The row of the limits table (``harness.state.run_limits``) this stop is; None: the first
    row with ``status`` (a hook of one's own)."""


Handler = Callable[..., Any]
"""Any hook; the aliases below spell out each event's signature (plain or async)."""
BeforeToolHook = Callable[[ToolCall, RunState], Awaitable[HookResult | None]]
AfterToolHook = Callable[[ToolCall, ToolOutcome, RunState], Awaitable[str | None]]
StopHook = Callable[[RunState], Awaitable[StopRequest | None] | StopRequest | None]
PostTurnHook = Callable[[RunState, str, str], Awaitable[None]]


def hook_name(handler: Handler) -> str:
    return str(getattr(handler, "__name__", repr(handler)))


async def _call(handler: Handler, *args: Any) -> Any:
    out = handler(*args)
    return await out if inspect.isawaitable(out) else out


class HookRunner(Control):
    name = "hooks"

    def __init__(self) -> None:
        self._hooks: dict[str, list[Handler]] = {e: [] for e in EVENTS}

    def register(self, event: str, handler: Handler) -> Handler:
        if event not in self._hooks:
            raise ValueError(f"unknown hook event {event!r}; valid: {', '.join(EVENTS)}")
        self._hooks[event].append(handler)
        return handler

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        for h in self._hooks["before_tool_call"]:
            try:
                result = await _call(h, call, run)
            except Exception as e:  # a broken gate fails closed: the call is not run
                log.exception("before_tool_call hook %s failed", hook_name(h))
                result = HookResult(True, f"Blocked: the {hook_name(h)} check failed ({e}).")
            if result is not None and result.blocked:
                run.emit("hooks.blocked", hook=hook_name(h), tool=call.name,
                         reason=result.reason[:300])
                return ToolOutcome("denied", result.reason, {"blocked_by": hook_name(h)})
        return None

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        extras: list[str] = []
        for h in self._hooks["after_tool_call"]:
            try:
                extra = await _call(h, call, outcome, run)
            except Exception:  # a broken sensor must not break the tool call
                log.exception("after_tool_call hook %s failed", hook_name(h))
                continue
            if extra:
                run.emit("hooks.feedback", hook=hook_name(h), tool=call.name, chars=len(extra))
                extras.append(extra)
        if not extras:
            return outcome
        return outcome.with_content("\n\n".join([outcome.content, *extras]),
                                    hook_feedback=len(extras))

    async def before_model(self, run: RunState) -> None:
        for h in self._hooks["stop"]:
            try:
                request = await _call(h, run)
            except Exception:
                log.exception("stop hook %s failed", hook_name(h))
                continue
            if request is not None:
                run.emit("hooks.stop", hook=hook_name(h), status=request.status.value,
                         reason=request.reason)
                # Through the limits table: a kill switch and a cost cap are run-ending limits.
                limit = request.limit or next(
                    (row.name for row in run.limits.values() if row.status is request.status),
                    f"hooks.{hook_name(h)}")  # a status no row has (completed): the hook's own
                run.end(limit, request.reason, request.status)

    async def on_run_end(self, run: RunState, status: str, message: str) -> None:
        for h in self._hooks["post_turn"]:
            try:
                await _call(h, run, status, message)
            except Exception as e:  # post-turn hooks never break the turn
                log.exception("post_turn hook %s failed", hook_name(h))
                run.emit("hooks.post_turn_failed", hook=hook_name(h), error=str(e)[:300])


__all__ = [
    "EVENTS", "AfterToolHook", "BeforeToolHook", "HookResult", "HookRunner", "PostTurnHook",
    "StopHook", "StopRequest", "hook_name",
]
