"""Trigger triage: rules as data decide drop / notify / reactor / orchestrator; users skip it."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
import yaml
from pydantic import ValidationError

from harness.config import HarnessConfig, TriageConfig
from harness.sessions.session import Session
from harness.sessions.transcript import parse_records
from harness.sessions.triage import TriggerEnvelope, run_triage
from harness.status import ExitStatus
from harness.testing import call, scripted
from harness.workspace import LocalWorkspace

RULES = yaml.safe_load("""
enabled: true
default: notify
reactor_max_turns: 2
rules:
  - {trigger: heartbeat, decision: drop}
  - {trigger: webhook, pattern: "(?i)\\\\b(down|failed|alert)\\\\b", decision: spawn_orchestrator}
  - {trigger: webhook, pattern: "^ping$", decision: drop}
  - {trigger: cron, decision: spawn_reactor}
""")


def _decide(trigger: str, payload: str) -> str:
    return run_triage(TriggerEnvelope(trigger=trigger, payload=payload),
                      TriageConfig.model_validate(RULES)).decision


def test_rules_decide_in_order_with_a_default() -> None:
    assert _decide("heartbeat", "anything") == "drop"
    assert _decide("webhook", "Deploy FAILED on prod") == "spawn_orchestrator"
    assert _decide("webhook", "ping") == "drop"
    assert _decide("webhook", "a new star on the repo") == "notify"  # default
    assert _decide("cron", "09:00 daily") == "spawn_reactor"


def test_user_messages_skip_triage() -> None:
    cfg = TriageConfig(rules=[{"trigger": "*", "decision": "drop"}], default="drop")
    for trigger in ("user", "manual"):
        result = run_triage(TriggerEnvelope(trigger=trigger, payload="hi"), cfg)
        assert result.decision == "spawn_orchestrator" and result.rule is None


def test_a_bad_rule_regex_names_the_pattern() -> None:
    with pytest.raises(ValidationError, match=r"pattern '\(unclosed' is not a valid regex"):
        TriageConfig(rules=[{"trigger": "webhook", "pattern": "(unclosed", "decision": "drop"}])
    with pytest.raises(ValidationError, match="decision"):
        TriageConfig(rules=[{"trigger": "webhook", "decision": "explode"}])


def _session(tmp_path: Path, triage: dict | None, model=None) -> Session:  # noqa: ANN001
    cfg = HarnessConfig(transcript={"enabled": True}, **({"triage": triage} if triage else {}))
    return Session("s", cfg, model or scripted("handled"), LocalWorkspace(tmp_path))


def test_dropped_and_notified_triggers_start_no_run(tmp_path: Path) -> None:
    model = scripted("handled")
    session = _session(tmp_path, RULES, model)
    dropped = asyncio.run(session.send("beat", trigger="heartbeat"))
    told = asyncio.run(session.send("a new star", trigger="webhook"))
    assert dropped.turns == told.turns == 0 and model.calls == 0
    assert dropped.message.startswith("triage: drop") and told.message.startswith("triage: notify")
    markers = [r["marker"] for r in parse_records(
        (tmp_path / ".looplab/sessions/s.jsonl").read_text())]
    assert markers == ["triage:drop", "triage:notify"]


def test_without_triage_every_trigger_starts_a_full_run(tmp_path: Path) -> None:
    model = scripted("handled", "handled")
    session = _session(tmp_path, None, model)
    result = asyncio.run(session.send("beat", trigger="heartbeat"))
    assert result.status is ExitStatus.COMPLETED and model.calls == 1


def test_a_reactor_run_is_bounded_and_frames_the_payload(tmp_path: Path) -> None:
    model = scripted(*[[call("bash", command="echo step")] for _ in range(10)])
    session = _session(tmp_path, RULES, model)
    result = asyncio.run(session.send("nightly report", trigger="cron"))
    assert result.status is ExitStatus.TURN_LIMIT and result.turns == 2
    task = model.inputs[0][-1].content
    assert "automated cron event" in task and "nightly report" in task


def test_an_orchestrated_trigger_gets_a_full_run(tmp_path: Path) -> None:
    model = scripted(*[[call("bash", command="echo step")] for _ in range(3)], "fixed")
    session = _session(tmp_path, RULES, model)
    result = asyncio.run(session.send("service DOWN", trigger="webhook"))
    assert result.status is ExitStatus.COMPLETED and result.turns == 4
