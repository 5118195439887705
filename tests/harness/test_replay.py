"""Idempotency-aware replay control (seed 003)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness import Agent, HarnessConfig, LocalWorkspace
from harness.execution.replay import ReplayControl
from harness.testing import call, scripted
from harness.tools import ToolOutcome, resolve_tools

READ, WRITE, BASH = resolve_tools(["read_file", "write_file", "bash"])
OK, FAIL, TIMEOUT = ToolOutcome("result", ""), ToolOutcome("failure", ""), ToolOutcome("timeout", "")


def test_rules() -> None:
    rc = ReplayControl()
    a = call("read_file", path="a")
    assert rc.should_skip(a, READ) is None
    rc.record(a, READ, OK)
    prior = rc.should_skip(call("read_file", path="a"), READ)
    assert prior is not None and prior.call_id == a.id
    assert rc.should_skip(call("read_file", path="b"), READ) is None  # other arguments
    rc.record(call("read_file", path="b"), READ, FAIL)
    assert rc.should_skip(call("read_file", path="b"), READ) is None  # failed: retry allowed
    rc.record(call("read_file", path="c"), READ, TIMEOUT)
    assert rc.should_skip(call("read_file", path="c"), READ) is None  # timed out: retry allowed
    rc.record(call("bash", command="date"), BASH, OK)
    assert rc.should_skip(call("bash", command="date"), BASH) is None  # not idempotent
    assert rc.should_skip(call("read_file", path="a"), READ) is None  # bash wrote: forget reads


def test_an_idempotent_write_is_skipped_only_until_something_else_writes() -> None:
    rc = ReplayControl()
    w = call("write_file", path="a", content="x")
    rc.record(w, WRITE, OK)
    assert rc.should_skip(call("write_file", path="a", content="x"), WRITE) is not None
    rc.record(call("bash", command="echo y > a"), BASH, OK)
    assert rc.should_skip(call("write_file", path="a", content="x"), WRITE) is None


def test_without_invalidation_reads_stay_skipped_after_writes() -> None:
    rc = ReplayControl(invalidate_on_write=False)
    rc.record(call("read_file", path="a"), READ, OK)
    rc.record(call("bash", command="rm a"), BASH, OK)
    assert rc.should_skip(call("read_file", path="a"), READ) is not None


def _run(cfg: HarnessConfig, tmp_path: Path):
    (tmp_path / "a.txt").write_text("one")
    model = scripted(
        [call("read_file", path="a.txt")],
        [call("read_file", path="a.txt")],                   # skipped when replay is on
        [call("bash", command="echo run >> count.txt")],
        [call("bash", command="echo run >> count.txt")],     # never skipped: not idempotent
        [call("read_file", path="a.txt")],                   # runs again: bash may have changed it
    )
    res = asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("t"))
    return [m for m in res.messages if m.role == "tool"], res


def test_in_a_run_the_repeat_is_skipped_and_the_rest_runs(tmp_path: Path) -> None:
    msgs, res = _run(HarnessConfig(replay={"enabled": True}), tmp_path)
    assert [m.is_error for m in msgs] == [False, True, False, False, False]
    assert "already ran successfully" in msgs[1].content
    assert (tmp_path / "count.txt").read_text() == "run\nrun\n"
    assert msgs[4].content == "one"
    assert [e.type for e in res.events].count("tool.replay_skipped") == 1


def test_without_replay_control_every_repeat_runs(tmp_path: Path) -> None:
    msgs, _ = _run(HarnessConfig(), tmp_path)
    assert [m.content for m in msgs][:2] == ["one", "one"]
