"""Parallel read waves, replay skipping and orphan reaping: the judges on hand-made evidence, and
the three scenarios end to end on the local sandbox (looplab passes; the control switched off
and naive fail)."""

from __future__ import annotations

import asyncio
import re
import time
from pathlib import Path

import pytest

from evals.judges import Evidence
from evals.judges.base import make_judge
from evals.judges.scheduling import max_overlap
from harness import LocalWorkspace
from harness.messages import Message
from harness.model import ToolSpec
from scenarios.actor.actions import Answer, Parallel, RawCall, Run
from scenarios.actor.policies import act
from scenarios.actor.view import ActorView
from tests.evals.evidence import scenario as scenario_of
from tests.evals.suite import run_suite, verdicts

SCENARIOS = {
    "orchestration-parallel-reads": ("orchestration.parallel_reads", "parallel_tools.enabled=false"),
    "orchestration-replay-skip": ("orchestration.replay_skip", "replay.enabled=false"),
    "orchestration-orphans-reaped": ("orchestration.orphans_reaped", "subagents.reap_orphans=false"),
}


def judge(tmp_path: Path, name: str, params: dict, files: dict[str, str]):
    for path, text in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    ev = Evidence(scenario_of("s"), LocalWorkspace(tmp_path), [], "completed", "")
    return asyncio.run(make_judge(name, params)(ev))


def test_overlap_counts_waits_open_at_one_moment() -> None:
    assert max_overlap([("a", 0, 1), ("b", 1, 2), ("c", 2, 3)]) == 1  # back to back
    assert max_overlap([("a", 0, 1), ("b", 0.1, 1.1), ("c", 0.2, 1.2), ("d", 1.15, 2)]) == 3
    assert max_overlap([]) == 0


READS = {"log": "r.log", "reads": 2, "writes_log": "w.log", "writes": 2}


def test_reads_overlapped_passes_parallel_reads_and_sequential_writes(tmp_path: Path) -> None:
    v = judge(tmp_path, "reads_overlapped", READS, {
        "r.log": "a.log 10.0 11.0 1\nb.log 10.1 11.1 1\n", "w.log": "x 12.0 12.3\ny 12.3 12.6\n"})
    assert v.passed and v.figure == 1.1


def test_reads_overlapped_fails_sequential_reads(tmp_path: Path) -> None:
    v = judge(tmp_path, "reads_overlapped", READS, {
        "r.log": "a.log 10.0 11.0 1\nb.log 11.0 12.0 1\n", "w.log": "x 12.0 12.3\ny 12.3 12.6\n"})
    assert v.passed is False and v.figure == 2.0 and "at most 1 reads" in v.explanation


def test_reads_overlapped_fails_overlapping_writes_and_undelivered_reads(tmp_path: Path) -> None:
    v = judge(tmp_path, "reads_overlapped", READS, {
        "r.log": "a.log 10.0 11.0 1\nb.log 10.1 11.1 1\n", "w.log": "x 12.0 12.3\ny 12.1 12.6\n"})
    assert v.passed is False and "at most 2 at once" in v.explanation
    v = judge(tmp_path / "2", "reads_overlapped", READS, {
        "r.log": "a.log 10.0 11.0 1\nb.log 10.1 11.1 0\n", "w.log": "x 12.0 12.3\ny 12.3 12.6\n"})
    assert v.passed is False and "1/2 slow sources" in v.explanation


def test_pipe_reads_between_counts_one_pipe(tmp_path: Path) -> None:
    params = {"log": "r.log", "pipe": "s.log"}
    assert judge(tmp_path, "pipe_reads_between", params, {"r.log": "s.log 1 2 1\nt.log 1 2 1\n"}).passed
    v = judge(tmp_path / "2", "pipe_reads_between", params, {"r.log": "s.log 1 2 1\ns.log 3 4 1\n"})
    assert v.passed is False and v.figure == 2
    assert judge(tmp_path / "3", "pipe_reads_between", params, {}).passed is False  # never ran


ORPHAN = {"marks_file": "m", "wait_s": 0, "grace_s": 0.5}


def test_no_work_after_parent(tmp_path: Path) -> None:
    now = time.time()  # the local workspace shares this clock
    v = judge(tmp_path, "no_work_after_parent", ORPHAN, {"m": f"{now - 5}\n{now - 1}\n"})
    assert v.passed and v.figure == 0
    v = judge(tmp_path / "2", "no_work_after_parent", ORPHAN, {"m": f"{now - 5}\n{now + 60}\n{now + 61}\n"})
    assert v.passed is False and v.figure == 2
    v = judge(tmp_path / "3", "no_work_after_parent", ORPHAN, {})
    assert v.passed is False and "spawned none" in v.explanation


def view(task: str, tools: list[str], messages: list[Message] | None = None) -> ActorView:
    specs = [ToolSpec(name=t, description="", parameters={}) for t in tools]
    return ActorView([Message.system("s"), Message.user(task), *(messages or [])], specs)


def test_searches_use_the_read_only_tool_when_offered_else_the_shell() -> None:
    params = {"pattern": "FAILED", "paths": ["a.log", "b.log"], "commands": ["./note.sh x"]}
    a = act("batch_searches", params, view("t", ["bash", "grep"]))
    assert isinstance(a, Parallel) and a.actions[0] == RawCall("grep", {"pattern": "FAILED", "path": "a.log"})
    assert a.actions[-1] == Run("./note.sh x")
    b = act("batch_searches", params, view("t", ["bash"]))
    assert isinstance(b, Parallel) and b.actions[0] == Run("grep -nE -e FAILED -- a.log")


def test_background_handoff_plays_parent_and_child() -> None:
    params = {"child_task": "c", "child_marker": "one batch at a time", "step_command": "step {i}",
              "parent_command": "stamp"}
    assert act("background_handoff", params, view("archive", ["bash", "agent"])) == \
        RawCall("agent", {"task": "c", "background": True})
    assert isinstance(act("background_handoff", params, view("archive", ["bash"])), Answer)
    assert act("background_handoff", params, view("Sub-task: one batch at a time", ["bash"])) == Run("step 1")


NAIVE = {"orchestration-parallel-reads": False, "orchestration-replay-skip": False,
         # naive offers no sub-agent tool: no orphan can exist, so the item is not applicable
         "orchestration-orphans-reaped": None}


@pytest.mark.parametrize("config,overrides,expect", [
    ("looplab", "", dict.fromkeys(SCENARIOS, True)),
    ("naive", "", NAIVE),
])
def test_scenarios_on_and_naive(tmp_path: Path, config: str, overrides: str, expect: dict) -> None:
    results = verdicts(run_suite(tmp_path, config, scenarios=",".join(SCENARIOS), overrides=overrides))
    got = {sid: results[sid][item]["passed"] for sid, (item, _) in SCENARIOS.items()}
    assert got == expect, {
        sid: results[sid][item]["explanation"] for sid, (item, _) in SCENARIOS.items()}


WHY_OFF = {
    "orchestration-parallel-reads": r"4/4 slow sources .* at most 1 reads waited at once",
    "orchestration-replay-skip": r"read 4 times",
    "orchestration-orphans-reaped": r"[1-9]\d* of them after the parent's run",
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_each_scenario_fails_with_its_control_off(tmp_path: Path, scenario: str) -> None:
    item, off = SCENARIOS[scenario]
    v = verdicts(run_suite(tmp_path, "looplab", scenarios=scenario, overrides=off))[scenario][item]
    assert v["passed"] is False and re.search(WHY_OFF[scenario], v["explanation"]), v["explanation"]
