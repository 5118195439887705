"""Sprint contract first: on a feature task, nothing changes before acceptance criteria exist."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest
from pydantic import ValidationError

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.messages import Message
from harness.model import ToolSpec
from harness.testing import FunctionModel, call

FEATURE = "Feature request: add a --json option to todo.py list. Nothing else."
CONTRACT = [{"id": "T1", "title": "--json for list", "description": "todo.py list --json",
             "acceptance_criteria": ["`todo.py list --json` prints the items as a JSON array"],
             "status": "todo"}]
ON = {"enabled": True}


def results(messages: list[Message]) -> list[str]:
    return [m.content for m in messages if m.role == "tool"]


def eager(messages: list[Message], tools: list[ToolSpec]):
    """Codes at once and adds an unrequested export module; when refused, writes the contract
    first and then implements only what it lists."""
    told = any("[CONTRACT FIRST]" in t for t in results(messages))
    written = [c.arguments.get("path") for m in messages for c in m.tool_calls
               if c.name == "write_file"]
    ok = {c.arguments.get("path") for m in messages for c in m.tool_calls
          for r in messages if r.role == "tool" and r.tool_call_id == c.id and not r.is_error}
    plan = (["agent-progress.json", "todo.py"] if told else ["todo.py", "export_csv.py"])
    for path in plan:
        if path not in ok:
            if written.count(path) >= 2:
                return "Giving up."
            content = json.dumps(CONTRACT) if path.endswith(".json") else "print('x')\n"
            return [call("write_file", path=path, content=content)]
    return "Done."


def run(tmp_path: Path, cfg: HarnessConfig, task: str = FEATURE, model=None):
    (tmp_path / "todo.py").write_text("print('todo')\n")
    agent = Agent(cfg, model or FunctionModel(eager), LocalWorkspace(tmp_path))
    return asyncio.run(agent.run(task))


def test_writes_are_refused_until_a_contract_exists_then_only_it_is_built(tmp_path: Path) -> None:
    res = run(tmp_path, HarnessConfig(contract_first=ON))
    assert res.status == ExitStatus.COMPLETED and res.message == "Done."
    out = results(res.messages)
    assert "[CONTRACT FIRST]" in out[0] and "agent-progress.json" in out[0]
    assert "[CONTRACT RECORDED]" in out[1] and "prints the items as a JSON array" in out[1]
    assert not (tmp_path / "export_csv.py").exists()
    assert (tmp_path / "todo.py").read_text() == "print('x')\n"
    assert [e.type for e in res.events if e.type.startswith("contract.")] == [
        "contract.missing", "contract.recorded"]


def test_without_the_control_the_unrequested_module_is_written(tmp_path: Path) -> None:
    res = run(tmp_path, HarnessConfig())
    assert res.status == ExitStatus.COMPLETED
    assert (tmp_path / "export_csv.py").exists()
    assert not any("CONTRACT" in t for t in results(res.messages))


def test_a_task_that_is_no_sprint_goes_straight_to_work(tmp_path: Path) -> None:
    res = run(tmp_path, HarnessConfig(contract_first=ON), task="Fix the typo in todo.py.")
    assert not any("CONTRACT" in t for t in results(res.messages))
    assert (tmp_path / "export_csv.py").exists()  # nothing stopped the eager model here


def test_a_null_pattern_makes_every_task_a_sprint(tmp_path: Path) -> None:
    cfg = HarnessConfig(contract_first={**ON, "task_pattern": None})
    res = run(tmp_path, cfg, task="Fix the typo in todo.py.")
    assert "[CONTRACT FIRST]" in results(res.messages)[0]


def test_a_contract_already_in_the_progress_file_satisfies_it(tmp_path: Path) -> None:
    (tmp_path / "agent-progress.json").write_text(json.dumps(CONTRACT))
    model = FunctionModel(lambda m, t: "Done." if results(m) else
                          [call("write_file", path="todo.py", content="print('x')\n")])
    res = run(tmp_path, HarnessConfig(contract_first=ON), model=model)
    [out] = results(res.messages)
    assert "CONTRACT" not in out
    assert (tmp_path / "todo.py").read_text() == "print('x')\n"


def test_a_task_without_acceptance_criteria_is_no_contract(tmp_path: Path) -> None:
    vague = [{**CONTRACT[0], "acceptance_criteria": ["  "]}]
    (tmp_path / "agent-progress.json").write_text(json.dumps(vague))
    model = FunctionModel(lambda m, t: "Stop." if results(m) else
                          [call("bash", command="touch made.txt")])
    res = run(tmp_path, HarnessConfig(contract_first=ON), model=model)
    [out] = results(res.messages)
    assert "[CONTRACT FIRST]" in out and "no acceptance criteria" in out
    assert not (tmp_path / "made.txt").exists()  # bash changes things: refused too


def test_reading_is_allowed_and_progress_add_task_records_the_contract(tmp_path: Path) -> None:
    cfg = HarnessConfig(contract_first=ON,
                        tools=["bash", "read_file", "write_file", "progress_add_task"])

    def planner(messages: list[Message], tools: list[ToolSpec]):
        n = len(results(messages))
        if n == 0:
            return [call("read_file", path="todo.py")]
        if n == 1:
            c = CONTRACT[0]
            return [call("progress_add_task", id=c["id"], title=c["title"],
                         acceptance_criteria=c["acceptance_criteria"])]
        return "Contract written."

    res = run(tmp_path, cfg, model=FunctionModel(planner))
    read, added = results(res.messages)
    assert "print('todo')" in read
    assert "Added task 'T1'" in added and "[CONTRACT RECORDED]" in added


def test_an_invalid_task_pattern_names_the_field() -> None:
    with pytest.raises(ValidationError, match="contract_first.task_pattern"):
        HarnessConfig(contract_first={"enabled": True, "task_pattern": "(["})
