"""``Session``: one conversation that outlives a run — persisted, resumable, interruptible,
serialised through the queue, with non-user triggers triaged first.

Every ``send`` is one ``Agent.run`` over the session's history, built fresh per message from the
config and the session's bindings (``harness.assembly.Bindings``): its transcript and bootstrap
are shared across its runs, and its interrupt fence (and lane progress) go first. Post-turn
hooks are the hook runner's (``harness.hooks``, seed 002).
"""

from __future__ import annotations

import asyncio
import contextlib

from harness.assembly import Bindings
from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.events import EventSink, RunEvent
from harness.loop import Agent, RunResult
from harness.messages import Message
from harness.model import Model, Usage
from harness.sessions.bootstrap import SessionBootstrap
from harness.sessions.interrupt import FenceControl, InterruptFence, InterruptRelay, relay_path
from harness.sessions.queue import AgentQueue, LaneProgress, LaneTask, resolve_priority
from harness.sessions.transcript import validate_session_id
from harness.sessions.transcript_control import TranscriptControl
from harness.sessions.triage import TriageResult, TriggerEnvelope, run_triage, trigger_task_text
from harness.status import ExitStatus
from harness.tools import Tool
from harness.workspace import Workspace


class Session:
    def __init__(
        self,
        session_id: str,
        config: HarnessConfig,
        models: Model | list[Model],
        workspace: Workspace,
        *,
        tools: list[Tool] | None = None,
        on_event: EventSink | None = None,
    ) -> None:
        self.id = validate_session_id(session_id)
        self.config = config
        self.models = models
        self.workspace = workspace
        self.tools = tools
        self.on_event = on_event
        q = config.queue
        self.queue = AgentQueue(q.global_concurrency, timeout_ms=q.lane_timeout_ms,
                                timeout_basis=q.timeout_basis) if q.enabled else None
        self.transcript = (TranscriptControl(config.transcript, self.id)
                           if config.transcript.enabled else None)
        self.bootstrap = (SessionBootstrap(config.progress, self.transcript)
                          if config.progress.enabled else None)
        self.history: list[Message] | None = None
        self._history_lock = asyncio.Lock()
        self._running: dict[Agent, InterruptFence] = {}

    async def resume(self) -> list[Message]:
        """The session's history: loaded (and repaired) from the transcript on first use."""
        async with self._history_lock:
            if self.history is None:
                self.history = (await self.transcript.open(self.workspace)
                                if self.transcript is not None else [])
            return self.history

    async def send(self, text: str, trigger: str = "user") -> RunResult:
        """Handle one message or trigger; returns the run's result (``turns == 0`` when triage
        dropped it or only notified)."""
        envelope = TriggerEnvelope(trigger=trigger, payload=text)
        triage = (run_triage(envelope, self.config.triage) if self.config.triage.enabled
                  else TriageResult(decision="spawn_orchestrator", reason="triage off"))
        event = RunEvent(type="triage.decision", data={"trigger": trigger, **triage.model_dump()})
        if trigger not in ("user", "manual"):
            self._emit(event)
        if triage.decision in ("drop", "notify"):
            return await self._without_run(envelope, triage, event)
        config = self.config
        if triage.decision == "spawn_reactor":
            limits = config.limits.model_copy(update={"max_turns": config.triage.reactor_max_turns})
            config = config.model_copy(update={"limits": limits})
        task = trigger_task_text(envelope, triage.decision)
        if self.queue is None:
            return await self._run(task, config, None)
        return await self.queue.enqueue(
            self.id, lambda lane: self._run(task, config, lane),
            resolve_priority(trigger) if config.queue.priority else "normal",
            on_timeout=lambda: self.interrupt("lane timeout: no progress", kill=True),
        )

    def interrupt(self, reason: str = "interrupted", *, kill: bool | None = None) -> bool:
        """Stop the running run(s). The fence always flips (checkpoints and sub-agents see it);
        with ``interrupt.enabled`` (or ``kill=True``) the running tool or model call is killed
        too. Returns False when nothing was running."""
        kill = self.config.interrupt.enabled if kill is None else kill
        for agent, fence in list(self._running.items()):
            fence.set(reason)
            if kill:
                agent.interrupt()
        return bool(self._running)

    async def aclose(self) -> None:
        if self.queue is not None:
            await self.queue.aclose()

    # --- internals ---------------------------------------------------------------------------

    async def _run(self, task: str, config: HarnessConfig, lane: LaneTask | None) -> RunResult:
        history = await self.resume()
        fence = InterruptFence()
        agent = Agent(config, self.models, self.workspace, tools=self.tools,
                      bindings=self._bindings(fence, lane), on_event=self._sink(lane))
        relay_dir = config.interrupt.relay_dir
        relay = (InterruptRelay(relay_path(relay_dir, self.id), self, config.interrupt.relay_poll_s)
                 if relay_dir else contextlib.nullcontext())
        self._running[agent] = fence
        try:
            async with relay:
                result = await agent.run(task, history=history)
        finally:
            self._running.pop(agent, None)
        self.history = result.messages
        if lane is not None and lane.timed_out:
            result = result.model_copy(update={"message": (
                f"lane timeout: no progress for {lane.timeout_ms} ms ({lane.basis} basis)")})
        return result

    def _bindings(self, fence: InterruptFence, lane: LaneTask | None) -> Bindings:
        # One transcript and one bootstrap for all the session's runs; the run record names the
        # session; the fence goes first, so a stop is seen before any other control acts.
        first: list[Control] = [FenceControl(fence)]
        if lane is not None:
            first.append(LaneProgress(lane))
        return Bindings(transcript=self.transcript, bootstrap=self.bootstrap, session_id=self.id,
                        first=first)

    def _sink(self, lane: LaneTask | None) -> EventSink:
        def sink(event: RunEvent) -> None:
            if lane is not None:
                lane.note_progress()  # any event is progress
            self._emit(event)
        return sink

    def _emit(self, event: RunEvent) -> None:
        if self.on_event is not None:
            self.on_event(event)

    async def _without_run(self, envelope: TriggerEnvelope, triage: TriageResult,
                           event: RunEvent) -> RunResult:
        history = await self.resume()
        if self.transcript is not None:
            self.transcript.marker(f"triage:{triage.decision}", trigger=envelope.trigger,
                                   payload=envelope.payload[:500], reason=triage.reason)
            await self.transcript.writer(self.workspace).sync(history)
        return RunResult(status=ExitStatus.COMPLETED, message=f"triage: {triage.decision} "
                         f"({triage.reason})", messages=list(history), usage=Usage(), turns=0,
                         tool_calls=0, model_calls=0, events=[event])
