"""Two queues in series (seed 004 ``AgentQueue``) and progress-timestamp timeouts (``LaneTask``).

Layer 1, per session: a FIFO ordered by priority (a human waiting goes first: ``user``/``manual``
are foreground, ``cron``/``heartbeat``/``memory`` background, the rest normal); one job of a
session runs at a time, so concurrent messages never interleave in its transcript.
Layer 2, global: a semaphore caps the jobs in flight across all sessions.

A job times out only after ``timeout_ms`` *without progress* (seed 004): a long run that keeps
producing turns is never killed midway. ``timeout_basis="wall"`` gives the naive lane timeout
(time since start) for comparison.
"""

from __future__ import annotations

import asyncio
import itertools
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.messages import ToolCall
from harness.model import ModelReply
from harness.state import RunState
from harness.tools.base import ToolOutcome

log = subsystem_logger("sessions.queue")

Priority = Literal["foreground", "normal", "background"]
PRIORITY_ORDER: dict[str, int] = {"foreground": 0, "normal": 1, "background": 2}


def resolve_priority(trigger: str) -> Priority:
    match trigger:
        case "user" | "manual":
            return "foreground"  # a human is waiting
        case "cron" | "heartbeat" | "memory":
            return "background"  # no human waiting
        case _:
            return "normal"


class LaneTimeout(Exception):
    """A queued job was stopped for making no progress (or running too long, basis ``wall``)."""

    def __init__(self, session_id: str, timeout_ms: int, basis: str) -> None:
        what = "without progress" if basis == "progress" else "in total"
        super().__init__(f"session {session_id!r}: job stopped after {timeout_ms} ms {what}")
        self.session_id = session_id
        self.timeout_ms = timeout_ms
        self.basis = basis


class LaneTask:
    """The clock of one job: it times out only when no progress was noted for ``timeout_ms``."""

    def __init__(self, timeout_ms: int | None, basis: str = "progress") -> None:
        self.timeout_ms = timeout_ms
        self.basis = basis
        self.started_at = self.last_progress_at = time.monotonic()
        self.timed_out = False
        """Set once the watchdog has fired."""

    def note_progress(self) -> None:
        self.last_progress_at = time.monotonic()

    def idle_ms(self) -> float:
        since = self.last_progress_at if self.basis == "progress" else self.started_at
        return (time.monotonic() - since) * 1000

    def is_timed_out(self) -> bool:
        return self.timeout_ms is not None and self.idle_ms() > self.timeout_ms


Job = Callable[[LaneTask], Awaitable[Any]]


@dataclass(order=True)
class _Item:
    priority: int
    seq: int
    job: Job = field(compare=False)
    future: asyncio.Future[Any] = field(compare=False)
    on_timeout: Callable[[], object] | None = field(compare=False)


class AgentQueue:
    def __init__(self, global_concurrency: int = 4, *, timeout_ms: int | None = None,
                 timeout_basis: str = "progress", grace_s: float = 5.0) -> None:
        self.semaphore = asyncio.Semaphore(global_concurrency)
        self.timeout_ms = timeout_ms
        self.timeout_basis = timeout_basis
        self.grace_s = grace_s
        """After ``on_timeout`` asked the job to stop, how long before it is cancelled outright."""
        self._queues: dict[str, asyncio.PriorityQueue[_Item]] = {}
        self._workers: dict[str, asyncio.Task[None]] = {}
        self._seq = itertools.count()

    async def enqueue(self, session_id: str, job: Job, priority: Priority = "normal",
                      on_timeout: Callable[[], object] | None = None) -> Any:
        """Run ``job(lane)`` after the session's earlier jobs (by priority, then arrival).

        ``on_timeout`` is how to stop the job gracefully when it times out (e.g. interrupt the
        agent so the run ends typed and its transcript is saved); without it the job is
        cancelled and ``LaneTimeout`` is raised.
        """
        if priority not in PRIORITY_ORDER:
            raise ValueError(f"priority must be one of {list(PRIORITY_ORDER)}, not {priority!r}")
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        queue = self._queues.setdefault(session_id, asyncio.PriorityQueue())
        queue.put_nowait(_Item(PRIORITY_ORDER[priority], next(self._seq), job, future, on_timeout))
        if session_id not in self._workers:
            self._workers[session_id] = asyncio.create_task(self._session_worker(session_id))
        return await future

    def pending(self, session_id: str) -> int:
        """Jobs of ``session_id`` waiting (not counting the running one)."""
        q = self._queues.get(session_id)
        return q.qsize() if q is not None else 0

    async def aclose(self) -> None:
        for w in list(self._workers.values()):
            w.cancel()
        await asyncio.gather(*self._workers.values(), return_exceptions=True)

    async def _session_worker(self, session_id: str) -> None:
        queue = self._queues[session_id]
        try:
            while not queue.empty():
                item = queue.get_nowait()
                if item.future.done():
                    continue  # the caller gave up while waiting
                async with self.semaphore:
                    await self._supervise(session_id, item)
        finally:
            # No await between the empty check and here: an enqueue cannot slip in unseen.
            if queue.empty():
                self._queues.pop(session_id, None)
            self._workers.pop(session_id, None)

    async def _supervise(self, session_id: str, item: _Item) -> None:
        lane = LaneTask(self.timeout_ms, self.timeout_basis)
        task = asyncio.ensure_future(item.job(lane))
        item.future.add_done_callback(lambda f: task.cancel() if f.cancelled() else None)
        interval = 1.0 if self.timeout_ms is None else max(0.01, min(1.0, self.timeout_ms / 4000))
        asked_at: float | None = None
        try:
            while not task.done():
                await asyncio.wait({task}, timeout=interval)
                if task.done():
                    break
                if asked_at is not None:
                    if time.monotonic() - asked_at > self.grace_s:
                        task.cancel()
                elif lane.is_timed_out():
                    lane.timed_out = True
                    asked_at = time.monotonic()
                    log.warning("session %s: job idle for %.0f ms, stopping it", session_id,
                                lane.idle_ms())
                    if item.on_timeout is not None:
                        item.on_timeout()
                    else:
                        task.cancel()
        except asyncio.CancelledError:
            task.cancel()
            raise
        _settle(item.future, task, lane, session_id)


def _settle(future: asyncio.Future[Any], task: asyncio.Future[Any], lane: LaneTask,
            session_id: str) -> None:
    if future.done():
        return
    if task.cancelled():
        if lane.timed_out:
            future.set_exception(LaneTimeout(session_id, lane.timeout_ms or 0, lane.basis))
        else:
            future.cancel()
    elif task.exception() is not None:
        future.set_exception(task.exception())  # type: ignore[arg-type]
    else:
        future.set_result(task.result())


class LaneProgress(Control):
    """Notes progress on the run's ``LaneTask`` at every hook: each model call, reply, tool and
    turn is progress, so only a run that is stuck (no turn, no tool result) times out."""

    name = "lane_progress"

    def __init__(self, lane: LaneTask) -> None:
        self.lane = lane

    async def before_model(self, run: RunState) -> None:
        self.lane.note_progress()

    async def after_reply(self, run: RunState, reply: ModelReply) -> bool:
        self.lane.note_progress()
        return False

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        self.lane.note_progress()
        return None

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        self.lane.note_progress()
        return outcome

    async def after_tools(self, run: RunState) -> None:
        self.lane.note_progress()
