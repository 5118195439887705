"""The ``agent`` tool: spawn a nested ``Agent`` for a sub-task (seeds 000, 001, 002, 004).

The child gets a fresh history and a sub-task prompt, shares the parent's model(s) and
workspace, and gets only tools its parent has (``policy.resolve_child_tool_policy``). Its final
answer and exit status come back as the tool result; with ``background: true`` the call returns
the child's id at once and the result arrives later as a message (``background``). Spawns past the depth limit, the fan-out
limit or the tier table are refused with a structured error the parent model can read.

Wiring: ``harness.assembly`` builds one ``SubagentSpawner`` per agent when ``subagents`` is on
(its last table row): the tool, and a ``SubagentSupervisor`` control, which holds the
interrupt-fence checkpoints, delivers the results of background children as messages, and marks
the agent finished at run end (orphans are reaped when ``subagents.reap_orphans`` is on). A child
is made by the ``ChildFactory`` the agent hands in, given a ``SubagentParent`` (registry, id,
tier, policy): this package never imports the loop.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.events import EventSink, RunEvent
from harness.execution.deadlines import GatedWorkspace
from harness.messages import Message, ToolCall
from harness.model import ModelReply
from harness.prompts import load_prompt
from harness.state import RunState
from harness.status import ExitStatus
from harness.subagents.background import BackgroundChildren
from harness.subagents.config import Tier
from harness.subagents.policy import (
    ToolPolicy,
    can_spawn,
    default_child_tier,
    resolve_child_tool_policy,
)
from harness.subagents.registry import SubagentRegistry, SubagentResult
from harness.tools.base import Tool, ToolContext, ToolOutcome, catalogue, tool_spec
from harness.workspace import Workspace

AGENT_TOOL = "agent"
CHILD_STOP_WAIT_S = 5.0
"""After an interrupt, how long the parent waits for its child to wind down (run-end hooks)."""

@dataclass(frozen=True)
class SubagentParent:
    """Where an agent sits in its tree: the binding a child is assembled with."""

    registry: SubagentRegistry
    agent_id: str
    tier: Tier | None
    policy: ToolPolicy
    approver: Any = None
    """The permission approver the whole tree shares (``harness.security.permissions``)."""


class ChildAgent(Protocol):
    """What the spawner needs of a child agent."""

    tools: list[Tool]

    async def run(self, task: str) -> Any: ...

    def interrupt(self) -> None: ...


ChildFactory = Callable[[HarnessConfig, list[Tool], Workspace, "EventSink | None", SubagentParent],
                        ChildAgent]
"""``(config, tools, workspace, on_event, parent) -> agent``: the agent's way to make a child."""


def top_level_parent(config: HarnessConfig, approver: Any = None) -> SubagentParent:
    """The binding of a top-level agent: a new tree, tier ``subagents.tier``, and a policy that
    denies ``subagents.deny_tools``."""
    cfg = config.subagents
    return SubagentParent(SubagentRegistry(), f"agent-{uuid.uuid4().hex[:8]}", cfg.tier,
                          ToolPolicy(deny_list=frozenset(cfg.deny_tools)), approver)


class SubagentSpawner:
    """The ``agent`` tool of one agent: knows its place in the tree, its tools and how to make a
    child."""

    def __init__(self, config: HarnessConfig, tools: list[Tool], place: SubagentParent,
                 make_child: ChildFactory, on_event: EventSink | None = None) -> None:
        self.config = config
        self.tools = tools
        """The agent's own tools (the list it runs with, ``agent`` included once offered)."""
        self.place = place
        self.registry = place.registry
        self.agent_id = place.agent_id
        self.tier = place.tier
        self.policy = place.policy
        self.make_child = make_child
        self.on_event = on_event
        self.run_state: RunState | None = None
        """The agent's current run (set by the supervisor), for events."""
        self.background = BackgroundChildren(place.registry)

    @property
    def depth(self) -> int:
        return self.registry.depth(self.agent_id)

    def tool(self) -> Tool:
        # ``local_write``: it can do anything its tools can, so never in a parallel wave.
        return Tool(name=AGENT_TOOL, description=load_prompt("subagent_tool.md"), run=self.run,
                    **tool_spec(AGENT_TOOL))

    def refusal(self, requested_tier: Tier | None) -> tuple[str, str] | None:
        """``(reason, detail)`` when this spawn must be refused (seed 004 ``validate_spawn``)."""
        cfg = self.config.subagents
        if self.registry.fenced(self.agent_id):
            return "interrupted", "this agent is being interrupted"
        if self.tier is not None and not can_spawn(self.tier, requested_tier):
            return "tier_not_allowed", f"a {self.tier} agent cannot spawn a {requested_tier} agent"
        if self.depth >= cfg.max_depth:
            return "max_depth_exceeded", f"nesting depth {self.depth} is the limit ({cfg.max_depth})"
        if self.registry.count_children(self.agent_id) >= cfg.max_children:
            return "max_children_exceeded", f"this agent already spawned {cfg.max_children} sub-agents"
        return None

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        task, requested_tools, requested_tier, background = _parse_args(args)
        child_tier = (requested_tier or default_child_tier(self.tier)) if self.tier else None
        refused = self.refusal(child_tier)
        if refused is not None:
            self._emit("subagent.refused", reason=refused[0])
            text = load_prompt("subagent_refused.md").format(reason=refused[0], detail=refused[1])
            return ToolOutcome("denied", text, {"spawn_refused": refused[0]})
        child_policy, pool = self._child_tools(requested_tools)
        child_id = f"sub-{uuid.uuid4().hex[:8]}"
        workspace = ctx.workspace
        if background and isinstance(workspace, GatedWorkspace):
            # A background child outlives this call: the call's write gate (closed when the
            # batch ends) must not silence it. Its own calls get their own deadlines.
            workspace = workspace.inner
        child = self._build_child(child_id, child_policy, child_tier, workspace, pool)
        record = self.registry.spawn(child_id, self.agent_id, task, child_tier, child)
        self._emit("subagent.spawned", child_id=child_id, depth=record.depth, tier=child_tier,
                   tools=sorted(t.name for t in child.tools), background=background)
        prompt = load_prompt("subagent_task.md").format(task=task)
        if background:
            self.background.start(child_id, self._child_runner(child, child_id, prompt))
            text = load_prompt("subagent_background.md").format(child_id=child_id,
                                                                 tier=child_tier or "sub-agent")
            return ToolOutcome("result", text, {"child_id": child_id, "status": "running"})
        result = await self._drive(child, child_id, prompt)
        self._emit("subagent.finished", child_id=child_id, status=result.status)
        missing = sorted(set(requested_tools or ()) - {t.name for t in child.tools})
        text = load_prompt("subagent_result.md").format(
            child_id=child_id, tier=child_tier or "sub-agent", status=result.status,
            answer=result.answer or "(no answer)",
            missing=f"\n[tools not granted (the parent lacks or denies them): {', '.join(missing)}]" if missing else "",
        )
        completed = result.status == ExitStatus.COMPLETED.value
        return ToolOutcome("result" if completed else "failure", text, {"child_id": child_id, "status": result.status})

    def _child_tools(self, requested: list[str] | None) -> tuple[ToolPolicy, list[Tool]]:
        """The child's policy and the tools it is chosen from: the parent's (narrowing), or,
        with ``subagents.inherit_policy`` off, the whole catalogue as the spawn asks."""
        parent_tools = [t for t in self.tools if t.name != AGENT_TOOL]
        if self.config.subagents.inherit_policy:
            # The policy covers ``agent`` too: whether the child may spawn in turn.
            policy = resolve_child_tool_policy(self.policy, [t.name for t in self.tools], requested)
            return policy, parent_tools
        known = catalogue()
        extra = [known[n] for n in requested or () if n in known and n not in {t.name for t in parent_tools}]
        return ToolPolicy(allow_list=frozenset(requested) if requested else None), parent_tools + extra

    def _build_child(self, child_id: str, policy: ToolPolicy, tier: Tier | None, workspace: Any,
                     pool: list[Tool]) -> ChildAgent:
        cfg = self.config
        tools = [t for t in pool if policy.permits(t.name)]
        limits = cfg.limits.model_copy(update={"max_turns": cfg.subagents.child_max_turns or cfg.limits.max_turns})
        child_cfg = cfg.model_copy(update={"limits": limits, "tools": [t.name for t in tools]})
        place = SubagentParent(self.registry, child_id, tier, policy, self.place.approver)
        return self.make_child(child_cfg, tools, workspace, self._forward(child_id), place)

    def _child_runner(self, child: ChildAgent, child_id: str, prompt: str) -> Callable[[], Awaitable[None]]:
        """The coroutine function that runs ``child`` and announces its result (always)."""

        async def child_run() -> None:
            try:
                if self.registry.fenced(child_id):
                    result = SubagentResult(child_id, ExitStatus.INTERRUPTED.value, "")
                else:
                    r = await child.run(prompt)
                    result = SubagentResult(child_id, r.status.value, r.message)
            except asyncio.CancelledError:
                self.registry.announce_completion(child_id, SubagentResult(child_id, "interrupted", ""))
                raise
            except Exception as e:  # a harness bug in the child must still answer the parent
                result = SubagentResult(child_id, ExitStatus.ERROR.value, f"{type(e).__name__}: {e}")
            self.registry.announce_completion(child_id, result)

        return child_run

    async def _drive(self, child: ChildAgent, child_id: str, prompt: str) -> SubagentResult:
        task = asyncio.ensure_future(self._child_runner(child, child_id, prompt)())
        try:
            return await self.registry.wait(child_id)
        except asyncio.CancelledError:
            # The parent is interrupted (or its deadline passed): the fence reaches the subtree.
            self.registry.interrupt_subtree(child_id)
            await asyncio.wait({task}, timeout=CHILD_STOP_WAIT_S)
            raise

    def _forward(self, child_id: str) -> Any:
        sink = self.on_event
        if sink is None:
            return None

        def forward(event: RunEvent) -> None:
            if event.type.startswith("subagent.") and "agent_id" in event.data:
                sink(event)  # already labelled by a deeper agent
            else:
                sink(RunEvent(type=f"subagent.{event.type}", data={**event.data, "agent_id": child_id}, t=event.t))

        return forward

    def _emit(self, type: str, **data: object) -> None:
        if self.run_state is not None:
            self.run_state.emit(type, agent_id=self.agent_id, **data)


def _parse_args(args: dict[str, Any]) -> tuple[str, list[str] | None, Tier | None, bool]:
    task = args.get("task")
    if not isinstance(task, str) or not task.strip():
        raise ValueError("argument 'task' is required and must be a non-empty string")
    tools = args.get("tools")
    if tools is not None and (not isinstance(tools, list) or not all(isinstance(t, str) for t in tools)):
        raise ValueError("argument 'tools' must be a list of tool names")
    tier = args.get("tier")
    if tier is not None and tier not in ("chat", "reasoning", "worker"):
        raise ValueError("argument 'tier' must be one of chat, reasoning, worker")
    background = args.get("background", False)
    if not isinstance(background, bool):
        raise ValueError("argument 'background' must be true or false")
    return task, tools, tier, background


class SubagentSupervisor(Control):
    """Per agent: interrupt-fence checkpoints, and orphan handling when its run ends."""

    name = "subagents"

    def __init__(self, spawner: SubagentSpawner) -> None:
        self.spawner = spawner
        self.registry = spawner.registry
        self.agent_id = spawner.agent_id

    def _checkpoint(self, run: RunState) -> None:
        if self.registry.fenced(self.agent_id):
            run.end("interrupted", "interrupted: the parent agent was interrupted")

    async def before_model(self, run: RunState) -> None:
        self.spawner.run_state = run
        self.registry.finished_parents.discard(self.agent_id)  # running (again): not finished
        self._checkpoint(run)
        for result in self.spawner.background.collect():
            record = self.registry.records[result.child_id]
            text = load_prompt("subagent_background_result.md").format(
                child_id=result.child_id, tier=record.tier or "sub-agent", status=result.status,
                answer=result.answer or "(no answer)")
            run.messages.append(Message.user(text))
            run.emit("subagent.background_delivered", agent_id=self.agent_id,
                     child_id=result.child_id, status=result.status)

    async def after_reply(self, run: RunState, reply: ModelReply) -> bool:
        self._checkpoint(run)
        return False

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        self.spawner.run_state = run
        if self.registry.fenced(self.agent_id):
            return ToolOutcome("denied", "[not executed: this agent was interrupted]")
        return None

    async def on_run_end(self, run: RunState, status: str, message: str) -> None:
        self.registry.mark_finished(self.agent_id)
        if not self.spawner.config.subagents.reap_orphans:
            left = [r.id for r in self.registry.orphans(self.agent_id)]
            if left:
                run.emit("subagent.orphans_left", agent_id=self.agent_id, children=left)
            return
        reaped = self.registry.reap_orphans(self.agent_id)
        if reaped:
            run.emit("subagent.orphans_reaped", agent_id=self.agent_id, children=reaped)
            # The run ends only once its orphans stopped: nothing of it works on afterwards.
            await self.spawner.background.stop(reaped, CHILD_STOP_WAIT_S)


def build_spawner(config: HarnessConfig, tools: list[Tool], place: SubagentParent,
                  make_child: ChildFactory, on_event: EventSink | None = None,
                  ) -> tuple[SubagentSpawner, SubagentSupervisor]:
    """The spawner and supervisor of one agent. The ``agent`` tool is appended to ``tools``
    unless the agent is a worker (seed 002: it spawns nothing) or its policy denies it."""
    spawner = SubagentSpawner(config, tools, place, make_child, on_event)
    tools[:] = [t for t in tools if t.name != AGENT_TOOL]  # another agent's tool is not ours
    if place.tier != "worker" and place.policy.permits(AGENT_TOOL):
        tools.append(spawner.tool())
    return spawner, SubagentSupervisor(spawner)

