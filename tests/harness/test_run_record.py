"""The run log: each run's seed-004 record appended as one JSON line in the workspace."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.messages import Message
from harness.model import ProviderError, ToolSpec
from harness.sessions.session import Session
from harness.testing import FunctionModel, call, scripted

RUNS = ".looplab/runs.jsonl"
SEED_FIELDS = {"event_type", "run_id", "session_id", "session_key", "provider", "model",
               "harness_id", "trigger", "channel", "duration_ms", "outcome", "token_usage",
               "tool_calls_count", "compaction_triggered", "auth_profile_id", "error_code"}


def records(root: Path) -> list[dict]:
    return [json.loads(line) for line in (root / RUNS).read_text().splitlines()]


def two_calls_then_done() -> FunctionModel:
    return scripted([call("bash", command="echo one"), call("read_file", path="a.txt")],
                    [call("bash", command="echo two")], "All done.", name="acme/model-1")


def test_a_completed_run_appends_its_record_with_every_seed_field(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    cfg = HarnessConfig(observability={"enabled": True, "session_key": "alice@terminal"})
    res = asyncio.run(Agent(cfg, two_calls_then_done(), LocalWorkspace(tmp_path)).run("go"))
    assert res.status == ExitStatus.COMPLETED
    [rec] = records(tmp_path)
    assert SEED_FIELDS <= set(rec)
    assert rec["event_type"] == "run.completed" and rec["outcome"] == "completed"
    assert rec["tool_calls_count"] == 3 and rec["error_code"] is None
    assert rec["provider"] == "acme" and rec["model"] == "acme/model-1"
    assert rec["session_key"] == "alice@terminal" and rec["trigger"] == "user"
    assert rec["token_usage"]["input_tokens"] == res.usage.input_tokens > 0
    assert rec["compaction_triggered"] is False


def test_runs_append_and_a_session_names_them_by_its_own_id(tmp_path: Path) -> None:
    cfg = HarnessConfig(observability={"enabled": True}, transcript={"enabled": True})
    session = Session("desk-7", cfg, scripted("first", "second"), LocalWorkspace(tmp_path))

    async def two() -> None:
        await session.send("one")
        await session.send("two")
        await session.aclose()

    asyncio.run(two())
    first, second = records(tmp_path)
    assert first["session_id"] == second["session_id"] == "desk-7"
    assert first["run_id"] != second["run_id"]


def test_a_lone_agent_names_the_session_of_its_transcript(tmp_path: Path) -> None:
    cfg = HarnessConfig(observability={"enabled": True}, transcript={"enabled": True})
    asyncio.run(Agent(cfg, scripted("ok"), LocalWorkspace(tmp_path)).run("go"))
    [transcript] = (tmp_path / ".looplab/sessions").glob("*.jsonl")
    assert records(tmp_path)[0]["session_id"] == transcript.stem


def test_a_typed_error_is_recorded_as_run_error_with_its_fault(tmp_path: Path) -> None:
    def broke(messages: list[Message], tools: list[ToolSpec]):
        raise ProviderError("quota_exceeded", "no quota left", status=429)

    cfg = HarnessConfig(observability={"enabled": True}, failover={"enabled": True})
    res = asyncio.run(Agent(cfg, FunctionModel(broke), LocalWorkspace(tmp_path)).run("go"))
    assert res.status == ExitStatus.FALLBACKS_EXHAUSTED
    [rec] = records(tmp_path)
    assert rec["event_type"] == "run.error" and rec["outcome"] == "error"
    assert rec["error_code"] == "quota_exceeded" and rec["status"] == "fallbacks_exhausted"


def test_the_record_is_redacted_when_redaction_is_on(tmp_path: Path) -> None:
    key = "sk-" + "a1B2c3D4" * 4
    obs = {"enabled": True, "session_key": f"ops {key}"}
    asyncio.run(Agent(HarnessConfig(observability=obs, redaction={"enabled": True}),
                      scripted("ok"), LocalWorkspace(tmp_path)).run("go"))
    text = (tmp_path / RUNS).read_text()
    assert key not in text and "[REDACTED]" in text
    plain = tmp_path / "plain"
    asyncio.run(Agent(HarnessConfig(observability=obs), scripted("ok"),
                      LocalWorkspace(plain)).run("go"))
    assert key in (plain / RUNS).read_text()  # redaction off: written as given


def test_no_run_log_without_observability_or_without_a_record_file(tmp_path: Path) -> None:
    for i, cfg in enumerate([HarnessConfig(),
                             HarnessConfig(observability={"enabled": True, "record_file": None})]):
        res = asyncio.run(Agent(cfg, scripted("ok"), LocalWorkspace(tmp_path / str(i))).run("go"))
        assert res.status == ExitStatus.COMPLETED
        assert not (tmp_path / str(i) / RUNS).exists()
    assert any(e.type == "run.record" for e in res.events)  # the event still exists
