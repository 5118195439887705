"""Observability: the run record with seed 004's fields, and namespaced subsystem loggers."""

from __future__ import annotations

import asyncio
import logging
from pathlib import Path

import pytest

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.assembly import build_controls
from harness.controls.base import Control
from harness.events import AgentRunEvent
from harness.model import ProviderError
from harness.testing import FunctionModel, call, scripted

SEED_FIELDS = {
    "event_type", "run_id", "session_id", "session_key", "provider", "model", "harness_id",
    "trigger", "channel", "duration_ms", "outcome", "token_usage", "tool_calls_count",
    "compaction_triggered", "auth_profile_id", "error_code",
}
OBS = {"enabled": True, "session_key": "alice@terminal", "channel": "terminal"}


def run(cfg: HarnessConfig, model, tmp_path: Path, extra: list[Control] | None = None):
    controls = [*build_controls(cfg), *(extra or [])]
    return asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path), controls=controls).run("t"))


def record(res) -> AgentRunEvent:
    (event,) = [e for e in res.events if e.type == "run.record"]
    return AgentRunEvent.model_validate(event.data)


def test_completed_run_record_has_every_seed_field(tmp_path: Path) -> None:
    model = scripted([call("bash", command="echo hi")], "done", name="openai/gpt-test")
    model.profile_id = "key-a"
    res = run(HarnessConfig(observability=OBS), model, tmp_path)
    types = [e.type for e in res.events]
    assert types[0] == "run.started" and types[-1] == "run.record"
    rec = record(res)
    assert SEED_FIELDS <= set(rec.model_dump())
    assert rec.event_type == "run.completed" and rec.outcome == "completed"
    assert rec.provider == "openai" and rec.model == "openai/gpt-test"
    assert rec.session_key == "alice@terminal" and rec.channel == "terminal"
    assert rec.trigger == "user" and rec.harness_id == "looplab"
    assert rec.tool_calls_count == 1 and rec.auth_profile_id == "key-a"
    assert rec.token_usage is not None and rec.token_usage.input_tokens == res.usage.input_tokens
    assert rec.duration_ms >= 0 and rec.error_code is None and not rec.compaction_triggered
    started = next(e for e in res.events if e.type == "run.started")
    assert started.data["run_id"] == rec.run_id and started.data["session_id"] == rec.session_id


def test_loop_detected_outcome(tmp_path: Path) -> None:
    cfg = HarnessConfig(observability=OBS,
                        loop_detection={"enabled": True, "circuit_breaker_threshold": 3})
    model = FunctionModel(lambda m, t: [call("bash", command=f"echo {len(m)}")])
    rec = record(run(cfg, model, tmp_path))
    assert rec.outcome == "loop_detected" and rec.status == "circuit_breaker"
    assert rec.event_type == "run.completed"


def test_provider_error_is_a_run_error_with_its_code(tmp_path: Path) -> None:
    def fn(messages, tools):
        raise ProviderError("bad_request", "no such model", status=400)

    res = run(HarnessConfig(observability=OBS), FunctionModel(fn, name="m"), tmp_path)
    assert res.status == ExitStatus.PROVIDER_ERROR
    rec = record(res)
    assert rec.event_type == "run.error" and rec.outcome == "error"
    assert rec.error_code == "bad_request" and rec.provider == "unknown"


class FakeCompaction(Control):
    """Stands in for the compaction control: it only announces a compaction."""

    name = "compaction"

    async def before_model(self, run) -> None:
        if run.turns == 1:
            run.emit("compaction.done", before=100, after=10)


def test_compaction_is_reported(tmp_path: Path) -> None:
    model = scripted([call("bash", command="echo hi")], "done")
    rec = record(run(HarnessConfig(observability=OBS), model, tmp_path, [FakeCompaction()]))
    assert rec.compaction_triggered and rec.outcome == "compacted"


def test_no_record_when_observability_is_off(tmp_path: Path) -> None:
    res = run(HarnessConfig(), scripted("done"), tmp_path)
    assert not any(e.type in ("run.started", "run.record") for e in res.events)
    assert any(e.type == "run.completed" for e in res.events)  # the loop's own event stays


def test_session_id_is_stable_across_runs_of_one_agent(tmp_path: Path) -> None:
    cfg = HarnessConfig(observability=OBS)
    agent = Agent(cfg, scripted("a", "b"), LocalWorkspace(tmp_path))
    first, second = (record(asyncio.run(agent.run(t))) for t in ("one", "two"))
    assert first.session_id == second.session_id and first.run_id != second.run_id


def test_subsystem_loggers_are_namespaced(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="looplab.harness.tool-loop-detection")
    cfg = HarnessConfig(limits={"max_turns": 6}, loop_detection={"enabled": True},
                        observability=OBS)  # logs at INFO too, on its own logger
    run(cfg, FunctionModel(lambda m, t: [call("bash", command="echo hi")]), tmp_path)
    names = {r.name for r in caplog.records}
    assert "looplab.harness.tool-loop-detection" in names
    assert "looplab.harness.observability" not in names  # only the subsystem asked for
