"""One place builds an agent: the ordered table, the bindings, on_run_start, the limits table."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.assembly import TABLE, Bindings, assemble, build_controls
from harness.controls.base import Control
from harness.model import ModelReply
from harness.sessions.session import Session
from harness.state import Limit, RunState
from harness.status import RunEnded
from harness.testing import call, scripted

HARNESS = Path(__file__).resolve().parents[2] / "harness"

EVERYTHING = HarnessConfig(
    observability={"enabled": True}, budget={"enabled": True}, mode={"enabled": True},
    command_guard={"enabled": True}, path_guard={"enabled": True},
    permissions={"enabled": True}, truncation={"enabled": True},
    redaction={"enabled": True, "redact_tool_output": True}, untrusted_output={"enabled": True},
    contract_first={"enabled": True}, hooks={"enabled": True},
    loop_detection={"enabled": True}, empty_reply={"enabled": True},
    verify_done={"enabled": True}, progress={"enabled": True}, reflection={"enabled": True},
    prompt={"enabled": True, "refresh_each_turn": True}, bootstrap_once={"enabled": True},
    compaction={"enabled": True}, transcript={"enabled": True}, subagents={"enabled": True},
)


# --- the table -----------------------------------------------------------------------------------

def test_every_row_says_why_it_sits_where_it_does() -> None:
    assert len({r.name for r in TABLE}) == len(TABLE)
    assert all(len(r.why) > 20 for r in TABLE)


def test_the_table_orders_every_control_and_the_supervisor_comes_last(tmp_path: Path) -> None:
    parts = assemble(EVERYTHING, make_child=lambda *a: None)  # type: ignore[arg-type,return-value]
    names = [c.name for c in parts.controls]
    assert names == [
        "observability", "budget", "mode", "command_guard", "path_guard", "permissions",
        "truncation", "redaction", "untrusted_output", "contract_first", "hooks",
        "loop_detection", "empty_reply", "verify_done", "session_bootstrap", "reflection",
        "prompt_refresh", "bootstrap_once", "compaction", "transcript", "subagents"]
    assert [t.name for t in parts.tools].count("agent") == 1


def test_a_bare_config_gets_no_controls_and_build_controls_still_answers() -> None:
    assert build_controls(HarnessConfig()) == []


def test_bindings_lead_the_table_and_share_the_session_objects(tmp_path: Path) -> None:
    class Marker(Control):
        name = "marker"

    first = Marker()
    cfg = HarnessConfig(transcript={"enabled": True}, progress={"enabled": True},
                        prompt={"enabled": True}, bootstrap_once={"enabled": True},
                        observability={"enabled": True})
    session = Session("s-1", cfg, scripted("ok"), LocalWorkspace(tmp_path))
    b = Bindings(transcript=session.transcript, bootstrap=session.bootstrap, session_id="s-1",
                 first=[first])
    controls = assemble(cfg, b).controls
    assert controls[0] is first and controls[-1] is session.transcript
    assert session.transcript in controls and session.bootstrap in controls
    once = next(c for c in controls if c.name == "bootstrap_once")
    assert once.transcript is session.transcript  # type: ignore[attr-defined]
    obs = next(c for c in controls if c.name == "observability")
    assert obs.session_id == "s-1"  # type: ignore[attr-defined]


def test_a_session_runs_with_its_bindings_not_swapped_controls(tmp_path: Path) -> None:
    cfg = HarnessConfig(transcript={"enabled": True}, observability={"enabled": True})
    session = Session("s-2", cfg, scripted("one", "two"), LocalWorkspace(tmp_path))

    async def two_runs() -> list:
        return [await session.send("first"), await session.send("second")]

    first, second = asyncio.run(two_runs())
    assert first.status is second.status is ExitStatus.COMPLETED
    started = [e for e in first.events + second.events if e.type == "run.started"]
    assert [e.data["session_id"] for e in started] == ["s-2", "s-2"]
    text = (tmp_path / ".looplab/sessions/s-2.jsonl").read_text()
    assert text.count('"marker": "run:ended"') == 2  # one transcript for both runs


# --- on_run_start --------------------------------------------------------------------------------

class TurnsThisRun(Control):
    """A stateful newcomer: counts replies per run and remembers the task it started with."""

    name = "turns_this_run"

    def __init__(self) -> None:
        self.count = 0
        self.seen: list[tuple[str, int]] = []

    async def on_run_start(self, run: RunState) -> None:
        self.count = 0
        self.seen.append((run.messages[-1].content, len(run.messages)))

    async def after_reply(self, run: RunState, reply: ModelReply) -> bool:
        self.count += 1
        return False


def test_on_run_start_resets_a_control_between_the_runs_of_an_agent(tmp_path: Path) -> None:
    ctl = TurnsThisRun()
    model = scripted([call("bash", command="true")], "a", [call("bash", command="true")], "b")
    agent = Agent(HarnessConfig(), model, LocalWorkspace(tmp_path), controls=[ctl])

    async def two_runs() -> None:
        await agent.run("task one")
        assert ctl.count == 2
        await agent.run("task two")

    asyncio.run(two_runs())
    assert ctl.count == 2  # not 4: no state leaks from the first run
    assert [task for task, _ in ctl.seen] == ["task one", "task two"]


def test_no_control_detects_a_new_run_by_identity() -> None:
    offenders = [str(p.relative_to(HARNESS)) for p in HARNESS.rglob("*.py")
                 if "run is not self._run" in p.read_text() or "run is self._run" in p.read_text()
                 or "run is self._started" in p.read_text()]
    assert offenders == []


# --- limits --------------------------------------------------------------------------------------

class Widgets(Control):
    """A new run-ending limit plugged in as a row: one widget per turn, three at most."""

    name = "widgets"

    async def on_run_start(self, run: RunState) -> None:
        run.limits["widgets"] = Limit("widgets", ExitStatus.TOKEN_BUDGET, 3)
        self.spent = 0

    async def after_tools(self, run: RunState) -> None:
        self.spent += 1
        if run.reached("widgets", self.spent):
            run.end("widgets", f"{self.spent} widgets spent")


def test_a_new_limit_is_one_row_and_ends_the_run_typed(tmp_path: Path) -> None:
    model = scripted(*[[call("bash", command="true")]] * 10)
    res = asyncio.run(Agent(HarnessConfig(), model, LocalWorkspace(tmp_path),
                            controls=[Widgets()]).run("go"))
    assert res.status is ExitStatus.TOKEN_BUDGET and res.message == "3 widgets spent"
    assert res.turns == 3


def test_counted_limits_are_checked_together_in_table_order(tmp_path: Path) -> None:
    cfg = HarnessConfig(limits={"max_turns": 2, "max_tool_calls": 2})
    model = scripted(*[[call("bash", command="true")]] * 5)
    res = asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("go"))
    assert res.status is ExitStatus.TURN_LIMIT and res.message == "turn limit 2 reached"
    state = RunState(cfg, LocalWorkspace(tmp_path), [])
    assert list(state.limits)[:2] == ["turns", "tool_calls"]
    state.tool_calls = 2
    with pytest.raises(RunEnded) as ended:
        state.check_limits()
    assert ended.value.status is ExitStatus.TOOL_CALL_LIMIT
    with pytest.raises(RunEnded) as ended:
        state.end("circuit_breaker", "tripped")
    assert ended.value.status is ExitStatus.CIRCUIT_BREAKER
    with pytest.raises(KeyError, match="unknown limit 'nope'"):
        state.end("nope", "?")


# --- the import graph (cycles and deferred imports: tests/test_import_cycles.py) -----------------

def test_subagents_never_import_the_loop() -> None:
    for path in (HARNESS / "subagents").glob("*.py"):
        assert "harness.loop" not in path.read_text(), path.name
