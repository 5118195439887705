"""The local workspace: commands, files, timeouts and cancellation kill the whole process group."""

import asyncio
import time

import pytest

from harness.workspace import LocalWorkspace


def _gone(pid: int, within_s: float = 30) -> bool:
    """Whether ``pid`` stops being alive within ``within_s``: a SIGKILL takes effect when the
    process is next scheduled, which on a loaded machine is not at once."""
    deadline = time.monotonic() + within_s
    while _alive(pid):
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def _alive(pid: int) -> bool:
    """Running (a killed orphan may linger as a zombie until something reaps it: not alive)."""
    try:
        with open(f"/proc/{pid}/status") as f:
            state = next(line for line in f if line.startswith("State:"))
    except (FileNotFoundError, StopIteration):
        return False
    return "Z" not in state.split()[1]


def test_exec_reads_and_writes(tmp_path):
    ws = LocalWorkspace(tmp_path)

    async def go():
        await ws.write_file("a/b.txt", "hi")
        res = await ws.exec("cat a/b.txt; echo err >&2; exit 3")
        return res, await ws.read_file("a/b.txt")

    res, text = asyncio.run(go())
    assert (res.exit_code, res.stdout, res.stderr.strip(), text) == (3, "hi", "err", "hi")


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError):
        asyncio.run(LocalWorkspace(tmp_path).read_file("nope.txt"))


def test_timeout_kills_background_children(tmp_path):
    ws = LocalWorkspace(tmp_path)
    res = asyncio.run(ws.exec("(sleep 30 & echo $! > child.pid); sleep 30", timeout=3))
    assert res.timed_out and res.exit_code == 124
    pid = int((tmp_path / "child.pid").read_text())
    assert _gone(pid)


@pytest.mark.parametrize("delay", [0.0, 0.001, 0.3])
def test_cancel_at_any_moment_kills_the_command(tmp_path, delay):
    """A cancel that lands while the process is still starting must not leak it."""
    ws = LocalWorkspace(tmp_path)
    marker = tmp_path / "started.pid"

    async def go():
        task = asyncio.ensure_future(ws.exec(f"echo $$ > {marker}; sleep 30"))
        await asyncio.sleep(delay)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    t0 = time.monotonic()
    asyncio.run(go())
    assert time.monotonic() - t0 < 25  # the cancel did not wait for the 30-second command
    if marker.exists() and marker.read_text().strip():  # the shell got as far as starting
        assert _gone(int(marker.read_text()))
