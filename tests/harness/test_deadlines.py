"""Turn budget, per-tool deadlines, the trace and the late-write gate (seed 003)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest

from harness import Agent, HarnessConfig, LocalWorkspace
from harness.events import RunEvent
from harness.execution.deadlines import GatedWorkspace, LateWriteError, ToolTrace, TurnBudget
from harness.testing import call, scripted
from harness.tools import Tool, ToolContext, ToolOutcome, resolve_tools

SAFETY_S = 60  # generous: only guards against a hang


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_per_tool_deadline_is_the_cap_or_what_is_left() -> None:
    clock = Clock()
    budget = TurnBudget(300, clock=clock)
    assert budget.per_tool_remaining_s(60) == 60
    clock.now += 270
    assert budget.per_tool_remaining_s(60) == pytest.approx(30)
    clock.now += 40
    assert budget.remaining_s() == 0 and budget.per_tool_remaining_s(60) == 0


def test_complete_trace_is_false_after_a_timeout() -> None:
    trace = ToolTrace()
    gate = trace.start("c1")
    trace.start("c2")
    trace.mark_timed_out("c1")
    assert not gate.open
    assert trace.complete_trace("c1") is False
    assert trace.complete_trace("c2") is True


def test_the_gate_blocks_writes_and_commands_but_not_reads(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a")
    trace = ToolTrace()
    ws = GatedWorkspace(LocalWorkspace(tmp_path), trace.start("c"))

    async def go() -> None:
        await ws.write_file("b.txt", "b")  # open: fine
        trace.mark_timed_out("c")
        assert await ws.read_file("a.txt") == "a"
        with pytest.raises(LateWriteError):
            await ws.write_file("c.txt", "c")
        with pytest.raises(LateWriteError):
            await ws.exec("touch d.txt")

    asyncio.run(go())
    assert (tmp_path / "b.txt").exists()
    assert not (tmp_path / "c.txt").exists() and not (tmp_path / "d.txt").exists()


class Stubborn:
    """A tool that ignores cancellation and then tries to write: the late write under test."""

    def __init__(self, work_s: float) -> None:
        self.work_s = work_s
        self.attempted = asyncio.Event()
        self.error: BaseException | None = None

    async def __call__(self, args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
        try:
            try:
                await asyncio.sleep(self.work_s)
            except asyncio.CancelledError:
                pass  # misbehaves on purpose: keeps going after being cancelled
            await asyncio.sleep(0.01)
            await ctx.workspace.write_file("late.txt", "written late")
            return ToolOutcome("result", "stubborn finished")
        except BaseException as e:
            self.error = e
            raise
        finally:
            self.attempted.set()


def _run(cfg: HarnessConfig, tmp_path: Path, tool_fn: Stubborn, *turns):
    tool = Tool("slow", "Slow tool.", {"type": "object", "properties": {}}, tool_fn, effect="local_write")
    events: list[RunEvent] = []

    async def go():
        agent = Agent(cfg, scripted(*turns, "done"), LocalWorkspace(tmp_path),
                      tools=[tool, *resolve_tools(["bash"])], on_event=events.append)
        res = await asyncio.wait_for(agent.run("t"), SAFETY_S)
        await asyncio.wait_for(tool_fn.attempted.wait(), SAFETY_S)  # let the late tool finish
        await asyncio.sleep(0)
        return res

    return asyncio.run(go()), events


DEADLINES = {"enabled": True, "per_tool_cap_s": 2.0, "grace_s": 0.0}
"""The cap applies to every call: the stubborn tool (30 s) misses it, and a plain `echo` after it
must not, even on a loaded machine (a 50 ms cap timed out bash itself there)."""


def test_a_call_past_its_deadline_times_out_and_its_late_write_is_suppressed(tmp_path: Path) -> None:
    stubborn = Stubborn(work_s=30)
    res, events = _run(HarnessConfig(deadlines=DEADLINES), tmp_path, stubborn,
                       [call("slow"), call("bash", command="echo after")])
    slow, after = [m for m in res.messages if m.role == "tool"]
    assert slow.is_error and "timed out" in slow.content and "deadline" in slow.content
    assert after.content.strip() == "after"  # the turn went on
    assert not (tmp_path / "late.txt").exists()
    assert isinstance(stubborn.error, LateWriteError)  # the gate refused the late write
    assert any(e.type == "tool.late_result_suppressed" for e in events)
    assert "stubborn finished" not in str([m.content for m in res.messages])


def test_without_deadlines_the_slow_tool_finishes_and_writes(tmp_path: Path) -> None:
    stubborn = Stubborn(work_s=0.2)
    res, _ = _run(HarnessConfig(), tmp_path, stubborn, [call("slow")])
    assert next(m for m in res.messages if m.role == "tool").content == "stubborn finished"
    assert (tmp_path / "late.txt").read_text() == "written late"


def test_once_the_budget_is_spent_further_calls_are_denied(tmp_path: Path) -> None:
    cfg = HarnessConfig(deadlines={"enabled": True, "turn_budget_s": 0.1, "per_tool_cap_s": 10, "grace_s": 0})
    res, _ = _run(cfg, tmp_path, Stubborn(work_s=30), [call("slow")], [call("bash", command="touch x")])
    slow, bash = [m for m in res.messages if m.role == "tool"]
    assert "timed out" in slow.content
    assert bash.is_error and "budget" in bash.content and not (tmp_path / "x").exists()


def test_cooperative_tools_get_the_deadline_as_their_timeout(tmp_path: Path) -> None:
    cfg = HarnessConfig(deadlines={"enabled": True, "per_tool_cap_s": 0.3, "grace_s": 5})
    model = scripted([call("bash", command="echo partial; sleep 30")], "done")
    res = asyncio.run(asyncio.wait_for(Agent(cfg, model, LocalWorkspace(tmp_path)).run("t"), SAFETY_S))
    msg = next(m for m in res.messages if m.role == "tool")
    # bash's own timeout answer, not the executor's
    assert msg.is_error and "command timed out after 0.3" in msg.content


def test_a_closed_gate_also_refuses_renames(tmp_path):
    from harness.execution.deadlines import WriteGate

    async def go() -> None:
        inner = LocalWorkspace(tmp_path)
        await inner.write_file("a.txt", "x")
        gate = WriteGate()
        ws = GatedWorkspace(inner, gate)
        await ws.rename("a.txt", "b.txt")
        assert (tmp_path / "b.txt").exists()
        gate.close()
        with pytest.raises(LateWriteError):
            await ws.rename("b.txt", "c.txt")

    asyncio.run(go())
    assert (tmp_path / "b.txt").exists() and not (tmp_path / "c.txt").exists()
