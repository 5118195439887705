"""Completion verification: a final answer is accepted only once the verification passes."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from pydantic import ValidationError

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.messages import Message
from harness.model import ToolSpec
from harness.testing import FunctionModel, call

TEST = "#!/bin/bash\npython3 -c 'import calc; assert calc.add(2, 3) == 5, \"add(2, 3) != 5\"'\n"
ON = {"enabled": True, "command": "bash tests/run.sh"}


def workspace(tmp_path: Path) -> LocalWorkspace:
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "run.sh").write_text(TEST)
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return 0\n")
    return LocalWorkspace(tmp_path)


def claims_done_early(messages: list[Message], tools: list[ToolSpec]):
    """Writes a wrong fix and says "done"; fixes it only when told the verification failed."""
    told = any("verification failed" in m.content for m in messages if m.role == "user")
    writes = sum(1 for m in messages for c in m.tool_calls if c.name == "write_file")
    if writes == 0:
        return [call("write_file", path="calc.py", content="def add(a, b):\n    return a - b\n")]
    if told and writes == 1:
        return [call("write_file", path="calc.py", content="def add(a, b):\n    return a + b\n")]
    return "Fixed add(); done."


def run(cfg: HarnessConfig, model: FunctionModel, tmp_path: Path):
    return asyncio.run(Agent(cfg, model, workspace(tmp_path)).run("Fix add() in calc.py."))


def test_a_premature_done_is_sent_back_until_the_tests_pass(tmp_path: Path) -> None:
    res = run(HarnessConfig(verify_done=ON), FunctionModel(claims_done_early), tmp_path)
    assert res.status == ExitStatus.COMPLETED
    assert "a + b" in (tmp_path / "calc.py").read_text()
    feedback = [m.content for m in res.messages if m.role == "user" and m.origin == "harness"]
    assert len(feedback) == 1 and "add(2, 3) != 5" in feedback[0] and "exited 1" in feedback[0]
    assert [e.data["passed"] for e in res.events if e.type == "verify.ran"] == [False, True]


def test_without_verification_the_premature_done_is_accepted(tmp_path: Path) -> None:
    res = run(HarnessConfig(), FunctionModel(claims_done_early), tmp_path)
    assert res.status == ExitStatus.COMPLETED and res.message == "Fixed add(); done."
    assert "a - b" in (tmp_path / "calc.py").read_text()  # the bug is still there


def test_rejections_are_bounded_and_the_last_answer_is_recorded_unverified(tmp_path: Path) -> None:
    stubborn = FunctionModel(lambda messages, tools: "Done, trust me.")
    res = run(HarnessConfig(verify_done={**ON, "max_rejections": 2}), stubborn, tmp_path)
    assert res.status == ExitStatus.COMPLETED and stubborn.calls == 3
    assert any(e.type == "verify.unverified" for e in res.events)


def test_no_verification_where_there_is_nothing_to_test(tmp_path: Path) -> None:
    model = FunctionModel(lambda messages, tools: "Nothing to do.")
    cfg = HarnessConfig(verify_done={"enabled": True, "command": "false"})
    res = asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("Say hi."))
    assert res.status == ExitStatus.COMPLETED and model.calls == 1
    assert not any(e.type == "verify.ran" for e in res.events)


def test_tool_calls_and_empty_replies_are_not_verified(tmp_path: Path) -> None:
    replies = iter([[call("list_dir", path=".")], "", "Done."])
    model = FunctionModel(lambda messages, tools: next(replies))
    cfg = HarnessConfig(verify_done={"enabled": True, "command": "true", "only_if_exists": []},
                        empty_reply={"enabled": True})
    res = asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("Look around."))
    assert res.status == ExitStatus.COMPLETED and res.message == "Done."
    assert [e.type for e in res.events].count("verify.ran") == 1


def test_bad_config_names_the_field() -> None:
    with pytest.raises(ValidationError, match="max_rejections"):
        HarnessConfig(verify_done={"enabled": True, "max_rejections": 0})
