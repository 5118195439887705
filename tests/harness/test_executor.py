"""The executor: parallel reads, sequential writes, order kept, every call answered once."""

from __future__ import annotations

import asyncio
from collections import Counter
from pathlib import Path
from typing import Any

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.testing import call, scripted
from harness.tools import Tool, ToolContext, ToolOutcome

SAFETY_S = 60
PARALLEL = HarnessConfig(parallel_tools={"enabled": True})
SCHEMA = {"type": "object", "properties": {}}


class Probe:
    """Tools that record how many of them run at once and in which order they start and end."""

    def __init__(self) -> None:
        self.active = 0
        self.max_active = 0
        self.log: list[str] = []
        self.release: dict[str, asyncio.Event] = {}

    def tool(self, name: str, effect: str = "read_only", wait_for: str | None = None) -> Tool:
        async def run(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
            self.active += 1
            self.max_active = max(self.max_active, self.active)
            self.log.append(f"start {name}:{args.get('path', '')}")
            try:
                if wait_for is not None:  # finish only after another tool finished
                    await asyncio.wait_for(self.release.setdefault(wait_for, asyncio.Event()).wait(), SAFETY_S)
                await asyncio.sleep(0.01)
                if args.get("boom"):
                    raise RuntimeError("tool exploded")
                return ToolOutcome("result", f"{name}:{args.get('path', '')}")
            finally:
                self.active -= 1
                self.log.append(f"end {name}:{args.get('path', '')}")
                self.release.setdefault(name, asyncio.Event()).set()

        return Tool(name, name, SCHEMA, run, effect=effect)  # type: ignore[arg-type]


def _run(cfg: HarnessConfig, tmp_path: Path, tools: list[Tool], calls: list):
    agent = Agent(cfg, scripted(calls, "done"), LocalWorkspace(tmp_path), tools=tools)
    res = asyncio.run(asyncio.wait_for(agent.run("t"), SAFETY_S))
    return res, [m for m in res.messages if m.role == "tool"]


def test_reads_run_in_parallel_and_results_keep_the_model_order(tmp_path: Path) -> None:
    probe = Probe()
    # "slow" finishes only after "fast" did, yet its result comes first, as the model asked.
    tools = [probe.tool("slow", wait_for="fast"), probe.tool("fast")]
    res, msgs = _run(PARALLEL, tmp_path, tools, [call("slow", path="a"), call("fast", path="b")])
    assert probe.max_active == 2
    assert probe.log.index("end fast:b") < probe.log.index("end slow:a")
    assert [m.content for m in msgs] == ["slow:a", "fast:b"]
    assert [m.tool_call_id for m in msgs] == [c.id for c in res.messages[2].tool_calls]


def test_without_the_scheduler_reads_run_one_at_a_time(tmp_path: Path) -> None:
    probe = Probe()
    _run(HarnessConfig(), tmp_path, [probe.tool("r1"), probe.tool("r2")], [call("r1", path="a"), call("r2", path="b")])
    assert probe.max_active == 1


def test_writes_run_alone_and_in_order(tmp_path: Path) -> None:
    probe = Probe()
    tools = [probe.tool("read"), probe.tool("write", effect="local_write")]
    calls = [call("read", path="a"), call("write", path="x"), call("write", path="y"), call("read", path="b")]
    _run(PARALLEL, tmp_path, tools, calls)
    assert probe.max_active == 1
    assert probe.log == ["start read:a", "end read:a", "start write:x", "end write:x",
                         "start write:y", "end write:y", "start read:b", "end read:b"]


def test_same_resource_reads_do_not_share_a_wave(tmp_path: Path) -> None:
    probe = Probe()
    _run(PARALLEL, tmp_path, [probe.tool("read")], [call("read", path="a"), call("read", path="./a")])
    assert probe.max_active == 1


def test_an_exception_in_a_parallel_wave_is_answered_once_as_a_failure(tmp_path: Path) -> None:
    probe = Probe()
    tools = [probe.tool("r1"), probe.tool("r2")]
    calls = [call("r1", path="a", boom=True), call("r2", path="b"), call("missing_tool")]
    res, msgs = _run(PARALLEL, tmp_path, tools, calls)
    assert [m.tool_call_id for m in msgs] == [c.id for c in calls]
    assert msgs[0].is_error and "tool exploded" in msgs[0].content
    assert msgs[1].content == "r2:b" and msgs[2].is_error and "Unknown tool" in msgs[2].content
    assert res.status == ExitStatus.COMPLETED


def test_an_interrupt_during_a_parallel_wave_answers_every_call_once(tmp_path: Path) -> None:
    started = asyncio.Event()
    running = 0

    async def hang(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        nonlocal running
        running += 1
        if running == 2:
            started.set()
        await asyncio.sleep(SAFETY_S * 2)
        return ToolOutcome("result", "never")

    hanger = Tool("hang", "hang", SCHEMA, hang, effect="read_only")
    calls = [call("hang", path="a"), call("hang", path="b"), call("hang", path="c")]

    async def go():
        agent = Agent(PARALLEL, scripted(calls, "done"), LocalWorkspace(tmp_path), tools=[hanger])
        run = asyncio.ensure_future(agent.run("t"))
        await asyncio.wait_for(started.wait(), SAFETY_S)
        agent.interrupt()
        return await asyncio.wait_for(run, SAFETY_S)

    res = asyncio.run(go())
    assert res.status == ExitStatus.INTERRUPTED
    answered = Counter(m.tool_call_id for m in res.messages if m.role == "tool")
    assert answered == Counter({c.id: 1 for c in calls})
