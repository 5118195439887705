"""``Session``: serialised concurrent messages, lane timeouts on real runs, resume, hooks."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from harness.config import HarnessConfig
from harness.loop import RunResult
from harness.messages import Message
from harness.model import ToolSpec
from harness.sessions.session import Session
from harness.sessions.transcript import load_transcript
from harness.status import ExitStatus
from harness.testing import FunctionModel, call, scripted
from harness.workspace import LocalWorkspace

WAIT_FOR_GATE = "touch a-started; while [ ! -f gate ]; do sleep 0.02; done; echo A-ran"


def _per_task_model() -> FunctionModel:
    """Answers each message by its own task: A waits for a gate file, others run at once."""

    def reply(messages: list[Message], tools: list[ToolSpec]) -> object:
        i = max(i for i, m in enumerate(messages) if m.role == "user" and m.origin is None)
        task = messages[i].content
        if any(m.role == "tool" for m in messages[i:]):
            return f"done {task}"
        command = WAIT_FOR_GATE if task == "A" else f"echo {task}-ran"
        return [call("bash", command=command)]

    return FunctionModel(reply)


def _stored(root: Path, sid: str = "s") -> list[Message]:
    return load_transcript(root / f".looplab/sessions/{sid}.jsonl", repair=False)


def _send_a_then_b(root: Path, cfg: HarnessConfig) -> tuple[RunResult, RunResult]:
    session = Session("s", cfg, _per_task_model(), LocalWorkspace(root))

    async def go() -> tuple[RunResult, RunResult]:
        a = asyncio.create_task(session.send("A"))
        while not (root / "a-started").exists():  # A's tool is running
            await asyncio.sleep(0.02)
        b = asyncio.create_task(session.send("B"))
        if session.queue is not None:
            while session.queue.pending("s") < 1:
                await asyncio.sleep(0.01)
        else:
            await asyncio.wait_for(asyncio.shield(b), timeout=20)  # B overtakes A
        (root / "gate").write_text("open")
        return await asyncio.wait_for(asyncio.gather(a, b), timeout=30)  # type: ignore[return-value]

    return asyncio.run(go())


def test_concurrent_messages_to_one_session_run_one_at_a_time(tmp_path: Path) -> None:
    cfg = HarnessConfig(transcript={"enabled": True}, queue={"enabled": True})
    a, b = _send_a_then_b(tmp_path, cfg)
    assert a.status is b.status is ExitStatus.COMPLETED
    contents = [m.content for m in _stored(tmp_path) if m.role != "system"]
    assert contents == ["A", "", "A-ran\n", "done A", "B", "", "B-ran\n", "done B"]
    assert [m.role for m in _stored(tmp_path)].count("system") == 1
    # B ran on top of A's conversation.
    assert [m.content for m in b.messages if m.role == "user"] == ["A", "B"]


def test_without_the_queue_concurrent_messages_interleave(tmp_path: Path) -> None:
    cfg = HarnessConfig(transcript={"enabled": True})
    a, b = _send_a_then_b(tmp_path, cfg)
    contents = [m.content for m in _stored(tmp_path) if m.role != "system"]
    assert contents.index("done B") < contents.index("A-ran\n")  # B landed inside A's turn
    assert [m.role for m in _stored(tmp_path)].count("system") == 2
    assert "A" not in [m.content for m in b.messages]  # B never saw A's message


def _turns_of_sleep(n: int, seconds: float) -> FunctionModel:
    replies = [[call("bash", command=f"sleep {seconds}")] for _ in range(n)]
    return scripted(*replies, "finished")


def test_a_long_run_that_keeps_making_progress_is_not_timed_out(tmp_path: Path) -> None:
    cfg = HarnessConfig(queue={"enabled": True, "lane_timeout_ms": 1000})
    session = Session("s", cfg, _turns_of_sleep(5, 0.3), LocalWorkspace(tmp_path))
    result = asyncio.run(session.send("work"))
    assert result.status is ExitStatus.COMPLETED and result.turns == 6


def test_the_same_run_under_a_wall_clock_timeout_is_killed_midway(tmp_path: Path) -> None:
    cfg = HarnessConfig(queue={"enabled": True, "lane_timeout_ms": 1000, "timeout_basis": "wall"})
    session = Session("s", cfg, _turns_of_sleep(5, 0.3), LocalWorkspace(tmp_path))
    result = asyncio.run(session.send("work"))
    assert result.status is ExitStatus.INTERRUPTED
    assert result.message.startswith("lane timeout")


def test_a_stuck_tool_times_out_and_the_run_ends_typed(tmp_path: Path) -> None:
    cfg = HarnessConfig(queue={"enabled": True, "lane_timeout_ms": 500},
                        transcript={"enabled": True})
    first = call("bash", command="sleep 60")
    session = Session("s", cfg, scripted([first], "never"), LocalWorkspace(tmp_path))
    result = asyncio.run(asyncio.wait_for(session.send("work"), timeout=20))
    assert result.status is ExitStatus.INTERRUPTED
    assert "no progress for 500 ms" in result.message
    assert any(m.tool_call_id == first.id for m in _stored(tmp_path))


def test_a_new_session_object_resumes_the_stored_conversation(tmp_path: Path) -> None:
    cfg = HarnessConfig(transcript={"enabled": True})
    ws = LocalWorkspace(tmp_path)
    asyncio.run(Session("s", cfg, scripted("the answer is 42"), ws).send("what is it?"))
    model = scripted("you asked before")
    later = Session("s", cfg, model, ws)
    history = asyncio.run(later.resume())
    assert [m.content for m in history][1:] == ["what is it?", "the answer is 42"]
    asyncio.run(later.send("what did I ask?"))
    assert [m.content for m in model.inputs[0]][1:] == [
        "what is it?", "the answer is 42", "what did I ask?"]
    lines = (tmp_path / ".looplab/sessions/s.jsonl").read_text().splitlines()
    assert sum(1 for x in lines if json.loads(x).get("content") == "what is it?") == 1


def test_without_a_transcript_a_new_session_object_starts_empty(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    asyncio.run(Session("s", HarnessConfig(), scripted("42"), ws).send("what is it?"))
    assert asyncio.run(Session("s", HarnessConfig(), scripted(), ws).resume()) == []


def test_interrupt_with_nothing_running_says_so(tmp_path: Path) -> None:
    session = Session("s", HarnessConfig(), scripted(), LocalWorkspace(tmp_path))
    assert session.interrupt() is False
