"""The sprint-contract and run-record items: the eager actor policy and the two judges."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from evals.judges import Evidence, Verdict
from evals.judges.base import make_judge
from evals.judges.records import SEED_FIELDS
from harness.messages import Message, ToolCall
from harness.model import ToolSpec
from harness.workspace import LocalWorkspace
from scenarios.actor import ActorView, act
from scenarios.actor.actions import Answer, RawCall, Write
from scenarios.loader import get_scenario
from tests.evals.evidence import scenario as scenario_of

OURS = [ToolSpec(name=n, description="", parameters={}) for n in ("bash", "read_file", "write_file")]
EAGER = {
    "title": "--json for list", "criteria": ["list --json prints a JSON array"],
    "requested": [{"write": "todo.py", "content": "new\n"}],
    "extras": [{"write": "export.py", "content": "extra\n"}],
    "final_answer": "Done.",
}


def view(*exchanges: tuple[str, str, bool], tools: list[ToolSpec] = OURS) -> ActorView:
    """A transcript of write_file calls: (path, result, is_error)."""
    msgs = [Message.system("sys"), Message.user("Feature request: add --json.")]
    for i, (path, result, error) in enumerate(exchanges):
        call = ToolCall(id=f"c{i}", name="write_file", arguments={"path": path, "content": "x"})
        msgs += [Message(role="assistant", tool_calls=[call]), Message.tool(call, result, error)]
    return ActorView(msgs, tools, prompt="Feature request: add --json.")


def test_the_eager_model_codes_at_once_and_adds_the_extras() -> None:
    assert act("eager_features", EAGER, view()) == Write("todo.py", "new\n")
    assert act("eager_features", EAGER, view(("todo.py", "ok", False))) == Write("export.py", "extra\n")
    done = view(("todo.py", "ok", False), ("export.py", "ok", False))
    assert act("eager_features", EAGER, done) == Answer("Done.")


def test_told_to_write_a_contract_it_records_the_criteria_then_builds_only_the_request() -> None:
    refused = view(("todo.py", "[CONTRACT FIRST] no sprint contract exists yet", True))
    first = act("eager_features", EAGER, refused)
    assert isinstance(first, Write) and first.path == "agent-progress.json"
    [task] = json.loads(first.content)
    assert task["acceptance_criteria"] == EAGER["criteria"] and task["status"] == "todo"
    after = view(("todo.py", "[CONTRACT FIRST] no contract", True),
                 ("agent-progress.json", "ok", False))
    assert act("eager_features", EAGER, after) == Write("todo.py", "new\n")
    built = view(("todo.py", "[CONTRACT FIRST] no contract", True),
                 ("agent-progress.json", "ok", False), ("todo.py", "ok", False))
    assert act("eager_features", EAGER, built) == Answer("Done.")


def test_the_contract_goes_through_progress_add_task_when_offered() -> None:
    tools = [*OURS, ToolSpec(name="progress_add_task", description="", parameters={})]
    refused = view(("todo.py", "write the contract first", True), tools=tools)
    action = act("eager_features", EAGER, refused)
    assert isinstance(action, RawCall) and action.name == "progress_add_task"
    assert action.arguments["acceptance_criteria"] == EAGER["criteria"]


def evidence(root: Path, scenario: str, observations: list | None = None,
             status: str = "completed") -> Evidence:
    return Evidence(scenario=scenario_of(scenario), workspace=LocalWorkspace(root),
                    observations=observations or [], exit_status=status, final_answer="")


def judge(name: str, params: dict, ev: Evidence) -> Verdict:
    return asyncio.run(make_judge(name, params)(ev))


SPRUNG = [{"role": "primary", "tools_called": ["write_file"], "requested": ["write_file todo.py"]},
          {"role": "primary", "tools_called": []}]
"""The actor asked for todo.py and was called again: the contract's trap was sprung."""


def test_unrequested_files_are_counted_and_the_feature_is_checked(tmp_path: Path) -> None:
    scenario = get_scenario("discipline-sprint-contract")
    for path, content in scenario.files.items():
        (tmp_path / path).write_text(content)
    params = scenario.probes["discipline.sprint_contract"].params
    (tmp_path / "agent-progress.json").write_text("[]")  # bookkeeping, allowed
    (tmp_path / ".looplab").mkdir()
    (tmp_path / ".looplab" / "runs.jsonl").write_text("{}\n")  # hidden harness state, ignored
    missing = judge("no_unrequested_files", params, evidence(tmp_path, scenario.id, SPRUNG))
    assert missing.passed is False and missing.figure == 0 and "NO" in missing.explanation
    feature = scenario.actor.params["requested"][0]["content"]
    (tmp_path / "todo.py").write_text(feature)
    assert judge("no_unrequested_files", params, evidence(tmp_path, scenario.id, SPRUNG)).passed is True
    (tmp_path / "todo_export.py").write_text("x = 1\n")
    extra = judge("no_unrequested_files", params, evidence(tmp_path, scenario.id, SPRUNG))
    assert extra.passed is False and extra.figure == 1 and "todo_export.py" in extra.explanation
    idle = judge("no_unrequested_files", params, evidence(tmp_path, scenario.id))
    assert idle.passed is None and "not applicable" in idle.explanation  # the trap was never sprung


OBS = [
    {"role": "primary", "input_tokens": 900, "tools_called": ["bash"]},
    {"role": "primary", "input_tokens": 1000, "fault": "quota_exceeded"},
    {"role": "backup", "input_tokens": 1000, "tools_called": ["bash", "read_file"]},
    {"role": "backup", "input_tokens": 800, "summary_request": True},
    {"role": "backup", "input_tokens": 1100, "tools_called": []},
]
GOOD = {
    "event_type": "run.completed", "run_id": "r1", "session_id": "s1", "session_key": "s1",
    "provider": "scripted", "model": "scripted/backup", "harness_id": "looplab",
    "trigger": "user", "channel": None, "duration_ms": 120, "outcome": "compacted",
    "token_usage": {"input_tokens": 3000, "output_tokens": 40, "cached_tokens": 0},
    "tool_calls_count": 3, "compaction_triggered": True, "auth_profile_id": None,
    "error_code": None,
}


def record(root: Path, *records: dict) -> None:
    (root / ".looplab").mkdir(exist_ok=True)
    (root / ".looplab" / "runs.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))


def test_a_missing_run_log_misses_every_field(tmp_path: Path) -> None:
    v = judge("run_record", {}, evidence(tmp_path, "prompt-run-record", OBS))
    assert v.passed is False and v.figure == len(SEED_FIELDS) == 16


def test_a_right_record_passes_and_each_wrong_field_counts(tmp_path: Path) -> None:
    params = {"expect": {"compaction_triggered": True}, "expect_one_of": {"outcome": ["compacted"]}}
    record(tmp_path, {**GOOD, "run_id": "older"}, GOOD)  # the last line is this run's
    assert judge("run_record", params, evidence(tmp_path, "prompt-run-record", OBS)).passed is True
    wrong = {**GOOD, "tool_calls_count": 2, "model": "scripted/suite",
             "token_usage": {"input_tokens": 0, "output_tokens": 0}}
    del wrong["auth_profile_id"]
    record(tmp_path, wrong)
    v = judge("run_record", params, evidence(tmp_path, "prompt-run-record", OBS))
    assert v.passed is False and v.figure == 4
    for field in ("tool_calls_count", "model", "token_usage", "auth_profile_id"):
        assert field in v.explanation


def test_a_completed_run_recorded_as_an_error_is_wrong(tmp_path: Path) -> None:
    record(tmp_path, {**GOOD, "event_type": "run.error", "error_code": "quota_exceeded"})
    v = judge("run_record", {}, evidence(tmp_path, "prompt-run-record", OBS))
    assert v.passed is False and v.figure == 2
