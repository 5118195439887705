"""The read-only ``grep`` tool: matches, no match, bad arguments, slow sources (named pipes), and
two searches of one turn sharing a parallel wave."""

from __future__ import annotations

import asyncio
import errno
import os
import threading
import time
from pathlib import Path

from harness import Agent, HarnessConfig, LocalWorkspace
from harness.messages import Message
from harness.model import ToolSpec
from harness.testing import FunctionModel, call
from harness.tools import ToolContext, resolve_tools

SAFETY_S = 60


def grep(tmp_path: Path, **args):
    [tool] = resolve_tools(["grep"])
    return asyncio.run(tool.run(args, ToolContext(LocalWorkspace(tmp_path), HarnessConfig(), 30)))


def test_grep_is_read_only_and_idempotent() -> None:
    [tool] = resolve_tools(["grep"])
    assert tool.effect == "read_only" and tool.idempotent


def test_matches_no_match_and_bad_arguments(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n# TODO: fix\n")
    out = grep(tmp_path, pattern="TODO|FIXME")
    assert out.kind == "result" and "src/a.py:2:# TODO: fix" in out.content
    none = grep(tmp_path, pattern="nothing-here", path="src")
    assert none.kind == "result" and "No matches" in none.content
    missing = grep(tmp_path, pattern="x", path="nope")
    assert missing.kind == "failure" and "nope" in missing.content


def serve_once(pipe: Path, text: str, barrier: threading.Barrier, report: dict[str, bool]) -> None:
    """Answer one reader of ``pipe`` once ``barrier`` is reached (or broken)."""
    deadline = time.monotonic() + SAFETY_S
    while time.monotonic() < deadline:
        try:
            fd = os.open(pipe, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as e:
            if e.errno != errno.ENXIO:
                raise
            time.sleep(0.01)
    else:
        return
    try:
        barrier.wait()
        report[pipe.name] = True
    except threading.BrokenBarrierError:
        report[pipe.name] = False
    os.set_blocking(fd, True)
    os.write(fd, text.encode())
    os.close(fd)


def two_searches(tmp_path: Path, parallel: bool, barrier_timeout: float) -> dict[str, bool]:
    """One reply with two searches of two pipes whose producers answer only once both readers
    are waiting: ``True`` per pipe when they were (the searches overlapped)."""
    for name in ("a.log", "b.log"):
        os.mkfifo(tmp_path / name)
    barrier, report = threading.Barrier(2, timeout=barrier_timeout), {}
    writers = [threading.Thread(target=serve_once, args=(tmp_path / n, f"ERROR in {n}\n", barrier, report),
                                daemon=True) for n in ("a.log", "b.log")]
    for w in writers:
        w.start()

    def fn(messages: list[Message], tools: list[ToolSpec]):
        if any(m.role == "tool" for m in messages):
            return "done"
        return [call("grep", pattern="ERROR", path="a.log"), call("grep", pattern="ERROR", path="b.log")]

    cfg = HarnessConfig(tools=["grep"], parallel_tools={"enabled": parallel})
    res = asyncio.run(asyncio.wait_for(Agent(cfg, FunctionModel(fn), LocalWorkspace(tmp_path)).run("t"), SAFETY_S))
    for w in writers:
        w.join(SAFETY_S)
    texts = [m.content for m in res.messages if m.role == "tool"]
    assert texts == ["1:ERROR in a.log\n", "1:ERROR in b.log\n"]  # a pipe is read like a file
    return report


def test_searches_of_one_turn_wait_together_when_parallel(tmp_path: Path) -> None:
    assert two_searches(tmp_path, parallel=True, barrier_timeout=SAFETY_S) == {"a.log": True, "b.log": True}


def test_searches_wait_one_after_the_other_without_parallel_tools(tmp_path: Path) -> None:
    # The first producer gives up waiting for the second reader (which cannot start yet).
    report = two_searches(tmp_path, parallel=False, barrier_timeout=1.0)
    assert report["a.log"] is False
