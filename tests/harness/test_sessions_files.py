"""Atomic writes: a crash mid-write leaves the previous complete file, never a torn one."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from harness.messages import Message
from harness.sessions.files import HostStore, WorkspaceStore, make_redactor
from harness.sessions.transcript import TranscriptWriter, load_transcript
from harness.workspace import LocalWorkspace


class PowerCutWorkspace(LocalWorkspace):
    """A real local workspace whose writes can be cut off halfway, like a crash mid-write."""

    cut = False

    async def write_file(self, path: str, content: str) -> None:
        if not self.cut:
            return await super().write_file(path, content)
        await super().write_file(path, content[: len(content) // 2])
        raise OSError("power cut during write")


def _crash_second_flush(tmp_path: Path, atomic: bool) -> tuple[list[Message], Path]:
    ws = PowerCutWorkspace(tmp_path)
    writer = TranscriptWriter(WorkspaceStore(ws), "t.jsonl", atomic=atomic)
    history = [Message.system("sys"), Message.user("task " * 50),
               Message(role="assistant", content="answer " * 50)]

    async def go() -> None:
        await writer.sync(history)
        ws.cut = True
        with pytest.raises(OSError):
            await writer.sync([*history, Message.user("next")])

    asyncio.run(go())
    return history, tmp_path / "t.jsonl"


def test_atomic_write_survives_a_crash_mid_write(tmp_path: Path) -> None:
    history, path = _crash_second_flush(tmp_path, atomic=True)
    for line in path.read_text().splitlines():
        json.loads(line)  # every line is complete
    assert [m.content for m in load_transcript(path)] == [m.content for m in history]


def test_in_place_write_is_torn_by_the_same_crash(tmp_path: Path) -> None:
    history, path = _crash_second_flush(tmp_path, atomic=False)
    lines = path.read_text().splitlines()
    with pytest.raises(json.JSONDecodeError):
        for line in lines:
            json.loads(line)
    # The loader still recovers the lines that are whole, but turns persisted earlier are lost.
    assert len(load_transcript(path)) < len(history)


WRITER = r"""
import asyncio, sys
from harness.messages import Message
from harness.sessions.files import HostStore
from harness.sessions.transcript import TranscriptWriter

async def main():
    writer = TranscriptWriter(HostStore(sys.argv[1]), "t.jsonl")
    history = [*(await writer.open()), Message.system("sys")][:1]
    await writer.sync(history)
    print("started", flush=True)
    while True:
        history.append(Message.user("x" * 16_000_000))  # big: the kill lands inside its write
        await writer.sync(history)

asyncio.run(main())
"""


def _kill_mid_write(tmp_path: Path) -> None:
    """Start a real writer process and SIGKILL it while an append is under way (the file has
    grown past what was on disk when it announced itself, and the write is not finished)."""
    path = tmp_path / "t.jsonl"
    proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)], stdout=subprocess.PIPE,
                            text=True, cwd=Path(__file__).resolve().parents[2])
    try:
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        committed = path.stat().st_size
        deadline = time.monotonic() + 60
        while path.stat().st_size <= committed and time.monotonic() < deadline:
            pass  # the next append has not reached the file yet
    finally:
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)


def test_killing_a_writer_mid_append_loses_no_earlier_record_and_resumes(tmp_path: Path) -> None:
    """The append-only contract, with a real process killed mid-write (SIGKILL): only the last
    line is torn; loaders skip it; a resumed writer cuts it off and appends after the whole
    records, which all survive."""
    path = tmp_path / "t.jsonl"
    for attempt in range(2):  # the second run resumes the file the first one left torn
        _kill_mid_write(tmp_path)
        text = path.read_text()
        assert not text.endswith("\n"), "the kill was meant to land inside a write"
        lines = text.splitlines()
        for line in lines[:-1]:
            json.loads(line)  # every line but the last is whole
        with pytest.raises(json.JSONDecodeError):
            json.loads(lines[-1])
        whole = load_transcript(path)
        assert whole[0].content == "sys" and len(whole) == len(lines) - 1

        async def resume(text: str) -> list[Message]:
            writer = TranscriptWriter(HostStore(tmp_path), "t.jsonl")
            history = await writer.open()
            await writer.sync([*history, Message.user(text)])
            return history

        history = asyncio.run(resume(f"resumed {attempt}"))
        assert [m.content for m in history] == [m.content for m in whole]
        after = path.read_text()
        records = [json.loads(line) for line in after.splitlines()]  # the torn tail is gone
        assert after.endswith("\n")
        assert [r["content"] for r in records if "role" in r] == [
            *(m.content for m in whole), f"resumed {attempt}"]


def test_host_store_leaves_no_temp_files(tmp_path: Path) -> None:
    store = HostStore(tmp_path)
    asyncio.run(store.write_text("a/b.json", "one"))
    asyncio.run(store.write_text("a/b.json", "two"))
    assert sorted(p.name for p in (tmp_path / "a").iterdir()) == ["b.json"]
    assert (tmp_path / "a/b.json").read_text() == "two"
    assert asyncio.run(store.read_text("missing")) is None


def test_workspace_store_renames_over_the_target(tmp_path: Path) -> None:
    store = WorkspaceStore(LocalWorkspace(tmp_path))
    asyncio.run(store.write_text("d/f.txt", "hello"))
    asyncio.run(store.write_text("d/f.txt", "again"))
    assert sorted(p.name for p in (tmp_path / "d").iterdir()) == ["f.txt"]
    assert asyncio.run(store.read_text("d/f.txt")) == "again"


def test_redactor_is_identity_when_off_and_redacts_when_on() -> None:
    secret = "sk-" + "q" * 40
    assert make_redactor(False)(secret) == secret
    assert secret not in make_redactor(True)(f"key {secret}")
