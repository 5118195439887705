"""Loop detection: each detector shown working, and the same run shown without it."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from pydantic import ValidationError

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.config import LoopDetectionConfig
from harness.controls.loop_detectors import CallRecord, PollMatcher, detect, ping_pong
from harness.testing import FunctionModel, call, scripted
from harness.tools import Tool, ToolOutcome, resolve_tools

ALL_OFF = dict(identical_repeat=False, failing_repeat=False, ping_pong=False, known_poll=False,
               unknown_tool=False, circuit_breaker=False)


def config(max_turns: int = 15, **loop: Any) -> HarnessConfig:
    return HarnessConfig(limits={"max_turns": max_turns}, loop_detection=loop)


def run(cfg: HarnessConfig, model: FunctionModel, tmp_path: Path, tools: list[Tool] | None = None):
    agent = Agent(cfg, model, LocalWorkspace(tmp_path), tools=tools)
    return asyncio.run(agent.run("do the task"))


def tool_texts(result) -> list[str]:
    return [m.content for m in result.messages if m.role == "tool"]


def repeating(*calls_fn) -> FunctionModel:
    """A model that cycles through the given call factories forever."""
    n = {"i": 0}

    def fn(messages, tools):
        f = calls_fn[n["i"] % len(calls_fn)]
        n["i"] += 1
        return [f()]

    return FunctionModel(fn)


def status_tool(results: list[str]) -> Tool:
    """A ``check_status`` poll tool answering ``results`` in order (the last one forever)."""
    seen = {"n": 0}

    async def run_(args: dict[str, Any], ctx: Any) -> ToolOutcome:
        i = min(seen["n"], len(results) - 1)
        seen["n"] += 1
        return ToolOutcome("result", results[i])

    return Tool("check_status", "Job status.", {"type": "object", "properties": {}}, run_)


# --- identical repeat -----------------------------------------------------------------------

def test_identical_repeat_warns_then_intervenes_then_stops(tmp_path: Path) -> None:
    cfg = config(enabled=True, warning_threshold=3, critical_threshold=5, critical_limit=2)
    res = run(cfg, repeating(lambda: call("bash", command="echo hi")), tmp_path)
    texts = tool_texts(res)
    assert res.status == ExitStatus.CIRCUIT_BREAKER
    assert not texts[1].startswith("[WARNING") and texts[2].startswith("[WARNING")
    assert texts[4].startswith("[LOOP DETECTED]") and "5 times" in texts[4]
    assert len(texts) == 7  # criticals at calls 5, 6, 7; the third exceeds critical_limit=2
    assert [e.type for e in res.events].count("loop.critical") == 3


def test_identical_repeat_off_runs_into_the_turn_cap(tmp_path: Path) -> None:
    res = run(config(enabled=False), repeating(lambda: call("bash", command="echo hi")), tmp_path)
    assert res.status == ExitStatus.TURN_LIMIT
    assert not any("[LOOP DETECTED]" in t or "[WARNING" in t for t in tool_texts(res))


def test_critical_limit_none_intervenes_but_never_stops(tmp_path: Path) -> None:
    cfg = config(max_turns=10, enabled=True, critical_limit=None)
    res = run(cfg, repeating(lambda: call("bash", command="echo hi")), tmp_path)
    assert res.status == ExitStatus.TURN_LIMIT
    assert sum("[LOOP DETECTED]" in t for t in tool_texts(res)) == 6


# --- repeated failing call (seed 000) -------------------------------------------------------

def test_failing_call_twice_in_four_gets_an_intervention(tmp_path: Path) -> None:
    model = scripted([call("bash", command="cat missing.txt")],
                     [call("bash", command="cat missing.txt")])
    res = run(config(enabled=True, **{**ALL_OFF, "failing_repeat": True}), model, tmp_path)
    first, second = tool_texts(res)
    assert "[LOOP DETECTED]" not in first
    assert second.startswith("[LOOP DETECTED]") and "failed 2 times" in second
    assert "different approach" in second
    assert res.status == ExitStatus.COMPLETED


def test_failing_repeat_outside_the_window_is_not_flagged(tmp_path: Path) -> None:
    cmds = ["cat a.txt", "cat b.txt", "cat c.txt", "cat d.txt", "cat a.txt"]
    model = scripted(*[[call("bash", command=c)] for c in cmds])
    res = run(config(enabled=True, **{**ALL_OFF, "failing_repeat": True}), model, tmp_path)
    assert not any("[LOOP DETECTED]" in t for t in tool_texts(res))


def test_failing_repeat_off_lets_the_model_repeat_silently(tmp_path: Path) -> None:
    model = scripted([call("bash", command="cat missing.txt")],
                     [call("bash", command="cat missing.txt")])
    res = run(config(enabled=True, **ALL_OFF), model, tmp_path)
    assert not any("[LOOP DETECTED]" in t for t in tool_texts(res))


def test_same_output_mode_lets_a_rerun_with_new_output_through(tmp_path: Path) -> None:
    """Run the tests, edit, run them again: with ``failing_repeat_same_output`` the second run's
    different failure is not a loop; with the seed-000 default it is."""
    check = "python3 -c 'import sys; sys.exit(open(\"calc.py\").read())'"
    model = scripted([call("bash", command=check)],
                     [call("write_file", path="calc.py", content="second failure")],
                     [call("bash", command=check)])
    loose = {**ALL_OFF, "failing_repeat": True}
    (tmp_path / "calc.py").write_text("first failure")
    res = run(config(enabled=True, **loose, failing_repeat_same_output=True), model, tmp_path)
    assert not any("[LOOP DETECTED]" in t for t in tool_texts(res))
    model = scripted([call("bash", command=check)],
                     [call("write_file", path="calc.py", content="second failure")],
                     [call("bash", command=check)])
    (tmp_path / "calc.py").write_text("first failure")
    res = run(config(enabled=True, **loose), model, tmp_path)
    assert tool_texts(res)[2].startswith("[LOOP DETECTED]")


def test_a_succeeding_repeat_is_not_a_failing_repeat(tmp_path: Path) -> None:
    model = scripted([call("bash", command="echo ok")], [call("bash", command="echo ok")])
    res = run(config(enabled=True, **{**ALL_OFF, "failing_repeat": True}), model, tmp_path)
    assert not any("[LOOP DETECTED]" in t for t in tool_texts(res))


# --- ping-pong (seeds 001, 004) -------------------------------------------------------------

def _read_edit_model() -> FunctionModel:
    return repeating(lambda: call("read_file", path="a.txt"),
                     lambda: call("write_file", path="a.txt", content="x = 1\n"))


def test_ping_pong_read_edit_read_edit_is_detected(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x = 0\n")
    cfg = config(max_turns=6, enabled=True, **{**ALL_OFF, "ping_pong": True})
    res = run(cfg, _read_edit_model(), tmp_path)
    texts = tool_texts(res)
    assert not any("[LOOP DETECTED]" in t for t in texts[:3])
    assert texts[3].startswith("[LOOP DETECTED]") and "Ping-pong" in texts[3]
    assert "'read_file'" in texts[3] and "'write_file'" in texts[3]


def test_ping_pong_off_is_silent(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x = 0\n")
    res = run(config(max_turns=6, enabled=True, **ALL_OFF), _read_edit_model(), tmp_path)
    assert not any("[LOOP DETECTED]" in t for t in tool_texts(res))


def test_ping_pong_counts_only_the_trailing_alternation() -> None:
    cfg = LoopDetectionConfig(enabled=True)
    a, b, c = (CallRecord(t, t, "r") for t in "abc")
    assert ping_pong([a, b, a, b], cfg) is not None
    assert ping_pong([a, b, c, b], cfg) is None
    assert ping_pong([c, a, b, a], cfg) is None  # only 3 alternating
    assert ping_pong([a, a, a, a], cfg) is None  # identical repeat, not ping-pong


# --- known poll without progress (seed 004) -------------------------------------------------

def test_poll_with_unchanged_result_is_critical(tmp_path: Path) -> None:
    cfg = config(max_turns=8, enabled=True, poll_threshold=5, critical_limit=None)
    res = run(cfg, repeating(lambda: call("check_status")), tmp_path,
              tools=[status_tool(["running"])])
    texts = tool_texts(res)
    assert not any("[LOOP DETECTED]" in t for t in texts[:4])
    assert texts[4].startswith("[LOOP DETECTED]") and "Poll 'check_status'" in texts[4]


def test_poll_with_changing_result_is_never_flagged(tmp_path: Path) -> None:
    progress = [f"running: {p}% done" for p in range(0, 100, 8)]
    cfg = config(max_turns=len(progress), enabled=True, critical_limit=None)
    res = run(cfg, repeating(lambda: call("check_status")), tmp_path,
              tools=[status_tool(progress)])
    assert res.status == ExitStatus.TURN_LIMIT
    assert not any("[LOOP DETECTED]" in t or "[WARNING" in t for t in tool_texts(res))


def test_without_the_poll_detector_progressing_polls_are_flagged(tmp_path: Path) -> None:
    """The difference the poll detector makes: without it, identical-argument polling trips the
    identical-repeat detector even though the job is progressing."""
    progress = [f"running: {p}% done" for p in range(0, 100, 8)]
    cfg = config(max_turns=len(progress), enabled=True, known_poll=False, critical_limit=None)
    res = run(cfg, repeating(lambda: call("check_status")), tmp_path,
              tools=[status_tool(progress)])
    assert any("[LOOP DETECTED]" in t for t in tool_texts(res))


def test_bash_status_file_poll_by_command_pattern(tmp_path: Path) -> None:
    status = tmp_path / "job.status"
    status.write_text("queued\n")
    changing = {"on": True}

    def fn(messages, tools):
        n = sum(m.role == "assistant" for m in messages)
        if changing["on"]:
            status.write_text(f"step {n}\n")  # the job makes progress between polls
        return [call("bash", command="cat job.status")]

    cfg = config(max_turns=8, enabled=True, critical_limit=None)
    res = run(cfg, FunctionModel(fn), tmp_path)
    assert not any("[LOOP DETECTED]" in t for t in tool_texts(res))
    changing["on"] = False
    res = run(cfg, FunctionModel(fn), tmp_path)
    assert any(t.startswith("[LOOP DETECTED]") and "Poll 'bash'" in t for t in tool_texts(res))


def test_poll_matcher_by_name_args_and_command() -> None:
    m = PollMatcher(LoopDetectionConfig())
    assert m("get_status", {})
    assert m("process", {"action": "poll", "id": 3})
    assert not m("process", {"action": "start"})
    assert m("bash", {"command": "tail -n 5 build.log"})
    assert m("bash", {"command": "git status"})
    assert not m("bash", {"command": "cat main.py"})
    assert not PollMatcher(LoopDetectionConfig(poll_command_pattern=None))("bash", {"command": "git status"})


# --- unknown tool repeat (seed 004) ---------------------------------------------------------

def test_unknown_tool_repeat_names_the_available_tools(tmp_path: Path) -> None:
    cfg = config(max_turns=4, enabled=True, **{**ALL_OFF, "unknown_tool": True},
                 unknown_tool_threshold=3)
    res = run(cfg, repeating(lambda: call("search_web", q="x")), tmp_path)
    texts = tool_texts(res)
    assert texts[0].startswith("Unknown tool") and "[LOOP DETECTED]" not in texts[1]
    assert texts[2].startswith("[LOOP DETECTED]")
    assert "'search_web' does not exist" in texts[2]
    assert "Available tools: bash, read_file, write_file, list_dir" in texts[2]


def test_unknown_tool_detector_off(tmp_path: Path) -> None:
    res = run(config(max_turns=4, enabled=True, **ALL_OFF),
              repeating(lambda: call("search_web", q="x")), tmp_path)
    assert not any("[LOOP DETECTED]" in t for t in tool_texts(res))


# --- global circuit breaker -----------------------------------------------------------------

def test_global_circuit_breaker_stops_after_threshold_calls(tmp_path: Path) -> None:
    n = {"i": 0}

    def fn(messages, tools):
        n["i"] += 1
        return [call("bash", command=f"echo {n['i']}")]

    cfg = config(max_turns=30, enabled=True, circuit_breaker_threshold=6)
    res = run(cfg, FunctionModel(fn), tmp_path)
    assert res.status == ExitStatus.CIRCUIT_BREAKER
    assert res.tool_calls == 6 and len(tool_texts(res)) == 6
    cfg = config(max_turns=30, enabled=True, circuit_breaker=False, circuit_breaker_threshold=6)
    n["i"] = 0
    assert run(cfg, FunctionModel(fn), tmp_path).status == ExitStatus.TURN_LIMIT


def test_stop_waits_until_every_call_of_the_turn_is_answered(tmp_path: Path) -> None:
    model = FunctionModel(lambda m, t: [call("bash", command="echo hi") for _ in range(4)])
    res = run(config(enabled=True, critical_threshold=2, warning_threshold=2, critical_limit=1),
              model, tmp_path)
    assert res.status == ExitStatus.CIRCUIT_BREAKER
    calls = [c.id for m in res.messages for c in m.tool_calls]
    answered = [m.tool_call_id for m in res.messages if m.role == "tool"]
    assert calls == answered


# --- misc -----------------------------------------------------------------------------------

def test_each_run_of_an_agent_starts_with_a_clean_history(tmp_path: Path) -> None:
    cfg = config(enabled=True, **{**ALL_OFF, "identical_repeat": True}, warning_threshold=3)
    model = FunctionModel(lambda m, t: [call("bash", command="echo hi")]
                          if sum(x.role == "tool" for x in m) < 2 else "done")
    agent = Agent(cfg, model, LocalWorkspace(tmp_path), tools=resolve_tools(["bash"]))
    for _ in range(2):
        res = asyncio.run(agent.run("t"))
        assert not any("[WARNING" in t for t in tool_texts(res))


def test_detect_prefers_a_critical_over_a_warning() -> None:
    cfg = LoopDetectionConfig(enabled=True, warning_threshold=2, unknown_tool_threshold=2)
    rec = CallRecord("nope", "h", "r", failed=True, unknown=True)
    finding = detect([rec, rec], cfg, ["bash"])
    assert finding is not None and finding.level == "critical" and finding.detector == "unknown_tool"


def test_invalid_poll_regex_names_the_field() -> None:
    with pytest.raises(ValidationError, match="poll_command_pattern"):
        LoopDetectionConfig(poll_command_pattern="(unclosed")
    with pytest.raises(ValidationError, match="poll_tools"):
        LoopDetectionConfig(poll_tools=["x:(bad"])


# --- round 4: unknown tools in a row, replayed results, paths under the workspace ------------

def test_unknown_tools_in_a_row_count_together_whatever_their_names(tmp_path: Path) -> None:
    names = iter(["run_tests", "execute_tests", "test_runner", "pytest_run", "tests_exec", "go"])
    cfg = config(max_turns=7, enabled=True, **{**ALL_OFF, "unknown_tool": True},
                 unknown_tool_any_name=True, unknown_tool_threshold=3, critical_threshold=5)
    texts = tool_texts(run(cfg, FunctionModel(lambda m, t: [call(next(names))]), tmp_path))
    assert texts[1].startswith("Unknown tool")  # two names: left alone
    assert texts[2].startswith("[WARNING:") and "does not exist" in texts[2]
    assert "run_tests, execute_tests, test_runner" in texts[2] and "Available tools: bash" in texts[2]
    assert texts[4].startswith("[LOOP DETECTED]")


def test_unknown_tools_in_a_row_off_keeps_names_apart(tmp_path: Path) -> None:
    names = iter(["run_tests", "execute_tests", "test_runner", "pytest_run", "tests_exec", "go"])
    cfg = config(max_turns=7, enabled=True, **{**ALL_OFF, "unknown_tool": True}, unknown_tool_threshold=3)
    texts = tool_texts(run(cfg, FunctionModel(lambda m, t: [call(next(names))]), tmp_path))
    assert all(t.startswith("Unknown tool") for t in texts)


def test_a_real_call_ends_the_streak_of_unknown_tools(tmp_path: Path) -> None:
    calls = iter([call("run_shell"), call("exec_cmd"), call("bash", command="true"),
                  call("shell_run"), call("bash", command="echo ok")])
    cfg = config(max_turns=6, enabled=True, **{**ALL_OFF, "unknown_tool": True}, unknown_tool_any_name=True)
    texts = tool_texts(run(cfg, FunctionModel(lambda m, t: [next(calls)]), tmp_path))
    assert not any(t.startswith(("[WARNING:", "[LOOP DETECTED]")) for t in texts)


def test_a_replayed_read_keeps_its_earlier_result_so_a_cycle_is_seen(tmp_path: Path) -> None:
    """The looplab executor does not re-run an identical read-only call ("skipped: ... its earlier
    result still stands"): that is the earlier result, so A-B-C-D-A-B-C-D is a cycle at call 8."""
    from harness import get_preset

    for name in "abcd":
        (tmp_path / f"{name}.log").write_text(f"{name}: nothing new\n")
    paths = iter([f"{n}.log" for n in "abcd"] * 3)
    cfg = get_preset("looplab", limits={"max_turns": 14})
    texts = tool_texts(run(cfg, FunctionModel(lambda m, t: [call("read_file", path=next(paths))]), tmp_path))
    assert "skipped" in texts[4]
    assert texts[7].startswith("[LOOP DETECTED]") and "Cycle detected" in texts[7]


def test_an_absolute_path_under_the_workspace_is_the_relative_one(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("x")
    (tmp_path / "b").mkdir()
    paths = iter([str(tmp_path.resolve() / "a.txt"), "./a.txt", "a.txt", f"{tmp_path.resolve()}/./a.txt", "b/../a.txt"])
    cfg = config(max_turns=6, enabled=True, normalise_calls=True, identical_repeat_same_output=True)
    texts = tool_texts(run(cfg, FunctionModel(lambda m, t: [call("read_file", path=next(paths))]), tmp_path))
    assert texts[4].startswith("[LOOP DETECTED]")
