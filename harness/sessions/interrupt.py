"""Interrupts: the fence every checkpoint looks at (seed 002), the real kill (seed 001), and the
relay that carries an interrupt from outside: a file another process creates.

* :class:`InterruptFence` is a flag shared by a run and anything it spawns. :class:`FenceControl`
  checks it at every checkpoint (before a model call, before a tool, after a turn's tools), so a
  flipped fence ends the run within one step even when nothing is killed.
* The real kill is ``Agent.interrupt()``: the running step is cancelled and a running command's
  process group is killed. ``Session.interrupt()`` uses it when ``interrupt.enabled`` is on.
* :class:`InterruptRelay` watches for a file and interrupts when it appears (seed 001's Redis
  relay, with a file in place of the channel).
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Protocol

from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.messages import ToolCall
from harness.sessions.transcript import validate_session_id
from harness.state import RunState
from harness.tools.base import ToolOutcome

log = subsystem_logger("sessions.interrupt")

NOT_EXECUTED = "[not executed: the run was interrupted]"


class Interruptible(Protocol):
    def interrupt(self) -> object: ...


class InterruptFence:
    """A one-way flag for one run, shared with its sub-agents (seed 002's interrupt fence)."""

    def __init__(self) -> None:
        self.reason = ""
        self._set = False

    @property
    def is_set(self) -> bool:
        return self._set

    def set(self, reason: str = "interrupted") -> None:
        if not self._set:
            self._set, self.reason = True, reason

    def check(self, run: RunState) -> None:
        """End ``run`` (``INTERRUPTED``) when the fence has flipped (a checkpoint)."""
        if self._set:
            run.end("interrupted", self.reason)


class FenceControl(Control):
    """Checkpoints on the fence. Put it first: nothing else should work once it has flipped."""

    name = "interrupt_fence"

    def __init__(self, fence: InterruptFence) -> None:
        self.fence = fence

    async def before_model(self, run: RunState) -> None:
        self.fence.check(run)

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        # Answered, not run: every call still gets exactly one result.
        return ToolOutcome("denied", NOT_EXECUTED) if self.fence.is_set else None

    async def after_tools(self, run: RunState) -> None:
        self.fence.check(run)


def relay_path(relay_dir: str | Path, session_id: str) -> Path:
    """The file whose appearance interrupts ``session_id``."""
    return Path(relay_dir).expanduser() / f"{validate_session_id(session_id)}.interrupt"


class InterruptRelay:
    """While entered, polls ``path``; when the file appears it is removed and ``target`` is
    interrupted. A file left from before the run is stale and removed on entry."""

    def __init__(self, path: str | Path, target: Interruptible, poll_s: float = 0.2) -> None:
        self.path = Path(path)
        self.target = target
        self.poll_s = poll_s
        self._task: asyncio.Task[None] | None = None

    async def __aenter__(self) -> InterruptRelay:
        self.path.unlink(missing_ok=True)
        self._task = asyncio.create_task(self._watch())
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None:
            self._task.cancel()
            try:
                await self._task
            except asyncio.CancelledError:
                pass

    async def _watch(self) -> None:
        while True:
            if self.path.exists():
                self.path.unlink(missing_ok=True)
                log.info("interrupt requested through %s", self.path)
                self.target.interrupt()
            await asyncio.sleep(self.poll_s)
