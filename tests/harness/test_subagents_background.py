"""Background sub-agents: the spawn returns at once, the result arrives as a message, and a child
still running when its parent's run ends is reaped (``subagents.reap_orphans``) or left running."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.messages import Message
from harness.model import ToolSpec
from harness.subagents.tool import SubagentSpawner
from harness.testing import FunctionModel, call
from harness.tools import Tool, ToolContext, ToolOutcome, resolve_tools

SAFETY_S = 60
ON = HarnessConfig(subagents={"enabled": True})
NO_REAP = HarnessConfig(subagents={"enabled": True, "reap_orphans": False})
EMPTY = {"type": "object", "properties": {}}


def is_child(messages: list[Message]) -> bool:
    return "Sub-task:" in next(m.content for m in messages if m.role == "user")


def results(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.role == "tool"]


class Hang:
    """A tool the child runs until it is cancelled; records that it started and was stopped."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = False

    async def run(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        self.started.set()
        try:
            await asyncio.sleep(SAFETY_S * 2)
        except asyncio.CancelledError:
            self.cancelled = True
            raise
        return ToolOutcome("result", "never")

    async def wait_started(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        await asyncio.wait_for(self.started.wait(), SAFETY_S)
        return ToolOutcome("result", "the child is working")


def make(cfg: HarnessConfig, fn, tmp_path: Path, extra: list[Tool]) -> tuple[Agent, SubagentSpawner]:
    agent = Agent(cfg, FunctionModel(fn), LocalWorkspace(tmp_path),
                  tools=[*resolve_tools(["bash", "write_file"]), *extra])
    spawner = agent.spawner
    assert spawner is not None
    return agent, spawner


def hand_off(hang: Hang):
    """Parent: spawn in the background, wait until the child works, answer. Child: hang."""

    def fn(messages: list[Message], tools: list[ToolSpec]):
        if is_child(messages):
            return [call("hang")] if not results(messages) else "child done"
        done = len(results(messages))
        if done == 0:
            return [call("agent", task="archive everything", background=True)]
        return [call("wait_started")] if done == 1 else "handed off"

    return fn


def hang_tools(hang: Hang) -> list[Tool]:
    return [Tool("hang", "hang", EMPTY, hang.run), Tool("wait_started", "wait", EMPTY, hang.wait_started)]


def test_background_spawn_returns_at_once_and_delivers_the_result_later(tmp_path: Path) -> None:
    seen: list[list[Message]] = []
    spawner_box: list[SubagentSpawner] = []

    async def wait_child(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        [child_id] = spawner_box[0].background.tasks
        await spawner_box[0].registry.wait(child_id)
        return ToolOutcome("result", "waited")

    def fn(messages: list[Message], tools: list[ToolSpec]):
        if is_child(messages):
            if not results(messages):
                return [call("write_file", path="child.txt", content="by child")]
            return "child wrote child.txt"
        seen.append(list(messages))
        done = len(results(messages))
        if done == 0:
            return [call("agent", task="write child.txt", background=True)]
        return [call("wait_child")] if done == 1 else "parent done"

    agent, spawner = make(ON, fn, tmp_path, [Tool("wait_child", "wait", EMPTY, wait_child)])
    spawner_box.append(spawner)
    res = asyncio.run(asyncio.wait_for(agent.run("delegate"), SAFETY_S))
    first = results(res.messages)[0]
    assert "started in the background" in first.content and not first.is_error
    delivered = [m for m in seen[-1] if m.role == "user" and "background sub-agent" in m.content]
    assert len(delivered) == 1 and "finished: completed" in delivered[0].content
    assert "child wrote child.txt" in delivered[0].content
    assert (tmp_path / "child.txt").read_text() == "by child"
    assert res.status == ExitStatus.COMPLETED


def test_an_orphan_is_reaped_when_the_parent_run_ends(tmp_path: Path) -> None:
    hang = Hang()
    agent, spawner = make(ON, hand_off(hang), tmp_path, hang_tools(hang))

    async def go():
        res = await asyncio.wait_for(agent.run("archive"), SAFETY_S)
        return res, hang.cancelled  # observed the moment the parent's run returned

    res, stopped_by_then = asyncio.run(go())
    [record] = spawner.registry.children(spawner.agent_id)
    assert res.status == ExitStatus.COMPLETED and res.message == "handed off"
    assert stopped_by_then and record.status == "interrupted"
    assert any(e.type == "subagent.orphans_reaped" for e in res.events)


def test_without_reaping_the_orphan_keeps_running(tmp_path: Path) -> None:
    hang = Hang()
    agent, spawner = make(NO_REAP, hand_off(hang), tmp_path, hang_tools(hang))

    async def go():
        res = await asyncio.wait_for(agent.run("archive"), SAFETY_S)
        [record] = spawner.registry.children(spawner.agent_id)
        state = (record.status, hang.cancelled)
        spawner.registry.interrupt_subtree(record.id)  # clean up: stop it ourselves
        await spawner.background.stop([record.id], SAFETY_S)
        return res, state

    res, (status, cancelled) = asyncio.run(go())
    assert res.status == ExitStatus.COMPLETED
    assert status == "running" and not cancelled
    assert any(e.type == "subagent.orphans_left" for e in res.events)


def test_a_background_child_outlives_the_write_gate_of_its_spawn(tmp_path: Path) -> None:
    """With deadlines on, a call's workspace is gated and sealed when its batch ends; the
    background child works on after that and must still be able to write."""
    release = asyncio.Event()

    async def wait_release(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        await asyncio.wait_for(release.wait(), SAFETY_S)
        return ToolOutcome("result", "released")

    async def do_release(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        release.set()  # the spawning batch is over: its gates are sealed by now
        return ToolOutcome("result", "ok")

    wrote: list[Message] = []

    def fn(messages: list[Message], tools: list[ToolSpec]):
        if is_child(messages):
            done = len(results(messages))
            if done == 0:
                return [call("wait_release")]
            if done == 1:
                return [call("write_file", path="late.txt", content="child")]
            wrote.append(results(messages)[-1])
            return "written"
        done = len(results(messages))
        if done == 0:
            return [call("agent", task="write late.txt", background=True)]
        if done == 1:
            return [call("release")]
        if done == 2:
            return [call("bash", command="for i in $(seq 600); do [ -f late.txt ] && break; sleep 0.05; done")]
        if not wrote and done < 60:  # the child sees its write's result on its next turn: wait for it
            return [call("bash", command="sleep 0.1")]
        return "done"

    cfg = HarnessConfig(subagents={"enabled": True}, deadlines={"enabled": True})
    agent, _ = make(cfg, fn, tmp_path, [Tool("wait_release", "w", EMPTY, wait_release),
                                        Tool("release", "r", EMPTY, do_release)])
    asyncio.run(asyncio.wait_for(agent.run("go"), SAFETY_S))
    assert (tmp_path / "late.txt").read_text() == "child"
    assert wrote and not wrote[0].is_error


def test_background_must_be_a_boolean(tmp_path: Path) -> None:
    def fn(messages: list[Message], tools: list[ToolSpec]):
        return [call("agent", task="x", background="yes")] if not results(messages) else "ok"

    agent, _ = make(ON, fn, tmp_path, [])
    res = asyncio.run(asyncio.wait_for(agent.run("go"), SAFETY_S))
    [r] = results(res.messages)
    assert r.is_error and "'background' must be true or false" in r.content
