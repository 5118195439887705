"""Turn budget, per-tool deadlines and the late-write gate (seed 003).

- ``TurnBudget``: an explicit time envelope; each call gets ``per_tool_remaining_s(cap_s)``, not
  the whole remaining budget, so one slow tool cannot claim everything.
- ``ToolTrace``: which calls are running, done, or timed out. A call that finishes after its
  deadline learns from ``complete_trace`` (False) that its result must be dropped.
- ``WriteGate`` + ``GatedWorkspace``: the tool's view of the workspace; once the gate closes (the
  deadline passed, or the batch is over) writes and commands through it are refused, so a tool
  that ignores cancellation cannot change anything late.

Source: seed 003, "Late-Write Blocking" and "Per-Tool Deadline Propagation".
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any, Literal

from harness.workspace import ExecResult, Workspace

MIN_DEADLINE_S = 0.01
"""A deadline shorter than this is no deadline at all: the budget counts as spent (timers may
fire a hair early, so "exactly spent" must not leave a call a few nanoseconds to run in)."""


class TurnBudget:
    def __init__(self, total_s: float, clock: Callable[[], float] = time.monotonic) -> None:
        self.total_s = total_s
        self._clock = clock
        self._start = clock()

    def remaining_s(self) -> float:
        return max(0.0, self.total_s - (self._clock() - self._start))

    def per_tool_remaining_s(self, cap_s: float) -> float:
        """The deadline for the next call: the cap, or what is left of the budget if less;
        0 when the budget is spent."""
        left = min(cap_s, self.remaining_s())
        return left if left >= MIN_DEADLINE_S else 0.0


class LateWriteError(PermissionError):
    """A tool tried to change the workspace after its deadline."""


class WriteGate:
    def __init__(self) -> None:
        self.open = True

    def close(self) -> None:
        self.open = False

    def check(self, what: str) -> None:
        if not self.open:
            raise LateWriteError(f"late {what} suppressed: the call's deadline has passed")


class GatedWorkspace:
    """A ``Workspace`` whose writes and commands go through a ``WriteGate``. Reads always work."""

    def __init__(self, inner: Workspace, gate: WriteGate) -> None:
        self.inner = inner
        """The wrapped workspace (path checks resolve against it directly)."""
        self._gate = gate
        self.root = inner.root

    async def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        self._gate.check("command")
        return await self.inner.exec(command, timeout=timeout)

    async def read_file(self, path: str) -> str:
        return await self.inner.read_file(path)

    async def write_file(self, path: str, content: str) -> None:
        self._gate.check("write")
        await self.inner.write_file(path, content)

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self.inner, name)
        if name == "rename":  # optional capability: present only when the inner has it, gated
            async def rename(src: str, dst: str) -> None:
                self._gate.check("write")
                await attr(src, dst)

            return rename
        return attr


TraceStatus = Literal["running", "done", "timed_out"]


class ToolTrace:
    """Status of every call of a run, by call id (seed 003 ``tool_trace``)."""

    def __init__(self) -> None:
        self.status: dict[str, TraceStatus] = {}
        self.gates: dict[str, WriteGate] = {}

    def start(self, call_id: str) -> WriteGate:
        self.status[call_id] = "running"
        self.gates[call_id] = gate = WriteGate()
        return gate

    def mark_timed_out(self, call_id: str) -> None:
        self.status[call_id] = "timed_out"
        self.gates[call_id].close()

    def complete_trace(self, call_id: str) -> bool:
        """Called when a call's work finishes: False when it had already timed out (the caller
        must then suppress every side effect, including its result)."""
        if self.status.get(call_id) == "timed_out":
            return False
        self.status[call_id] = "done"
        return True

    def close_writes(self, call_ids: list[str]) -> None:
        """Seal the gates of finished batches: nothing left running from them may write."""
        for cid in call_ids:
            gate = self.gates.pop(cid, None)
            if gate is not None:
                gate.close()


async def run_with_deadline(
    work: Callable[[], Awaitable[Any]],
    call_id: str,
    deadline_s: float,
    trace: ToolTrace,
    on_late: Callable[[asyncio.Future[Any]], None],
) -> tuple[bool, Any]:
    """Run ``work`` until ``deadline_s``: ``(True, result)`` in time, ``(False, None)`` after it.

    On timeout the call is marked timed out (its gate closes), the work is cancelled, and if it
    still finishes later ``on_late`` sees it (its result is suppressed, never appended)."""
    task = asyncio.ensure_future(work())
    try:
        done, _ = await asyncio.wait({task}, timeout=deadline_s)
    except BaseException:
        task.cancel()  # the run is ending (interrupt): do not leave the tool running
        raise
    if task in done and trace.complete_trace(call_id):
        return True, task.result()
    trace.mark_timed_out(call_id)
    task.cancel()
    task.add_done_callback(on_late)
    return False, None
