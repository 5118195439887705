"""Empty and thought-only replies: bounded nudges (seed 000) versus the naive 'completed'."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.controls.empty_reply import classify, visible_text
from harness.messages import Message
from harness.testing import call, scripted

ON = {"enabled": True, "max_nudges": 2}


def run(cfg: HarnessConfig, model, tmp_path: Path):
    return asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("write hello.txt"))


def nudges(res) -> list[str]:
    return [m.content for m in res.messages if m.role == "user" and m.origin == "harness"]


def test_empty_reply_is_nudged_and_the_task_gets_done(tmp_path: Path) -> None:
    model = scripted("", [call("write_file", path="hello.txt", content="hi")], "Wrote it.")
    res = run(HarnessConfig(empty_reply=ON), model, tmp_path)
    assert res.status == ExitStatus.COMPLETED and res.message == "Wrote it."
    assert (tmp_path / "hello.txt").read_text() == "hi"
    assert len(nudges(res)) == 1 and "empty" in nudges(res)[0]
    assert any(e.type == "reply.empty" and "retrying" in e.data["note"] for e in res.events)


def test_without_the_guard_an_empty_reply_completes_with_nothing_done(tmp_path: Path) -> None:
    model = scripted("", [call("write_file", path="hello.txt", content="hi")], "Wrote it.")
    res = run(HarnessConfig(), model, tmp_path)
    assert res.status == ExitStatus.COMPLETED and res.message == ""
    assert not (tmp_path / "hello.txt").exists()


def test_empty_replies_beyond_the_limit_end_typed(tmp_path: Path) -> None:
    model = scripted("", "", "", "never reached")
    res = run(HarnessConfig(empty_reply=ON), model, tmp_path)
    assert res.status == ExitStatus.EMPTY_REPLIES
    assert len(nudges(res)) == 2 and res.turns == 3


def test_thought_only_reply_is_nudged(tmp_path: Path) -> None:
    model = scripted("<think>I should write the file.</think>\n",
                     Message(role="assistant", thoughts="still thinking"),
                     [call("write_file", path="hello.txt", content="hi")], "Done.")
    res = run(HarnessConfig(empty_reply=ON), model, tmp_path)
    assert res.status == ExitStatus.COMPLETED and res.message == "Done."
    assert len(nudges(res)) == 2 and all("internal thoughts" in n for n in nudges(res))
    assert [e.type for e in res.events].count("reply.thought_only") == 2


def test_thought_only_switched_off_completes_with_the_thoughts(tmp_path: Path) -> None:
    model = scripted("<think>I should write the file.</think>", "Done.")
    res = run(HarnessConfig(empty_reply={**ON, "thought_only": False}), model, tmp_path)
    assert res.status == ExitStatus.COMPLETED and "<think>" in res.message
    assert nudges(res) == []


def test_a_good_reply_resets_the_streak(tmp_path: Path) -> None:
    model = scripted("", "", [call("bash", command="echo hi")], "", "", "Done.")
    res = run(HarnessConfig(empty_reply=ON), model, tmp_path)
    assert res.status == ExitStatus.COMPLETED and len(nudges(res)) == 4


def test_classify() -> None:
    assert classify(Message(role="assistant")) == "empty"
    assert classify(Message(role="assistant", content="  \n")) == "empty"
    assert classify(Message(role="assistant", content="<thought>x</thought>")) == "thought_only"
    assert classify(Message(role="assistant", content="<think>cut off mid")) == "thought_only"
    assert classify(Message(role="assistant", content="<think>x</think>Answer")) is None
    assert classify(Message(role="assistant", tool_calls=[call("bash", command="ls")])) is None
    assert visible_text("<THINK>a</THINK> b <thought>c</thought>") == "b"
