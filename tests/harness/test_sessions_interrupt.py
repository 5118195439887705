"""Interrupts: a real kill of a running tool, the cooperative fence and file relays."""

from __future__ import annotations

import asyncio
import subprocess
import sys
import time
from pathlib import Path

from harness.config import HarnessConfig
from harness.messages import Message
from harness.sessions.interrupt import relay_path
from harness.sessions.session import Session
from harness.sessions.transcript import load_transcript
from harness.status import ExitStatus
from harness.testing import call, scripted
from harness.workspace import LocalWorkspace

# One process (exec): see the report on LocalWorkspace.exec cancelled while the process starts.
SLEEP_60 = "echo $$ > sleep.pid; exec sleep 60"


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


async def _wait_for_file(path: Path, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() or not path.read_text().strip():
        if time.monotonic() > deadline:
            raise AssertionError(f"{path} never appeared")
        await asyncio.sleep(0.02)


def _tool_answers(messages: list[Message]) -> dict[str, str]:
    return {m.tool_call_id or "": m.content for m in messages if m.role == "tool"}


def test_interrupt_kills_a_running_tool_within_seconds_and_keeps_the_context(
        tmp_path: Path) -> None:
    cfg = HarnessConfig(interrupt={"enabled": True}, transcript={"enabled": True})
    first = call("bash", command=SLEEP_60)
    model = scripted([first], "never reached")
    session = Session("s1", cfg, model, LocalWorkspace(tmp_path))

    async def go() -> tuple[object, float, int]:
        task = asyncio.create_task(session.send("run the long job"))
        await _wait_for_file(tmp_path / "sleep.pid")
        pid = int((tmp_path / "sleep.pid").read_text())
        started = time.monotonic()
        assert session.interrupt()
        result = await asyncio.wait_for(task, timeout=5)  # the spec: stopped within seconds
        return result, time.monotonic() - started, pid

    result, elapsed, pid = asyncio.run(go())
    assert result.status is ExitStatus.INTERRUPTED  # type: ignore[attr-defined]
    assert elapsed < 5
    assert not _alive(pid)  # a real kill: the command's process group is gone
    assert model.calls == 1
    stored = load_transcript(tmp_path / ".looplab/sessions/s1.jsonl", repair=False)
    assert any(c.id == first.id for m in stored for c in m.tool_calls)
    answer = next(m for m in stored if m.role == "tool" and m.tool_call_id == first.id)
    assert answer.is_error


def test_without_real_kill_the_fence_stops_the_run_after_the_tool_finishes(
        tmp_path: Path) -> None:
    cfg = HarnessConfig(transcript={"enabled": True})  # interrupt.enabled is off
    first = call("bash", command="sleep 1 & echo $! > sleep.pid; wait; echo finished")
    model = scripted([first], "never reached")
    session = Session("s1", cfg, model, LocalWorkspace(tmp_path))

    async def go() -> object:
        task = asyncio.create_task(session.send("run the job"))
        await _wait_for_file(tmp_path / "sleep.pid")
        session.interrupt()
        return await asyncio.wait_for(task, timeout=30)

    result = asyncio.run(go())
    assert result.status is ExitStatus.INTERRUPTED  # type: ignore[attr-defined]
    assert "finished" in _tool_answers(result.messages)[first.id]  # type: ignore[attr-defined]
    assert model.calls == 1  # stopped at the next checkpoint, before another model call


def test_a_relay_file_from_another_process_interrupts_the_session(tmp_path: Path) -> None:
    relay = tmp_path / "relay"
    cfg = HarnessConfig(interrupt={"enabled": True, "relay_dir": str(relay), "relay_poll_s": 0.05})
    model = scripted([call("bash", command=SLEEP_60)], "never reached")
    session = Session("s1", cfg, model, LocalWorkspace(tmp_path / "ws"))

    async def go() -> object:
        task = asyncio.create_task(session.send("run the long job"))
        await _wait_for_file(tmp_path / "ws" / "sleep.pid")
        subprocess.run([sys.executable, "-c", "import sys; from harness.sessions.interrupt import "
                        "relay_path; p = relay_path(sys.argv[1], 's1'); p.parent.mkdir(); p.touch()",
                        str(relay)], check=True)
        return await asyncio.wait_for(task, timeout=10)

    result = asyncio.run(go())
    assert result.status is ExitStatus.INTERRUPTED  # type: ignore[attr-defined]
    assert not (relay / "s1.interrupt").exists()


def test_without_a_relay_dir_the_file_is_ignored(tmp_path: Path) -> None:
    relay = tmp_path / "relay"
    model = scripted([call("bash", command="sleep 1 & echo $! > sleep.pid; wait; echo finished")],
                     "all done")
    session = Session("s1", HarnessConfig(interrupt={"enabled": True}), model,
                      LocalWorkspace(tmp_path / "ws"))

    async def go() -> object:
        task = asyncio.create_task(session.send("run the job"))
        await _wait_for_file(tmp_path / "ws" / "sleep.pid")
        relay.mkdir()
        relay_path(relay, "s1").touch()
        return await asyncio.wait_for(task, timeout=30)

    result = asyncio.run(go())
    assert result.status is ExitStatus.COMPLETED  # type: ignore[attr-defined]
