"""Sub-agent registry: parent tracking, pushed completion, orphans, the interrupt fence."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.subagents.registry import SubagentRegistry, SubagentResult
from harness.testing import call, scripted
from harness.tools import Tool, ToolContext, ToolOutcome

SAFETY_S = 60


def test_depth_and_children_are_tracked() -> None:
    async def go() -> None:
        reg = SubagentRegistry()
        reg.spawn("c1", "root", "t1")
        reg.spawn("c2", "root", "t2")
        reg.spawn("g1", "c1", "t3")
        assert (reg.depth("root"), reg.depth("c1"), reg.depth("g1")) == (0, 1, 2)
        assert reg.count_children("root") == 2
        assert [r.id for r in reg.descendants("root")] == ["c1", "c2", "g1"]
        reg.announce_completion("c2", SubagentResult("c2", "completed", "ok"))
        assert reg.count_children("root") == 2 and reg.records["c2"].status == "completed"

    asyncio.run(go())


def test_completion_is_pushed_not_polled() -> None:
    async def go() -> None:
        reg = SubagentRegistry()
        reg.spawn("c1", "p", "a")
        reg.spawn("c2", "p", "b")
        waiter = asyncio.ensure_future(reg.wait("c1"))
        await asyncio.sleep(0)
        assert not waiter.done()
        reg.announce_completion("c2", SubagentResult("c2", "turn_limit", ""))
        reg.announce_completion("c1", SubagentResult("c1", "completed", "answer"))
        assert (await waiter).answer == "answer"
        assert reg.records["c2"].status == "failed" and reg.records["c1"].status == "completed"

    asyncio.run(go())


def test_orphans_are_detected_and_reaped(tmp_path: Path) -> None:
    started = asyncio.Event()

    async def hang(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        started.set()
        await asyncio.sleep(SAFETY_S * 2)
        return ToolOutcome("result", "never")

    tool = Tool("hang", "hang", {"type": "object", "properties": {}}, hang)

    async def go():
        child = Agent(HarnessConfig(), scripted([call("hang")]), LocalWorkspace(tmp_path), tools=[tool])
        reg = SubagentRegistry()
        reg.spawn("c1", "parent", "t", agent=child)
        run = asyncio.ensure_future(child.run("t"))
        await asyncio.wait_for(started.wait(), SAFETY_S)
        assert reg.orphans() == []
        reg.mark_finished("parent")  # the parent's run ended while c1 still runs
        assert [r.id for r in reg.orphans()] == ["c1"]
        assert reg.reap_orphans() == ["c1"]
        return reg, await asyncio.wait_for(run, SAFETY_S)

    reg, res = asyncio.run(go())
    assert res.status == ExitStatus.INTERRUPTED and reg.records["c1"].fence


def test_children_spawned_under_a_flipped_fence_start_fenced() -> None:
    async def go() -> None:
        reg = SubagentRegistry()
        reg.spawn("c1", "root", "t")
        reg.interrupt_subtree("c1")
        assert reg.spawn("g1", "c1", "t").fence and not reg.spawn("c2", "root", "t").fence

    asyncio.run(go())
