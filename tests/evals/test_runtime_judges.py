"""Runtime judges on hand-made evidence: each passes the good case and fails the bad one."""

from __future__ import annotations

import asyncio
import json

from evals.judges.base import Evidence, make_judge
from harness.workspace import LocalWorkspace
from scenarios.schema import FaultRule
from tests.evals.evidence import scenario as scenario_of


def _evidence(tmp_path, observations=(), run=None) -> Evidence:
    return Evidence(scenario=scenario_of("x"), workspace=LocalWorkspace(tmp_path),
                    observations=list(observations), exit_status="completed", final_answer="",
                    run=run or {})


def _judge(name, params, ev):
    return asyncio.run(make_judge(name, params)(ev))


def _write_transcript(tmp_path, messages) -> None:
    d = tmp_path / ".looplab" / "sessions"
    d.mkdir(parents=True)
    (d / "s.jsonl").write_text("\n".join(json.dumps(m) for m in messages) + "\n")


def _turn(task, call_id, answer):
    return [{"role": "user", "content": task},
            {"role": "assistant", "content": "", "tool_calls": [{"id": call_id, "name": "bash"}]},
            {"role": "tool", "content": "ok", "tool_call_id": call_id},
            {"role": "assistant", "content": answer}]


SERIAL = {"tasks": ["Task A", "Task B"], "answers": ["A done.", "B done."]}


def test_serialised_transcript_passes(tmp_path):
    _write_transcript(tmp_path, _turn("Task A", "1", "A done.") + _turn("Task B", "2", "B done."))
    v = _judge("transcript_serialised", SERIAL, _evidence(tmp_path))
    assert v.passed is True and v.figure == 0


def test_interleaved_transcript_fails(tmp_path):
    a, b = _turn("Task A", "1", "A done."), _turn("Task B", "2", "B done.")
    _write_transcript(tmp_path, [a[0], a[1], b[0], b[1], a[2], b[2], a[3], b[3]])
    v = _judge("transcript_serialised", SERIAL, _evidence(tmp_path))
    assert v.passed is False and v.figure and v.figure >= 2


def test_missing_transcript_fails(tmp_path):
    assert _judge("transcript_serialised", SERIAL, _evidence(tmp_path)).passed is False


COOL = {"role": "backup", "cooldowns": {"a": 30, "b": 2}}


def test_profile_with_the_soonest_expiry_serves_after_all_cooled(tmp_path):
    obs = [{"role": "backup", "profile": "a", "fault": "rate_limit"},
           {"role": "backup", "profile": "b", "fault": "rate_limit"},
           {"role": "backup", "profile": "b"}]
    v = _judge("profile_after_cooldowns", COOL, _evidence(tmp_path, obs))
    assert v.passed is True and v.figure == 2


def test_profile_in_configured_order_after_all_cooled_fails(tmp_path):
    obs = [{"role": "backup", "profile": "a", "fault": "rate_limit"},
           {"role": "backup", "profile": "b", "fault": "rate_limit"},
           {"role": "backup", "profile": "a"}]
    v = _judge("profile_after_cooldowns", COOL, _evidence(tmp_path, obs))
    assert v.passed is False and v.figure == 30


def test_stop_is_judged_from_the_driver_record(tmp_path):
    fast = {"driver": {"interrupted_at_s": 2.0, "first_ended_at_s": 2.1}}
    slow = {"driver": {"interrupted_at_s": 2.0, "first_ended_at_s": 11.0}}
    params = {"max_s": 5}
    assert _judge("stopped_after_interrupt", params, _evidence(tmp_path, run=fast)).passed is True
    assert _judge("stopped_after_interrupt", params, _evidence(tmp_path, run=slow)).passed is False
    assert _judge("stopped_after_interrupt", params, _evidence(tmp_path)).passed is False


def test_trigger_not_delivered_is_a_failure_not_a_pass(tmp_path):
    params = {"trigger": "heartbeat", "counter_file": "count.txt"}
    assert _judge("triggers_triaged", params, _evidence(tmp_path)).passed is False
    delivered = {"driver": {"delivered": ["user", "heartbeat"]}}
    assert _judge("triggers_triaged", params, _evidence(tmp_path, run=delivered)).passed is True
    (tmp_path / "count.txt").write_text("sync\n")
    assert _judge("triggers_triaged", params, _evidence(tmp_path, run=delivered)).passed is False


def test_fault_rules_for_one_profile_skip_the_others():
    rule = FaultRule(model="backup", profile="k1", kind="rate_limit", until_call=1)
    assert rule.applies("backup", 1, profile="k1")
    assert not rule.applies("backup", 1, profile="k2")
    assert not rule.applies("backup", 1)
    assert FaultRule(model="backup", kind="rate_limit").applies("backup", 3, profile="k2")


def _runs(*entries):
    return {"driver": {"runs": [{"trigger": t, "message": m, "turns": n, "status": "completed"}
                                for t, m, n in entries]}}


USER_FIRST = {"user_task": "Rotate the logs"}


def test_user_served_before_the_earlier_cron_job_passes(tmp_path):
    run = _runs(("user", "Rebuild", 2), ("user", "Rotate the logs", 2), ("cron", "CRON compact", 2))
    v = _judge("user_before_background", USER_FIRST, _evidence(tmp_path, run=run))
    assert v.passed is True and v.figure == 0


def test_user_waiting_behind_the_cron_job_fails(tmp_path):
    run = _runs(("user", "Rebuild", 2), ("cron", "CRON compact", 2), ("user", "Rotate the logs", 2))
    v = _judge("user_before_background", USER_FIRST, _evidence(tmp_path, run=run))
    assert v.passed is False and v.figure == 1


def test_a_trigger_answered_without_a_run_is_not_ahead(tmp_path):
    run = _runs(("user", "Rebuild", 2), ("cron", "CRON compact", 0), ("user", "Rotate the logs", 2))
    assert _judge("user_before_background", USER_FIRST, _evidence(tmp_path, run=run)).passed is True


def test_no_run_for_the_user_message_fails(tmp_path):
    v = _judge("user_before_background", USER_FIRST, _evidence(tmp_path, run=_runs(("user", "Rebuild", 2))))
    assert v.passed is False and v.figure is None
