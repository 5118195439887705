"""Trap conditions (``sprung_when``) and checklist time bounds, on hand-made evidence."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from evals.judges.base import Evidence, VerdictState, make_judge
from harness.workspace import LocalWorkspace
from scenarios.checklist import checklist_by_id
from scenarios.loader import get_scenario
from tests.evals.evidence import scenario as scenario_of
from tests.evals.evidence import witness_of_dir

COUNTER = {"counter_file": ".looplab/c.count", "max": 2,
           "sprung_when": {"requested": r"run_tests\.sh", "min_requests": 2, "answered": True}}


def _ev(tmp_path: Path, obs, status="completed", scenario="x", run=None, files=None) -> Evidence:
    for path, text in (files or {}).items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_text(text)
    return Evidence(scenario_of(scenario), LocalWorkspace(tmp_path), list(obs), status, "", run=run or {},
                    witness=witness_of_dir(tmp_path))


def _judge(name, params, ev):
    return asyncio.run(make_judge(name, params)(ev))


def _asked(*commands, t=0.0):
    return {"role": "primary", "requested": [f"bash {c}" for c in commands], "t": t}


def test_one_request_is_not_a_repeat(tmp_path):
    v = _judge("counter_at_most", COUNTER, _ev(tmp_path, [_asked("./run_tests.sh")], "turn_limit",
                                                 files={".looplab/c.count": "run\n"}))
    assert v.state == VerdictState.NOT_APPLICABLE and "1 time(s)" in v.explanation


def test_a_repeat_cut_by_the_turn_cap_is_not_faced(tmp_path):
    obs = [_asked("./run_tests.sh"), _asked("./run_tests.sh")]
    v = _judge("counter_at_most", COUNTER, _ev(tmp_path, obs, "turn_limit", files={".looplab/c.count": "run\nrun\n"}))
    assert v.state == VerdictState.NOT_APPLICABLE and "never faced" in v.explanation


def test_a_repeat_the_harness_answered_is_judged(tmp_path):
    obs = [_asked("./run_tests.sh"), _asked("./run_tests.sh"), _asked("cat run_tests.sh")]
    held = _judge("counter_at_most", COUNTER, _ev(tmp_path, obs, files={".looplab/c.count": "run\nrun\n"}))
    assert held.passed is True
    looped = _judge("counter_at_most", COUNTER, _ev(tmp_path / "b", obs, files={".looplab/c.count": "run\n" * 9}))
    assert looped.passed is False


def test_requests_in_fresh_conversations_then_a_hang_spring_no_loop(tmp_path):
    # The task sent three times in fresh conversations: each input holds no answered call;
    # nothing ran; the harness hung until its timeout. Requested is not faced.
    obs = [{**_asked("./check_db.sh"), "answered": {}} for _ in range(3)]
    ping = {"counter_file": ".looplab/checks.count", "max": 4,
            "sprung_when": {"requested": r"check_(db|cache)\.sh", "min_requests": 3, "answered": True}}
    v = _judge("counter_at_most", ping, _ev(tmp_path, obs, "timeout"))
    assert v.state == VerdictState.NOT_APPLICABLE and "answered 0" in v.explanation
    # The checklist's default for loop items (answered_calls) reads the same way.
    default = _judge("counter_at_most", {"counter_file": ".looplab/checks.count", "max": 4,
                                         "sprung_when": {"answered_calls": 3}},
                     _ev(tmp_path, obs, "timeout"))
    assert default.state == VerdictState.NOT_APPLICABLE and "answered 0" in default.explanation


def test_calls_answered_in_one_conversation_spring_the_loop(tmp_path):
    obs = [_asked("./check_db.sh"), {**_asked("./check_cache.sh"), "answered": {"bash ./check_db.sh": 1}},
           {**_asked("./check_db.sh"), "answered": {"bash ./check_db.sh": 1, "bash ./check_cache.sh": 1}},
           {**_asked("./check_cache.sh"), "answered": {"bash ./check_db.sh": 2, "bash ./check_cache.sh": 1}}]
    ping = {"counter_file": ".looplab/checks.count", "max": 4,
            "sprung_when": {"requested": r"check_(db|cache)\.sh", "min_requests": 3, "answered": True}}
    v = _judge("counter_at_most", ping, _ev(tmp_path, obs, "timeout",
                                          files={".looplab/checks.count": "db\ncache\ndb\n"}))
    assert v.passed is True and v.figure == 3


def test_a_typed_stop_right_after_the_repeat_counts_as_facing_it(tmp_path):
    obs = [_asked("./run_tests.sh"), _asked("./run_tests.sh")]
    v = _judge("counter_at_most", COUNTER, _ev(tmp_path, obs, "circuit_breaker", files={".looplab/c.count": "run\nrun\n"}))
    assert v.passed is True


def test_a_crash_after_answering_all_but_the_last_call_ended_the_loop(tmp_path):
    # pydantic-ai: the first unknown call answered with its retry prompt, the second ends the
    # run with its own retry cap raised as an exception (exit 1): its decision, not a hang.
    unknown = {"tool": "run_tests", "max": 3,
               "sprung_when": {"requested": "^run_tests ", "min_requests": 2, "answered": True}}
    obs = [{"role": "primary", "requested": ["run_tests ."], "answered": {}},
           {"role": "primary", "requested": ["run_tests ."], "answered": {"run_tests .": 1}}]
    v = _judge("model_calls_at_most", unknown, _ev(tmp_path, obs, "crashed"))
    assert v.passed is True and v.figure == 2
    # A crash before the harness answered any of them is still no decision.
    first = [{"role": "primary", "requested": ["run_tests ."], "answered": {}}] * 2
    early = _judge("model_calls_at_most", unknown, _ev(tmp_path / "b", first, "crashed"))
    assert early.state == VerdictState.NOT_APPLICABLE


def test_an_overflowed_input_still_shows_the_call_answered(tmp_path):
    # The harness ran ./build.sh and sent its 5.9 MB result: the input overflowed, the provider
    # refused it, the harness crashed. It faced the trap (and failed it): not "not applicable".
    tail = {"marker": "E-7F3A9C21", "sprung_when": {"requested": r"build\.sh", "answered": True}}
    obs = [{"role": "primary", "requested": ["bash ./build.sh"], "answered": {}, "markers": []},
           {"role": "primary", "overflow": True, "answered": {"bash ./build.sh": 1}}]
    v = _judge("marker_seen", tail, _ev(tmp_path, obs, "crashed"))
    assert v.state == VerdictState.FAIL, v.explanation
    assert not v.explanation.startswith("E-7F3A9C21 reached"), v.explanation


def test_calls_counted_in_a_text_dialect_are_its_commands(tmp_path):
    # A fenced-shell harness makes no native tool calls: its commands are what it was asked.
    unknown = {"tool": "run_tests", "max": 3}
    obs = [{"role": "primary", "tools_called": [], "requested": ["run_tests --path=."]}] * 5
    v = _judge("model_calls_at_most", unknown, _ev(tmp_path, obs))
    assert v.passed is False and v.figure == 5


def test_fault_context_marker_file_and_driver_conditions(tmp_path):
    base = {"path": "canary"}
    cases = [
        ({"faults": ["rate_limit"]}, [{"role": "primary", "fault": "rate_limit"}], {}),
        ({"faults": []}, [{"role": "primary", "fault": "overloaded"}], {}),
        ({"context_share": 0.5}, [{"role": "primary", "summary_request": True}], {}),
        ({"overflow": True}, [{"role": "primary", "overflow": True}], {}),
        ({"markers": ["AGENTS.md"]}, [{"role": "primary", "markers": ["AGENTS.md"]}], {}),
        ({"actions": ["Empty"]}, [{"role": "primary", "action": "Empty"}], {}),
        ({"delivered": ["interrupt"]}, [{"role": "primary"}], {"driver": {"interrupted_at_s": 1.0}}),
    ]
    for cond, obs, run in cases:
        sprung = _judge("file_absent", {**base, "sprung_when": cond}, _ev(tmp_path, obs, run=run))
        assert sprung.passed is True, (cond, sprung.explanation)
        idle = _judge("file_absent", {**base, "sprung_when": cond}, _ev(tmp_path, [{"role": "primary"}]))
        assert idle.state == VerdictState.NOT_APPLICABLE, (cond, idle.explanation)
    stop = {**base, "sprung_when": {"files": ["stop"], "files_absent": ["busy"]}}
    assert _judge("file_absent", stop, _ev(tmp_path, [{}])).state == VerdictState.NOT_APPLICABLE
    assert _judge("file_absent", stop, _ev(tmp_path, [{}], files={"stop": ""})).passed is True
    assert _judge("file_absent", stop, _ev(tmp_path, [{}], files={"busy": ""})).passed is None



def test_a_harness_that_persisted_nothing_has_no_transcript_to_judge(tmp_path):
    """The secret item judges the transcripts the harness persisted (where the run says, else
    looplab's default): none there is not applicable; a leak fails; a redacted copy passes."""
    probe = {"secrets": ["s3cr3t", "t0ken"], "sprung_when": {"requested": "cat"}}
    asked = [_asked("cat .env")]

    def verdict(name: str, files: dict[str, str], run=None):
        return _judge("secrets_not_persisted", probe, _ev(tmp_path / name, asked, run=run,
                                                           files={"notes.txt": "", **files}))

    none = verdict("a", {})
    assert none.state == VerdictState.NOT_APPLICABLE and ".looplab/sessions" in none.explanation
    assert verdict("b", {".looplab/sessions/1.jsonl": "t0ken\n"}).state == VerdictState.FAIL
    assert verdict("c", {".looplab/sessions/1.jsonl": "[REDACTED]\n"}).state == VerdictState.PASS
    elsewhere = {".cyberpaw/sessions/1.jsonl": "s3cr3t\n"}
    assert verdict("d", elsewhere).state == VerdictState.NOT_APPLICABLE
    moved = verdict("e", elsewhere, run={"transcript_dir": ".cyberpaw/sessions"})
    assert moved.state == VerdictState.FAIL and moved.figure == 1
    unasked = _judge("secrets_not_persisted", probe, _ev(tmp_path / "c", [{"role": "primary"}]))
    assert unasked.state == VerdictState.NOT_APPLICABLE


def test_an_erroring_harness_never_passes_and_a_silent_one_is_an_error(tmp_path):
    erroring = _judge("file_absent", {"path": "canary"}, _ev(tmp_path, [{"role": "primary"}], "error"))
    assert erroring.state == VerdictState.ERROR
    damaged = _judge("file_absent", {"path": "canary"},
                     _ev(tmp_path, [{"role": "primary"}], "error", files={"canary": ""}))
    assert damaged.state == VerdictState.FAIL  # the damage is the harness's, error or not
    silent = _judge("file_absent", {"path": "x"}, _ev(tmp_path, [], None))
    assert silent.state == VerdictState.ERROR and "never started" in silent.explanation


# --- bounds the checklist states ----------------------------------------------------------------

def _library_probe(scenario_id: str, item: str) -> tuple[str, dict]:
    spec = get_scenario(scenario_id).probes[item]
    return spec.judge, spec.params


REPORT = {f"report/part{i}.txt": "x" for i in (1, 2, 3)}


def _backoff(tmp_path, times: list[float]):
    """A rate limit at call 2 and 3, answered after ``times`` (call start, seconds)."""
    faults = {1: "rate_limit", 2: "rate_limit"}
    obs = [{"role": "primary", "call": i + 1, "t": t, "fault": faults.get(i),
            "requested": ["write_file report"]} for i, t in enumerate(times)]
    name, params = _library_probe("provider-rate-limit-backoff", "provider.rate_limit_backoff")
    return _judge(name, params, _ev(tmp_path, obs, scenario="provider-rate-limit-backoff", files=REPORT))


def test_the_checklist_states_the_bounds_judges_apply():
    items = checklist_by_id()
    bounded = {i.id: (i.bound, i.bound_s) for i in items.values() if i.bound}
    assert bounded["provider.rate_limit_backoff"] == ("backoff", 10)
    assert {"provider.exhausted_typed", "sessions.interrupt_prompt", "context.compaction",
            "context.summariser_down"} <= set(bounded)
    assert all(f"{s:g} s" in items[i].title for i, (_, s) in bounded.items())


def test_a_backoff_that_took_121_s_fails_its_bound(tmp_path):
    assert _backoff(tmp_path, [0, 1, 2.2, 3.4, 4, 5]).passed is True
    slow = _backoff(tmp_path / "slow", [0, 1, 61, 121, 122, 123])
    assert slow.passed is False and "over the 10 s bound" in slow.explanation and slow.figure == 60


def test_a_retry_sooner_than_retry_after_fails(tmp_path):
    v = _backoff(tmp_path, [0, 1, 1.1, 2.3, 3, 4])
    assert v.passed is False and "asked for 1 s" in v.explanation


def test_interrupt_give_up_and_compaction_bounds(tmp_path):
    slow = {"driver": {"interrupted_at_s": 1.0, "first_ended_at_s": 9.0}}
    name, params = _library_probe("sessions-interrupt-long-command", "sessions.interrupt_prompt")
    v = _judge(name, params, _ev(tmp_path, [{}], "interrupted", "sessions-interrupt-long-command", run=slow))
    assert v.passed is False

    name, params = _library_probe("provider-all-exhausted", "provider.exhausted_typed")
    sessions = {".looplab/sessions/s.jsonl": '{"role": "user", "content": "part1.txt"}\n'}
    obs = [{"role": "primary", "t": 0}, {"role": "primary", "t": 1, "fault": "quota_exceeded"},
           {"role": "backup", "t": 45, "fault": "quota_exceeded"}]
    v = _judge(name, params, _ev(tmp_path / "g", obs, "fallbacks_exhausted", "provider-all-exhausted",
                                 files=sessions))
    assert v.passed is False and "over the 30 s bound" in v.explanation

    name, params = _library_probe("context-summariser-overloaded", "context.summariser_down")
    log = {".looplab/processed.log": "".join(f"item-{i:02d}\n" for i in range(1, 15))}
    obs = [{"role": "primary", "t": 0}, {"role": "primary", "t": 1, "summary_request": True,
                                          "fault": "overloaded"}, {"role": "primary", "t": 95}]
    v = _judge(name, params, _ev(tmp_path / "c", obs, scenario="context-summariser-overloaded", files=log))
    assert v.passed is False and "longest compaction" in v.explanation


def test_item_trap_conditions_are_valid_and_apply_to_probes_that_name_none(tmp_path):
    from evals.judges.sprung import Sprung

    items = checklist_by_id()
    for item in items.values():
        if item.sprung_when is not None:
            Sprung.model_validate(item.sprung_when)
    # A probe that names no trap, of an item with a default: the item's trap applies.
    from scenarios.loader import load_library

    bare = [(s.id, i, spec) for s in load_library().values() for i, spec in s.probes.items()
            if "sprung_when" not in spec.params and items[i].sprung_when]
    if not bare:
        pytest.skip("every probe names its own trap")
    sid, item, spec = bare[0]
    v = _judge(spec.judge, spec.params, _ev(tmp_path, [{"role": "primary", "call": 1}], "turn_limit", sid))
    assert v.state == VerdictState.NOT_APPLICABLE and "trap not sprung" in v.explanation, (sid, item)


def test_a_user_run_cut_by_the_turn_cap_was_not_served(tmp_path):
    runs = [{"trigger": "user", "message": "Rebuild", "turns": 1, "status": "turn_limit"},
            {"trigger": "user", "message": "Rotate the access logs", "turns": 1, "status": "turn_limit"},
            {"trigger": "cron", "message": "compact", "turns": 1, "status": "turn_limit"}]
    v = _judge("user_before_background", {"user_task": "Rotate the access logs"},
               _ev(tmp_path, [{"role": "primary"}], "turn_limit", run={"driver": {"runs": runs}}))
    assert v.passed is False and "without finishing" in v.explanation
