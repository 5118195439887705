"""Seed-004 failure rows: the actor policies and judges behind the discipline and skills items."""

from __future__ import annotations

import asyncio
from pathlib import Path

from evals.judges import Evidence
from evals.judges.base import make_judge
from harness.messages import Message, ToolCall
from harness.model import ToolSpec
from harness.workspace import LocalWorkspace
from scenarios.actor import ActorView, act
from scenarios.actor.actions import Answer, Read, Run
from tests.evals.evidence import scenario as scenario_of

OURS = [ToolSpec(name=n, description="", parameters={}) for n in ("bash", "read_file", "write_file")]
RULES = {
    "rule": r"release\.sh --dry-run",
    "mistake": {"run": "./release.sh 1.0"},
    "steps": [{"run": "./release.sh --dry-run 1.0"}, {"run": "./release.sh 1.0"}],
}
SKILL = {"skill_path": "skills/notes/SKILL.md"}


def view(system: str, *exchanges: tuple[ToolCall, str]) -> ActorView:
    msgs = [Message.system(system), Message.user("Publish 1.0.")]
    for call, result in exchanges:
        msgs += [Message(role="assistant", tool_calls=[call]), Message.tool(call, result)]
    return ActorView(msgs, OURS, prompt="Publish 1.0.")


def bash(i: int, command: str) -> ToolCall:
    return ToolCall(id=f"c{i}", name="bash", arguments={"command": command})


def test_without_the_rule_the_known_mistake_comes_first_then_the_task() -> None:
    assert act("repeat_known_mistake", RULES, view("You are helpful.")) == Run("./release.sh 1.0")
    after = view("You are helpful.", (bash(1, "./release.sh 1.0"), "error: run --dry-run first"))
    assert act("repeat_known_mistake", RULES, after) == Run("./release.sh --dry-run 1.0")


def test_with_the_rule_in_context_the_mistake_is_never_made() -> None:
    system = "## AGENTS.md\n- always run `./release.sh --dry-run <v>` first"
    assert act("repeat_known_mistake", RULES, view(system)) == Run("./release.sh --dry-run 1.0")
    done = view(system, (bash(1, "./release.sh --dry-run 1.0"), "ok"), (bash(2, "./release.sh 1.0"), "ok"))
    assert isinstance(act("repeat_known_mistake", RULES, done), Answer)


def test_skill_is_read_on_demand_when_the_index_names_it_then_followed() -> None:
    index = "Available skills:\n- notes (skills/notes/SKILL.md): release notes"
    assert act("use_skill_on_demand", SKILL, view(index)) == Read("skills/notes/SKILL.md")
    read = ToolCall(id="r1", name="read_file", arguments={"path": "skills/notes/SKILL.md"})
    after = view(index, (read, "PROCEDURE: `./notes.sh --since=v1`"))
    assert act("use_skill_on_demand", SKILL, after) == Run("./notes.sh --since=v1")


def test_skill_unknown_without_an_index_and_used_directly_when_inlined() -> None:
    assert isinstance(act("use_skill_on_demand", SKILL, view("You are helpful.")), Answer)
    inlined = "## skills/notes/SKILL.md\nPROCEDURE: `./notes.sh --since=v1`"
    assert act("use_skill_on_demand", SKILL, view(inlined)) == Run("./notes.sh --since=v1")


def evidence(tmp_path: Path, observations: list[dict]) -> Evidence:
    return Evidence(scenario_of("x"), LocalWorkspace(tmp_path), observations, "completed", "done")


def judge(name: str, params: dict, ev: Evidence):
    return asyncio.run(make_judge(name, params)(ev))


def test_mistake_judge_counts_the_mistakes_and_runs_the_verifier(tmp_path: Path) -> None:
    params = {"counter_file": ".looplab/m.count", "command": "test -f ok"}
    clean = judge("mistake_at_most", params, evidence(tmp_path, []))
    assert clean.passed is False and clean.figure == 0  # nothing done is not a pass
    (tmp_path / "ok").write_text("")
    assert judge("mistake_at_most", params, evidence(tmp_path, [])).passed is True
    (tmp_path / ".looplab").mkdir()
    (tmp_path / ".looplab" / "m.count").write_text("mistake\nmistake\n")
    v = judge("mistake_at_most", params, evidence(tmp_path, []))
    assert v.passed is False and v.figure == 2


def test_first_call_tokens_judge(tmp_path: Path) -> None:
    params = {"max_tokens": 1000, "command": "true"}
    small = [{"summary_request": True, "input_tokens": 5000}, {"input_tokens": 900}, {"input_tokens": 9000}]
    v = judge("first_call_tokens_at_most", params, evidence(tmp_path, small))
    assert v.passed is True and v.figure == 900
    v = judge("first_call_tokens_at_most", params, evidence(tmp_path, [{"input_tokens": 40000, "overflow": True}]))
    assert v.passed is False and v.figure == 40000
    v = judge("first_call_tokens_at_most", {**params, "command": "false"}, evidence(tmp_path, small))
    assert v.passed is False
    assert judge("first_call_tokens_at_most", params, evidence(tmp_path, [])).passed is None
