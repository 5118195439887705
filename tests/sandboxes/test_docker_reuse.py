"""Container reuse: a container serves the next sample only when it is shown to be as fresh, and
the next sample then sees nothing of the previous one (files, processes, IPC); anything else,
an interrupted sample, or `max_reuses` reached, and it is removed."""

from __future__ import annotations

import asyncio
import logging
import os
import uuid
from collections.abc import Awaitable, Callable

import pytest
from inspect_ai.util import SandboxUnavailableError
from sandbox_helpers import container_exists

from sandboxes.config import DockerSandboxConfig
from sandboxes.docker_engine import TRACKED, labelled_containers
from sandboxes.docker_provider import LooplabDockerSandbox

pytestmark = pytest.mark.docker

TASK = "reuse"
LOCAL_ENGINE = os.access("/var/lib/docker/overlay2", os.R_OK)
Body = Callable[[LooplabDockerSandbox], Awaitable[object]]


@pytest.fixture
def namespace(monkeypatch: pytest.MonkeyPatch) -> str:
    """A label namespace of this test's own, so it can count exactly its containers."""
    value = f"test-reuse-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("LOOPLAB_SANDBOX_NAMESPACE", value)
    monkeypatch.delenv("LOOPLAB_SANDBOX_REUSE", raising=False)
    return value


def _config(**fields: object) -> DockerSandboxConfig:
    # A config of the test's own (memory differs): pools are per config within the process.
    return DockerSandboxConfig(warm=1, memory=f"{300 + uuid.uuid4().int % 600}m", **fields)


def run_samples(
    config: DockerSandboxConfig, bodies: list[Body], interrupted: bool = False
) -> tuple[list[str], list[object]]:
    """Run one sample per body, one after the other, in one task (as inspect does); return the
    container id each sample got and what each body returned. The task is cleaned up after."""

    async def run() -> tuple[list[str], list[object]]:
        await LooplabDockerSandbox.task_init(TASK, config)
        ids, results = [], []
        try:
            for body in bodies:
                envs = await LooplabDockerSandbox.sample_init(TASK, config, {})
                sandbox = envs["default"]
                assert isinstance(sandbox, LooplabDockerSandbox)
                ids.append(sandbox.container_id)
                try:
                    results.append(await body(sandbox))
                finally:
                    await LooplabDockerSandbox.sample_cleanup(TASK, config, envs, interrupted)
        finally:
            await LooplabDockerSandbox.task_cleanup(TASK, config, True)
        return ids, results

    return asyncio.run(run())


async def _sh(sandbox: LooplabDockerSandbox, script: str, user: str | None = None) -> str:
    result = await sandbox.exec(["bash", "-c", script], user=user)
    assert result.success, result
    return result.stdout


def _not_reused(caplog: pytest.LogCaptureFixture) -> list[str]:
    """Why the pool threw a container away (its log), for an assertion's message."""
    return [r.getMessage() for r in caplog.records if "not reused" in r.getMessage()]


SEEN = "ls -A /workspace /tmp /var/tmp /dev/shm; ps -eo args; stat -c '%n %a %U' /workspace /tmp"
EMPTY = "/dev/shm:\n\n/tmp:\n\n/var/tmp:\n\n/workspace:\nCOMMAND\n"  # `ls` sorts its arguments


def test_workspace_and_scratch_changes_and_background_jobs_are_cleared_then_reused(
    namespace: str, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="sandboxes.docker_pool")  # why a container was not reused
    async def dirty(sandbox: LooplabDockerSandbox) -> str:
        await sandbox.write_file("notes/a.txt", "from sample one\n")
        await _sh(sandbox, "mkdir -p deep/er && touch deep/er/f /tmp/t /var/tmp/v /dev/shm/s\n"
                           "chmod 700 /workspace\n"
                           "(nohup sleep 301 >/dev/null 2>&1 &)\n"
                           "setsid sleep 302 >/dev/null 2>&1 </dev/null &\n"
                           "sleep 303 >/dev/null 2>&1 &\n"
                           "disown -a")
        return await _sh(sandbox, SEEN)

    async def look(sandbox: LooplabDockerSandbox) -> str:
        with pytest.raises(FileNotFoundError):
            await sandbox.read_file("notes/a.txt")
        return await _sh(sandbox, SEEN)

    ids, (first, second) = run_samples(_config(), [dirty, look])
    # The same container served both samples (else the pool says why it threw it away).
    assert ids[0] == ids[1], _not_reused(caplog)
    # The first sample saw its own files and jobs: the listing below can tell.
    assert all(s in str(first) for s in ("notes", "deep", "/tmp:\nt", "sleep 301", "sleep 303"))
    assert "/workspace 700" in str(first)
    assert not str(first).startswith(EMPTY)
    lines = str(second)
    assert lines.startswith(EMPTY), lines
    assert "sleep 30" not in lines
    assert "/workspace 755 agent" in lines and "/tmp 1777 root" in lines
    assert not container_exists(ids[0])  # task_cleanup removed it from the pool
    assert labelled_containers() == []


@pytest.mark.parametrize(
    "change",
    [
        "touch /etc/looplab-left-behind",
        "mkdir /opt/looplab-left-behind",
        "rm /etc/issue",
        "echo '# x' >> /root/.bashrc",
        "echo '10.0.0.1 elsewhere' >> /etc/hosts",  # a bind mount: not in `docker diff`
        "touch /dev/looplab-left-behind",  # /dev is a tmpfs: not in `docker diff` either
        "ipcmk -M 4096",  # System V shared memory: not a file at all
        # A socket left in TIME_WAIT (the side that closes first keeps it for a minute).
        "python3 -c \"import socket; s = socket.create_server(('127.0.0.1', 0)); "
        "c = socket.create_connection(s.getsockname()); a, _ = s.accept(); a.close(); c.close()\"",
        "touch /var/tmp/x && chmod 700 /var",  # a parent of a scratch root, copied up
        # Already copied up in a fresh container (the engine's /usr/sbin/docker-init mount
        # point): `docker diff` cannot tell this chmod; the upper-directory read can.
        pytest.param("chmod 700 /usr/sbin", marks=pytest.mark.skipif(
            not LOCAL_ENGINE, reason="needs the engine's overlay2 directories on this machine")),
    ],
)
def test_a_change_the_checks_cannot_undo_removes_the_container(
    namespace: str, change: str
) -> None:
    # As root: the harness's user cannot make any of these changes (test_sandbox_users.py);
    # the checks still hold for whatever root might leave behind.
    async def body(sandbox: LooplabDockerSandbox) -> None:
        await _sh(sandbox, change, user="root")

    async def nothing(sandbox: LooplabDockerSandbox) -> None:
        return None

    ids, _ = run_samples(_config(), [body, nothing])
    assert ids[0] != ids[1]
    assert not container_exists(ids[0])
    assert ids[0] not in TRACKED.ids()


def test_background_jobs_of_other_users_are_stopped_and_the_container_reused(
    namespace: str, caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="sandboxes.docker_pool")  # why a container was not reused
    # Root in the sandbox has CAP_KILL: the harness's (and any other user's) jobs are stopped.
    async def body(sandbox: LooplabDockerSandbox) -> None:
        for user in (None, "nobody"):
            result = await sandbox.exec(["sh", "-c", "nohup sleep 300 >/dev/null 2>&1 &"],
                                        user=user)
            assert result.success, result
        return await _sh(sandbox, "ps -eo user:12,args")

    async def look(sandbox: LooplabDockerSandbox) -> str:
        return await _sh(sandbox, "ps -eo user:12,args")

    ids, (before, after) = run_samples(_config(), [body, look])
    assert ids[0] == ids[1], _not_reused(caplog)
    assert "agent        sleep 300" in str(before) and "nobody       sleep 300" in str(before)
    assert "sleep 300" not in str(after)


def test_the_baseline_keeps_the_sandbox_own_processes_once_started(namespace: str) -> None:
    # Kept processes are never killed, and each must be found again at every reset (else the
    # container is not reused). A baseline taken while the witness was starting could miss it,
    # or keep a child of its start gone by the first reset (its `ldconfig`, once): a container
    # now and then thrown away under load. It holds exactly the init, the main process and the
    # witness.
    async def kept(sandbox: LooplabDockerSandbox) -> list[str]:
        assert sandbox.prepared is not None and sandbox.prepared.baseline is not None
        pids = sandbox.prepared.baseline.keep
        out = await _sh(sandbox, "for p in " + " ".join(map(str, pids)) + "; do "
                        "tr '\\0' ' ' < /proc/$p/cmdline || echo gone; echo; done", user="root")
        return out.splitlines()

    # Several fresh containers (an interrupted sample's is not reused): the race was about one
    # in twenty.
    ids, seen = run_samples(_config(), [kept] * 4, interrupted=True)
    assert len(set(ids)) == 4
    for lines in seen:
        assert isinstance(lines, list) and len(lines) == 3, lines
        assert lines[0].startswith("/sbin/docker-init -- python3 -I /opt/looplab/init.py"), lines
        assert lines[1].startswith("python3 -I /opt/looplab/init.py"), lines
        assert "/opt/looplab/witness.py serve" in lines[2], lines


def test_an_interrupted_sample_is_never_reused(namespace: str) -> None:
    async def clean(sandbox: LooplabDockerSandbox) -> None:
        await _sh(sandbox, "true")

    ids, _ = run_samples(_config(), [clean, clean], interrupted=True)
    assert ids[0] != ids[1]
    assert not container_exists(ids[0])


def test_max_reuses_bounds_how_many_samples_one_container_serves(namespace: str) -> None:
    async def clean(sandbox: LooplabDockerSandbox) -> None:
        await sandbox.write_file("f.txt", "x")

    ids, _ = run_samples(_config(max_reuses=2), [clean] * 4)
    assert ids[0] == ids[1] == ids[2]  # one sample plus two reuses
    assert ids[3] != ids[0]
    assert labelled_containers() == []


@pytest.mark.parametrize("switch", ["config", "environment"])
def test_reuse_can_be_switched_off(
    namespace: str, monkeypatch: pytest.MonkeyPatch, switch: str
) -> None:
    if switch == "environment":
        monkeypatch.setenv("LOOPLAB_SANDBOX_REUSE", "0")

    async def clean(sandbox: LooplabDockerSandbox) -> None:
        await _sh(sandbox, "true")

    ids, _ = run_samples(_config(reuse=switch != "config"), [clean, clean])
    assert ids[0] != ids[1]


def test_a_finished_samples_sandbox_cannot_reach_the_reused_container(namespace: str) -> None:
    """A task of the finished sample that still holds its sandbox must not act in the container
    the next sample now uses."""
    kept: list[LooplabDockerSandbox] = []

    async def first(sandbox: LooplabDockerSandbox) -> None:
        kept.append(sandbox)

    async def second(sandbox: LooplabDockerSandbox) -> None:
        with pytest.raises(SandboxUnavailableError, match="released"):
            await kept[0].exec(["touch", "intruder"])
        with pytest.raises(SandboxUnavailableError):
            await kept[0].write_file("intruder", "x")
        assert (await sandbox.exec(["ls", "-A"])).stdout == ""

    ids, _ = run_samples(_config(), [first, second])
    assert ids[0] == ids[1]


def test_a_reused_container_gives_each_sample_a_fresh_witness_segment(namespace: str) -> None:
    async def sample(sandbox: LooplabDockerSandbox) -> tuple[str, list[dict[str, object]]]:
        await _sh(sandbox, "mkdir -p .looplab && echo run >> .looplab/n.count")
        assert sandbox.witness is not None
        reading = await sandbox.witness.read()
        return reading.summary["segment"], reading.records

    ids, ((seg1, rec1), (seg2, rec2)) = run_samples(_config(), [sample, sample])  # type: ignore[misc]
    assert ids[0] == ids[1] and seg1 != seg2
    for records in (rec1, rec2):  # each segment: its begin, then only its own sample's events
        assert records[0]["ev"] == "begin" and records[0]["seq"] == 1
        mine = [r["ev"] for r in records if r.get("path") == ".looplab/n.count"]
        assert mine[0] == "create" and mine.count("append") == 1, mine
