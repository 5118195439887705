"""Warm pools: containers made ahead are still one per sample, fresh, and all removed."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import uuid
from pathlib import Path

import pytest
from sandbox_helpers import container_exists

from sandboxes.config import DockerSandboxConfig
from sandboxes.docker_engine import labelled_containers
from sandboxes.docker_provider import LooplabDockerSandbox
from sandboxes.docker_slots import SLOTS

pytestmark = pytest.mark.docker

ROOT = Path(__file__).resolve().parents[2]
HOLD = Path(__file__).with_name("hold_sandbox.py")


@pytest.fixture
def namespace(monkeypatch: pytest.MonkeyPatch) -> str:
    """A label namespace of this test's own, so it can count exactly its containers."""
    value = f"test-pool-{uuid.uuid4().hex[:8]}"
    monkeypatch.setenv("LOOPLAB_SANDBOX_NAMESPACE", value)
    return value


def test_pooled_samples_get_fresh_containers_and_task_cleanup_removes_the_rest(
    namespace: str,
) -> None:
    # Without reuse: each sample must get a container of its own (reuse: test_docker_reuse.py).
    config = DockerSandboxConfig(warm=3, memory="258m", reuse=False)

    async def run() -> tuple[list[str], int]:
        await LooplabDockerSandbox.task_init("startup", config)
        ids = []
        for n in range(4):
            envs = await LooplabDockerSandbox.sample_init("pooled", config, {})
            sb = envs["default"]
            assert isinstance(sb, LooplabDockerSandbox)
            ids.append(sb.container_id)
            # Nothing a previous sample wrote is there: each sample has its own container.
            assert (await sb.exec(["ls", "-A", "/workspace"])).stdout == ""
            await sb.write_file("left-by-sample.txt", str(n))
            await LooplabDockerSandbox.sample_cleanup("pooled", config, envs, False)
        while_running = len(labelled_containers())  # the warm ones waiting for samples
        await LooplabDockerSandbox.task_cleanup("shutdown", config, True)
        return ids, while_running

    ids, while_running = asyncio.run(run())
    assert len(set(ids)) == 4
    assert not any(container_exists(c) for c in ids)
    assert while_running >= 1
    assert labelled_containers() == []


@pytest.mark.parametrize("samples", [1, 2])
def test_the_pool_makes_no_more_containers_than_samples_are_expected(
    namespace: str, samples: int
) -> None:
    """A one-sample run makes one container; the first is made from `task_init` on."""
    config = DockerSandboxConfig(warm=4, memory=f"{260 + samples}m", reuse=False,
                                 expected_samples=samples)

    async def run() -> tuple[int, list[int]]:
        await LooplabDockerSandbox.task_init("startup", config)
        made_ahead = 0
        for _ in range(200):  # made in the background: wait until the engine lists them
            made_ahead = len(labelled_containers())
            if made_ahead >= samples:
                break
            await asyncio.sleep(0.05)
        seen = []
        for _ in range(samples):
            envs = await LooplabDockerSandbox.sample_init("sized", config, {})
            seen.append(len(labelled_containers()))
            await LooplabDockerSandbox.sample_cleanup("sized", config, envs, False)
        await LooplabDockerSandbox.task_cleanup("shutdown", config, True)
        return made_ahead, seen

    made_ahead, seen = asyncio.run(run())
    assert made_ahead == samples  # before any sample asked
    assert seen == list(range(samples, 0, -1))  # never one more than the samples left
    assert labelled_containers() == []


def test_a_signal_removes_warm_containers_too(namespace: str) -> None:
    proc = subprocess.Popen(
        [sys.executable, str(HOLD), "pool"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "LOOPLAB_SANDBOX_NAMESPACE": namespace},
    )
    try:
        assert proc.stdout is not None
        container_id = proc.stdout.readline().strip()
        assert container_id, proc.communicate(timeout=60)
        assert len(labelled_containers()) >= 2  # the sample's and at least one warm one
        proc.send_signal(signal.SIGTERM)
        proc.communicate(timeout=60)
        assert proc.returncode == -signal.SIGTERM
        assert labelled_containers() == []
    finally:
        proc.kill()
        proc.wait()


def test_warm_is_validated() -> None:
    with pytest.raises(ValueError, match="warm"):
        DockerSandboxConfig(warm=-1)


def test_a_sample_waits_for_a_slot_of_the_run_bound(namespace: str) -> None:
    """`evals.evaluate` bounds looplab-docker sandboxes itself (`docker_slots`, in place of
    inspect's bound, which sleeps each sample at random first): with one slot, a second sample
    gets its container only once the first sample is cleaned up, and a failed start keeps none."""
    config = DockerSandboxConfig(warm=2, memory="264m", reuse=False)

    async def run() -> bool:
        await LooplabDockerSandbox.task_init("startup", config)
        SLOTS.limit(1)
        try:
            first = await LooplabDockerSandbox.sample_init("slots", config, {})
            second = asyncio.create_task(LooplabDockerSandbox.sample_init("slots", config, {}))
            await asyncio.sleep(1.0)  # a warm container is handed out in milliseconds
            waited = not second.done()
            await LooplabDockerSandbox.sample_cleanup("slots", config, first, False)
            envs = await asyncio.wait_for(second, 60)
            await LooplabDockerSandbox.sample_cleanup("slots", config, envs, False)
            # the slot is free again: a third sample gets it
            third = await asyncio.wait_for(LooplabDockerSandbox.sample_init("slots", config, {}), 60)
            await LooplabDockerSandbox.sample_cleanup("slots", config, third, False)
        finally:
            SLOTS.limit(None)
        await LooplabDockerSandbox.task_cleanup("shutdown", config, True)
        return waited

    assert asyncio.run(run())
    assert labelled_containers() == []
