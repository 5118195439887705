"""The agent loop: one small class. ``step()`` is ``execute(query())``.

Every ending is a typed ``ExitStatus`` (raised as ``RunEnded`` inside, returned in ``RunResult``).
Errors the model should see (a failing command, an unknown tool, bad arguments) become tool
results; errors that end the run are ``RunEnded``. Controls plug in through hooks
(``harness.controls.base.Control``); which controls, in which order, is ``harness.assembly``'s
table.

Limits in one place: every early ending is a row of the run's limits table
(``harness.state.run_limits``, which says how a control counts, asks and ends by its row); turns
and tool calls are checked before every step. A new limit is one row and one count, not a new
ending path. The loop's own ending is the model's answer (``COMPLETED``).
"""

from __future__ import annotations

import asyncio
import traceback

from pydantic import BaseModel, ConfigDict

from harness.assembly import Bindings, assemble
from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.events import EventSink, RunEvent, subsystem_logger
from harness.executor import ToolExecutor
from harness.messages import Message
from harness.model import Model, ModelReply, Usage
from harness.prompt_builder import build_system_prompt
from harness.router import ModelRouter
from harness.state import RunState
from harness.status import ExitStatus, RunEnded
from harness.subagents.tool import SubagentParent
from harness.tools import Tool
from harness.workspace import Workspace

log = subsystem_logger("loop")


class RunResult(BaseModel):
    model_config = ConfigDict(arbitrary_types_allowed=True)

    status: ExitStatus
    message: str = ""
    """Why the run ended (for non-completed statuses) or the final answer."""
    messages: list[Message]
    usage: Usage
    turns: int
    tool_calls: int
    model_calls: int
    events: list[RunEvent]


class Agent:
    def __init__(
        self,
        config: HarnessConfig,
        models: Model | list[Model],
        workspace: Workspace,
        *,
        tools: list[Tool] | None = None,
        controls: list[Control] | None = None,
        on_event: EventSink | None = None,
        bindings: Bindings | None = None,
    ) -> None:
        """``tools`` and ``controls``: finished lists; what is not given is assembled from the
        config and ``bindings`` (the permission approver among them) by ``harness.assembly``."""
        self.config = config
        self.router = ModelRouter(models if isinstance(models, list) else [models], config.failover)
        self.workspace = workspace
        self.on_event = on_event
        parts = assemble(config, bindings, tools=tools, controls=controls,
                         make_child=self._make_child, on_event=on_event)
        self.tools, self.controls, self.spawner = parts.tools, parts.controls, parts.spawner
        self.executor = ToolExecutor(config, self.tools, self.controls)
        self._step_task: asyncio.Task[None] | None = None
        self._interrupted = False

    def _make_child(self, config: HarnessConfig, tools: list[Tool], workspace: Workspace,
                    on_event: EventSink | None, parent: SubagentParent) -> Agent:
        """A sub-agent: same models, its own tools and place in the tree (``ChildFactory``)."""
        return Agent(config, list(self.router.models), workspace, tools=tools, on_event=on_event,
                     bindings=Bindings(approver=parent.approver, parent=parent))

    def interrupt(self) -> None:
        """Stop the run now: the running model call or tool is cancelled (a tool's process group is
        killed), the transcript so far is kept, and ``run`` returns ``INTERRUPTED``."""
        self._interrupted = True
        if self._step_task is not None and not self._step_task.done():
            self._step_task.cancel()

    async def run(self, task: str, history: list[Message] | None = None) -> RunResult:
        """Run ``task`` to a typed ending. ``history`` resumes an earlier conversation (its system
        message is kept; a new one is built when it has none)."""
        state = RunState(self.config, self.workspace, self.tools, sink=self.on_event)
        state.model = self.router.model  # controls that call the model need it before turn 1
        if history and history[0].role == "system":
            state.messages = list(history)
        else:
            system = await build_system_prompt(self.config, self.workspace, tools=self.tools)
            state.messages = [Message.system(system), *(history or [])]
        state.messages.append(Message.user(task))
        status, message = ExitStatus.ERROR, ""
        self._interrupted = False
        try:
            self.router.on_run_start(state)
            for c in self.controls:
                await c.on_run_start(state)
            while True:
                if self._interrupted:
                    state.end("interrupted", "interrupted")
                self._step_task = asyncio.ensure_future(self.step(state))
                try:
                    await self._step_task
                except asyncio.CancelledError:
                    if not self._interrupted:
                        raise  # cancelled from outside: propagate after the finally block
                    raise state.ending("interrupted", "interrupted") from None
        except RunEnded as e:
            status, message = e.status, e.message
        except asyncio.CancelledError:
            status, message = ExitStatus.INTERRUPTED, "cancelled"
            raise
        except Exception as e:  # a harness bug: end typed, keep the transcript
            status, message = ExitStatus.ERROR, f"{type(e).__name__}: {e}"
            state.emit("run.error", error=message, traceback=traceback.format_exc()[-2000:])
        finally:
            state.emit("run.completed", status=status.value, message=message[:500],
                       turns=state.turns, tool_calls=state.tool_calls)
            for c in self.controls:
                try:
                    await c.on_run_end(state, status.value, message)
                except Exception:
                    log.exception("control %s failed at run end", c.name)
        return RunResult(
            status=status, message=message, messages=state.messages, usage=state.usage,
            turns=state.turns, tool_calls=state.tool_calls, model_calls=state.model_calls,
            events=state.events,
        )

    async def step(self, state: RunState) -> None:
        state.check_limits()  # the limits table (module docstring)
        await self.execute(state, await self.query(state))

    async def query(self, state: RunState) -> ModelReply:
        for c in self.controls:
            await c.before_model(state)
        reply = await self.router.generate(state, [t.spec for t in self.tools], self.controls)
        state.turns += 1
        state.usage = state.usage + reply.usage
        state.messages.append(reply.message)
        keep_going = False
        for c in self.controls:
            keep_going = await c.after_reply(state, reply) or keep_going
        if not reply.message.tool_calls and not keep_going:
            raise RunEnded(ExitStatus.COMPLETED, reply.message.content)
        return reply

    async def execute(self, state: RunState, reply: ModelReply) -> None:
        await self.executor.execute(state, reply.message.tool_calls)
        for c in self.controls:
            await c.after_tools(state)
