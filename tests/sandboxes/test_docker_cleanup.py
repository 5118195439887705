"""Containers are removed in every way the provider promises: at sample and task end, at
interpreter exit, on SIGINT/SIGTERM, and by `inspect sandbox cleanup looplab-docker [ID]`."""

from __future__ import annotations

import asyncio
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sandbox_helpers import container_exists

from sandboxes.config import DEFAULT_IMAGE, DockerSandboxConfig
from sandboxes.docker_engine import TRACKED, api_client, remove_container
from sandboxes.docker_provider import LooplabDockerSandbox

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
HOLD = Path(__file__).with_name("hold_sandbox.py")


def _ids(envs: dict) -> list[str]:
    return [env.container_id for env in envs.values()]


def test_sample_cleanup_removes_the_container() -> None:
    async def run() -> str:
        envs = await LooplabDockerSandbox.sample_init("t", None, {})
        (container_id,) = _ids(envs)
        assert container_exists(container_id)
        await LooplabDockerSandbox.sample_cleanup("t", None, envs, False)
        return container_id

    container_id = asyncio.run(run())
    assert not container_exists(container_id)
    assert container_id not in TRACKED.ids()


def test_task_cleanup_spares_another_tasks_live_sandboxes() -> None:
    """Two tasks with the same config in one process (``eval`` of several configurations): the
    first to finish removes its own leftovers, never the other task's running sandboxes."""
    config = DockerSandboxConfig(memory="256m")

    async def run() -> tuple[list[str], list[str]]:
        b_started, a_done = asyncio.Event(), asyncio.Event()

        async def task_a() -> list[str]:
            await LooplabDockerSandbox.task_init("t", config)
            ids = [_ids(await LooplabDockerSandbox.sample_init("t", config, {}))[0] for _ in range(2)]
            await b_started.wait()
            await LooplabDockerSandbox.task_cleanup("t", config, True)
            a_done.set()
            return ids

        async def task_b() -> list[str]:
            await LooplabDockerSandbox.task_init("t", config)
            ids = _ids(await LooplabDockerSandbox.sample_init("t", config, {}))
            b_started.set()
            await a_done.wait()
            return ids

        a, b = await asyncio.gather(asyncio.create_task(task_a()), asyncio.create_task(task_b()))
        return a, b

    a, b = asyncio.run(run())
    try:
        assert not any(container_exists(c) for c in a)
        assert container_exists(b[0])
    finally:
        remove_container(b[0])


def test_no_sandbox_cleanup_keeps_containers() -> None:
    config = DockerSandboxConfig(memory="257m")

    async def run() -> str:
        (container_id,) = _ids(await LooplabDockerSandbox.sample_init("t", config, {}))
        await LooplabDockerSandbox.task_cleanup("shutdown", config, False)
        return container_id

    container_id = asyncio.run(run())
    try:
        assert container_exists(container_id)
        assert container_id not in TRACKED.ids()  # exit hooks will spare it too
    finally:
        remove_container(container_id)


def test_cli_cleanup_by_id_and_all(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # A namespace of our own, so removing "all" cannot touch containers of concurrent tests.
    monkeypatch.setenv("LOOPLAB_SANDBOX_NAMESPACE", f"test-{uuid.uuid4().hex[:8]}")

    async def run() -> list[str]:
        return [_ids(await LooplabDockerSandbox.sample_init("t", None, {}))[0] for _ in range(3)]

    first, *rest = asyncio.run(run())
    try:
        asyncio.run(LooplabDockerSandbox.cli_cleanup(first[:12]))
        assert not container_exists(first) and all(container_exists(c) for c in rest)
        asyncio.run(LooplabDockerSandbox.cli_cleanup(None))
        assert not any(container_exists(c) for c in rest)
        assert "removed 2 container(s)" in capsys.readouterr().out
    finally:
        for container_id in rest:
            remove_container(container_id)


def test_cli_cleanup_refuses_a_foreign_container() -> None:
    api = api_client()
    foreign = api.create_container(DEFAULT_IMAGE, command=["sleep", "60"])["Id"]
    try:
        with pytest.raises(ValueError, match="not a looplab sandbox"):
            asyncio.run(LooplabDockerSandbox.cli_cleanup(foreign))
        assert container_exists(foreign)
    finally:
        api.remove_container(foreign, force=True)


def _hold(mode: str) -> tuple[subprocess.Popen[str], str]:
    proc = subprocess.Popen(
        [sys.executable, str(HOLD), mode],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    container_id = proc.stdout.readline().strip()
    assert container_id, proc.communicate(timeout=60)
    return proc, container_id


def test_interpreter_exit_removes_containers() -> None:
    proc, container_id = _hold("exit")
    try:
        assert proc.wait(timeout=60) == 0
        assert not container_exists(container_id)
    finally:
        remove_container(container_id)


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_signal_removes_containers_and_keeps_default_behaviour(sig: signal.Signals) -> None:
    proc, container_id = _hold("wait")
    try:
        assert container_exists(container_id)
        proc.send_signal(sig)
        _, stderr = proc.communicate(timeout=60)
        assert not container_exists(container_id)
        if sig == signal.SIGTERM:
            assert proc.returncode == -signal.SIGTERM  # the default action still ended it
        else:
            assert "KeyboardInterrupt" in stderr  # the previous Ctrl-C handling still ran
    finally:
        proc.kill()
        remove_container(container_id)
