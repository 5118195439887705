"""The ``agent`` tool: nested runs, narrowing tool policy, depth/fan-out/tier limits, interrupts."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.events import RunEvent
from harness.messages import Message
from harness.model import ToolSpec
from harness.testing import FunctionModel, call
from harness.tools import Tool, ToolContext, ToolOutcome, resolve_tools

SAFETY_S = 60


def task_of(messages: list[Message]) -> str:
    return next(m.content for m in messages if m.role == "user")


def level(messages: list[Message]) -> int:
    return int(re.search(r"level (\d+)", task_of(messages)).group(1))  # type: ignore[union-attr]


def tool_results(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.role == "tool"]


def make_agent(cfg: HarnessConfig, fn, tmp_path: Path, tools: list[str] | None = None,
               extra: list[Tool] | None = None, events: list[RunEvent] | None = None) -> Agent:
    agent = Agent(cfg, FunctionModel(fn), LocalWorkspace(tmp_path),
                  tools=[*resolve_tools(tools or ["bash", "read_file", "write_file"]), *(extra or [])],
                  on_event=events.append if events is not None else None)
    return agent


def run(agent: Agent, task: str):
    return asyncio.run(asyncio.wait_for(agent.run(task), SAFETY_S))


ON = HarnessConfig(subagents={"enabled": True})


def test_a_child_does_the_sub_task_with_a_fresh_history(tmp_path: Path) -> None:
    child_inputs: list[list[Message]] = []

    def fn(messages: list[Message], tools: list[ToolSpec]):
        if "Sub-task:" in task_of(messages):
            child_inputs.append(list(messages))
            if not tool_results(messages):
                return [call("write_file", path="child.txt", content="made by child")]
            return "wrote child.txt"
        if not tool_results(messages):
            return [call("agent", task="create child.txt")]
        return "parent done: " + tool_results(messages)[0].content

    events: list[RunEvent] = []
    res = run(make_agent(ON, fn, tmp_path, events=events), "secret parent task 42")
    assert (tmp_path / "child.txt").read_text() == "made by child"  # shared workspace
    assert "secret parent task 42" not in str(child_inputs[0])  # fresh history
    assert [m.role for m in child_inputs[0]] == ["system", "user"]
    result = tool_results(res.messages)[0]
    assert not result.is_error and "finished: completed" in result.content
    assert "wrote child.txt" in result.content
    assert res.status == ExitStatus.COMPLETED
    assert [e.type for e in res.events if e.type.startswith("subagent.")] == ["subagent.spawned", "subagent.finished"]
    assert any(e.type == "subagent.run.completed" and e.data["status"] == "completed" for e in events)


def test_a_child_never_gets_a_tool_its_parent_lacks(tmp_path: Path) -> None:
    offered: dict[str, list[str]] = {}

    def fn(messages: list[Message], tools: list[ToolSpec]):
        if "Sub-task:" in task_of(messages):
            offered.setdefault("child", [t.name for t in tools])
            if not tool_results(messages):
                return [call("bash", command="touch escaped.txt")]  # not granted: must not run
            return "child done"
        if not tool_results(messages):
            return [call("agent", task="do it", tools=["bash", "read_file", "agent"])]
        return "parent done"

    res = run(make_agent(ON, fn, tmp_path, tools=["read_file", "list_dir"]), "t")
    assert sorted(offered["child"]) == ["agent", "read_file"]
    assert not (tmp_path / "escaped.txt").exists()
    assert "tools not granted" in tool_results(res.messages)[0].content
    assert "bash" in tool_results(res.messages)[0].content


def test_without_policy_inheritance_a_child_gets_what_it_asks_for(tmp_path: Path) -> None:
    """``subagents.inherit_policy`` off is the escalation the control prevents: the same spawn as
    above now hands the child a shell its parent never had, and the child uses it."""
    offered: dict[str, list[str]] = {}

    def fn(messages: list[Message], tools: list[ToolSpec]):
        if "Sub-task:" in task_of(messages):
            offered.setdefault("child", [t.name for t in tools])
            if not tool_results(messages):
                return [call("bash", command="touch escaped.txt")]
            return "child done"
        if not tool_results(messages):
            return [call("agent", task="do it", tools=["bash", "read_file"])]
        return "parent done"

    cfg = HarnessConfig(subagents={"enabled": True, "inherit_policy": False})
    run(make_agent(cfg, fn, tmp_path, tools=["read_file", "list_dir"]), "t")
    assert sorted(offered["child"]) == ["bash", "read_file"]
    assert (tmp_path / "escaped.txt").exists()


def test_the_deny_list_is_inherited(tmp_path: Path) -> None:
    offered: dict[int, list[str]] = {}

    def fn(messages: list[Message], tools: list[ToolSpec]):
        lvl = level(messages)
        offered[lvl] = sorted(t.name for t in tools)
        if "agent" in offered[lvl] and not tool_results(messages) and lvl < 2:
            return [call("agent", task=f"level {lvl + 1}")]
        return f"done {lvl}"

    cfg = HarnessConfig(subagents={"enabled": True, "deny_tools": ["write_file"]})
    run(make_agent(cfg, fn, tmp_path), "level 0")
    assert offered[0] == ["agent", "bash", "read_file", "write_file"]  # the top agent keeps it
    assert offered[1] == offered[2] == ["agent", "bash", "read_file"]  # every descendant loses it


def recursive(messages: list[Message], tools: list[ToolSpec]):
    """Every agent that can spawns one child one level deeper, then reports what came back."""
    lvl = level(messages)
    results = tool_results(messages)
    if not results and "agent" in [t.name for t in tools]:
        return [call("agent", task=f"level {lvl + 1}")]
    return f"level {lvl} got: " + (results[0].content.replace("\n", " | ") if results else "no tool")


def test_depth_limit_refuses_with_a_structured_error(tmp_path: Path) -> None:
    cfg = HarnessConfig(subagents={"enabled": True, "max_depth": 2})
    res = run(make_agent(cfg, recursive, tmp_path), "level 0")
    # level 0 -> 1 -> 2 ran; level 2 (at the limit) was refused its spawn
    assert res.message.count("finished: completed") == 2
    assert "level 2 got: [spawn refused: max_depth_exceeded] nesting depth 2 is the limit (2)" in res.message


def test_without_sub_agents_there_is_no_agent_tool(tmp_path: Path) -> None:
    res = run(make_agent(HarnessConfig(), recursive, tmp_path), "level 0")
    assert res.message == "level 0 got: no tool"


def test_fan_out_limit(tmp_path: Path) -> None:
    def fn(messages: list[Message], tools: list[ToolSpec]):
        if "Sub-task:" in task_of(messages):
            return "child ok"
        if not tool_results(messages):
            return [call("agent", task=f"part {i}") for i in range(5)]
        return "done"

    cfg = HarnessConfig(subagents={"enabled": True, "max_children": 3})
    res = run(make_agent(cfg, fn, tmp_path), "t")
    contents = [m.content for m in tool_results(res.messages)]
    assert sum("finished: completed" in c for c in contents) == 3
    assert sum("[spawn refused: max_children_exceeded]" in c for c in contents) == 2


def test_spawn_tiers(tmp_path: Path) -> None:
    seen: dict[str, list[str]] = {}

    def fn(messages: list[Message], tools: list[ToolSpec]):
        task, names = task_of(messages), [t.name for t in tools]
        results = tool_results(messages)
        if "as reasoning" in task:
            seen["reasoning"] = names
            if not results:
                return [call("agent", task="as reasoning again", tier="reasoning"),
                        call("agent", task="as worker", tier="worker")]
            return " | ".join(r.content.splitlines()[0] for r in results)
        if "as worker" in task:
            seen["worker"] = names
            return "worker done"
        if not results:
            return [call("agent", task="as chat", tier="chat"), call("agent", task="as reasoning")]
        return " || ".join(r.content for r in results)

    cfg = HarnessConfig(subagents={"enabled": True, "tier": "chat"})
    res = run(make_agent(cfg, fn, tmp_path), "top")
    chat_try, reasoning = tool_results(res.messages)
    assert "[spawn refused: tier_not_allowed] a chat agent cannot spawn a chat agent" in chat_try.content
    assert "(reasoning) finished: completed" in reasoning.content
    assert "a reasoning agent cannot spawn a reasoning agent" in reasoning.content
    assert "(worker) finished: completed" in reasoning.content
    assert "agent" in seen["reasoning"] and "agent" not in seen["worker"]  # workers spawn nothing


def test_interrupting_the_parent_reaches_every_running_sub_agent(tmp_path: Path) -> None:
    deepest_started = asyncio.Event()

    async def hang(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        deepest_started.set()
        res = await ctx.workspace.exec("sleep 120 && touch never.txt", timeout=SAFETY_S * 2)
        return ToolOutcome("result", res.output)

    hanger = Tool("hang", "hang", {"type": "object", "properties": {}}, hang, effect="local_write")

    def fn(messages: list[Message], tools: list[ToolSpec]):
        lvl = level(messages)
        if tool_results(messages):
            return f"level {lvl} done"
        if lvl < 2:
            return [call("agent", task=f"level {lvl + 1}")]
        return [call("hang")]

    cfg = HarnessConfig(subagents={"enabled": True})
    agent = make_agent(cfg, fn, tmp_path, extra=[hanger])
    spawner = next(c for c in agent.controls if c.name == "subagents").spawner  # type: ignore[attr-defined]

    async def go():
        task = asyncio.ensure_future(agent.run("level 0"))
        await asyncio.wait_for(deepest_started.wait(), SAFETY_S)
        agent.interrupt()
        return await asyncio.wait_for(task, SAFETY_S)

    res = asyncio.run(go())
    assert res.status == ExitStatus.INTERRUPTED
    records = list(spawner.registry.records.values())
    assert len(records) == 2 and all(r.status == "interrupted" and r.fence for r in records)
    assert spawner.registry.orphans() == []
    assert not (tmp_path / "never.txt").exists()



def test_a_child_is_assembled_in_its_place_in_the_tree(tmp_path: Path) -> None:
    # The child factory hands the child its parent binding: its spawner sits under the parent
    # (depth, tier, policy), with one supervisor and one `agent` tool, and nothing re-attaches.
    from harness.subagents.policy import ToolPolicy
    from harness.subagents.registry import SubagentRegistry
    from harness.subagents.tool import SubagentParent

    cfg = HarnessConfig(subagents={"enabled": True, "tier": "chat"})

    async def go():  # the registry belongs to a running event loop
        parent = make_agent(cfg, recursive, tmp_path)
        reg = SubagentRegistry()
        reg.spawn("p1", "root", "t")
        reg.spawn("c1", "p1", "t")
        place = SubagentParent(reg, "c1", "reasoning", ToolPolicy(deny_list=frozenset({"bash"})))
        return parent._make_child(cfg, list(parent.tools), LocalWorkspace(tmp_path), None, place)

    child = asyncio.run(go())
    spawner = child.spawner
    assert spawner is not None and spawner.depth == 2 and spawner.agent_id == "c1"
    assert spawner.tier == "reasoning" and not spawner.policy.permits("bash")
    assert [c.name for c in child.controls].count("subagents") == 1
    assert [t.name for t in child.tools].count("agent") == 1
    assert child.executor.tools["agent"].run == spawner.run
