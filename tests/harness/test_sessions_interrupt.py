"""Interrupts: a real kill of a running tool, the cooperative fence, SIGINT and file relays."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.config import HarnessConfig
from harness.messages import Message
from harness.sessions.interrupt import install_interrupt_handler, request_interrupt
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
                        "request_interrupt; request_interrupt(sys.argv[1], 's1')", str(relay)],
                       check=True)
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
        request_interrupt(relay, "s1")
        return await asyncio.wait_for(task, timeout=30)

    result = asyncio.run(go())
    assert result.status is ExitStatus.COMPLETED  # type: ignore[attr-defined]


SCRIPT = r"""
import asyncio, sys
from harness.config import HarnessConfig
from harness.sessions.interrupt import install_interrupt_handler
from harness.sessions.session import Session
from harness.testing import call, scripted
from harness.workspace import LocalWorkspace

async def main():
    cfg = HarnessConfig(interrupt={"enabled": sys.argv[2] == "kill"})
    cmd = "echo $$ > sleep.pid; exec sleep 60"
    session = Session("cli", cfg, scripted([call("bash", command=cmd)], "x"),
                      LocalWorkspace(sys.argv[1]))
    install_interrupt_handler(session)
    result = await session.send("long job")
    print("status", result.status.value, flush=True)

asyncio.run(main())
"""


def _start(tmp_path: Path, mode: str) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, "-c", SCRIPT, str(tmp_path), mode],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def test_sigint_interrupts_the_session_and_the_process_exits_cleanly(tmp_path: Path) -> None:
    proc = _start(tmp_path, "kill")
    asyncio.run(_wait_for_file(tmp_path / "sleep.pid"))
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=10)
    assert proc.returncode == 0, err
    assert "status interrupted" in out
    assert "interrupting" in err
    assert not _alive(int((tmp_path / "sleep.pid").read_text()))


def test_a_second_sigint_exits_at_once(tmp_path: Path) -> None:
    proc = _start(tmp_path, "fence")  # the first Ctrl-C only flips the fence: the tool runs on
    pid_file = tmp_path / "sleep.pid"
    asyncio.run(_wait_for_file(pid_file))
    try:
        proc.send_signal(signal.SIGINT)
        assert proc.stderr is not None
        while "interrupting" not in proc.stderr.readline():  # the first Ctrl-C was handled
            assert proc.poll() is None, proc.communicate()
        assert proc.poll() is None  # still waiting for the tool
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=10)
        assert proc.returncode == 130
        assert "exiting now" in err and "status" not in out
    finally:
        proc.kill()
        try:
            os.kill(int(pid_file.read_text()), signal.SIGKILL)  # the orphaned tool
        except ProcessLookupError:
            pass


def test_the_handler_needs_the_running_loop(tmp_path: Path) -> None:
    session = Session("x", HarnessConfig(), scripted(), LocalWorkspace(tmp_path))
    with pytest.raises(RuntimeError, match="inside the running event loop"):
        install_interrupt_handler(session)
