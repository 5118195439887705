"""Atomic writes: a crash mid-write leaves the previous complete file, never a torn one."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
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
    history = [Message.system("sys")]
    await writer.sync(history)
    print("started", flush=True)
    while True:
        history.append(Message.user("x" * 200_000))
        await writer.sync(history)

asyncio.run(main())
"""


def test_killing_a_writer_never_leaves_a_corrupt_transcript(tmp_path: Path) -> None:
    path = tmp_path / "t.jsonl"
    for delay in (0.05, 0.2, 0.4):
        proc = subprocess.Popen([sys.executable, "-c", WRITER, str(tmp_path)],
                                stdout=subprocess.PIPE, text=True)
        assert proc.stdout is not None and proc.stdout.readline().strip() == "started"
        try:
            proc.wait(timeout=delay)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)  # mid-loop, most likely mid-write
        proc.wait(timeout=30)
        lines = path.read_text().splitlines()
        for line in lines:
            json.loads(line)
        assert load_transcript(path)[0].content == "sys"


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
    assert make_redactor(False, "x.redact")(secret) == secret
    assert secret not in make_redactor(True, "x.redact")(f"key {secret}")
