"""Isolation defaults of a looplab-docker container, checked from inside and from the engine."""

from __future__ import annotations

import os

import pytest
from sandbox_helpers import inspect_container, with_sandbox

from sandboxes.config import DockerSandboxConfig
from sandboxes.docker_engine import LABEL_RUN, LABEL_SANDBOX, RUN_ID
from sandboxes.docker_provider import LooplabDockerSandbox

pytestmark = pytest.mark.docker

# Linux capability bits (include/uapi/linux/capability.h)
CAP_BITS = {"CHOWN": 0, "DAC_OVERRIDE": 1, "FOWNER": 3, "KILL": 5, "SETGID": 6, "SETUID": 7}


async def _interfaces_and_routes(sb: LooplabDockerSandbox) -> tuple[list[str], list[str]]:
    ifaces = (await sb.exec(["ls", "/sys/class/net"])).stdout.split()
    routes = (await sb.exec(["cat", "/proc/net/route"])).stdout.splitlines()[1:]  # minus header
    return sorted(ifaces), routes


def test_network_is_off_by_default_and_on_when_asked() -> None:
    async def off(sb: LooplabDockerSandbox) -> None:
        ifaces, routes = await _interfaces_and_routes(sb)
        assert ifaces == ["lo"] and routes == []

    async def on(sb: LooplabDockerSandbox) -> None:
        # The contrast shows the check above can fail: a networked container has more.
        ifaces, routes = await _interfaces_and_routes(sb)
        assert "eth0" in ifaces and routes != []

    with_sandbox(off)
    with_sandbox(on, DockerSandboxConfig(network=True))


def _status(text: str, field: str) -> str:
    return next(
        line.split(":", 1)[1].strip() for line in text.splitlines() if line.startswith(field)
    )


def test_capabilities_dropped_and_no_new_privileges() -> None:
    allowed = sum(1 << CAP_BITS[c] for c in DockerSandboxConfig().cap_add)

    async def default(sb: LooplabDockerSandbox) -> None:
        # Root (the sandbox's own processes) has the kept capabilities...
        status = (await sb.exec(["cat", "/proc/self/status"], user="root")).stdout
        assert int(_status(status, "CapEff"), 16) == allowed
        assert int(_status(status, "CapBnd"), 16) == allowed
        assert _status(status, "NoNewPrivs") == "1"
        # ...the harness's user none at all, and no way to get them.
        status = (await sb.exec(["cat", "/proc/self/status"])).stdout
        assert int(_status(status, "CapEff"), 16) == 0
        assert int(_status(status, "CapPrm"), 16) == 0
        assert _status(status, "NoNewPrivs") == "1"
        # What root's capabilities are for: unpacking an archive that records other owners.
        tar = await sb.exec(
            [
                "bash",
                "-c",
                "echo x > f && tar --owner=1000 -cf a.tar f && mkdir o && tar -C o -xf a.tar",
            ],
            user="root",
        )
        assert tar.success, tar.stderr
        # ...and what stays impossible for the harness's user: becoming anyone else (su is
        # set-uid root, which no-new-privileges disarms).
        su = await sb.exec(["su", "nobody", "-s", "/bin/sh", "-c", "id"])
        assert not su.success

    async def bare(sb: LooplabDockerSandbox) -> None:
        status = (await sb.exec(["cat", "/proc/self/status"])).stdout
        assert int(_status(status, "CapEff"), 16) == 0

    with_sandbox(default)
    with_sandbox(bare, DockerSandboxConfig(cap_add=(), user=None))


def test_limits_and_labels_are_set_on_the_container() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        info = inspect_container(sb.container_id)
        host = info["HostConfig"]
        assert host["Memory"] == 1 << 30 and host["MemorySwap"] == 1 << 30
        assert host["NanoCpus"] == 1_000_000_000
        assert host["PidsLimit"] == 256
        assert host["NetworkMode"] == "none"
        assert host["CapDrop"] == ["ALL"]
        assert "no-new-privileges" in host["SecurityOpt"]
        labels = info["Config"]["Labels"]
        assert labels[LABEL_SANDBOX] == f"run-{RUN_ID}" and labels[LABEL_RUN] == RUN_ID
        assert labels["looplab.owner.pid"] == str(os.getpid())
        assert labels["looplab.owner.host"] and labels["looplab.owner.boot"]
        assert info["Config"]["WorkingDir"] == "/workspace"

    with_sandbox(body)


def test_pids_limit_stops_a_fork_loop() -> None:
    script = (
        "import os, time\n"
        "n = 0\n"
        "try:\n"
        "    for _ in range(200):\n"
        "        if os.fork() == 0:\n"  # each child holds its pid until the container goes:
        "            os.closerange(0, 3); time.sleep(300); os._exit(0)\n"  # slow forks still hit it
        "        n += 1\n"
        "except OSError as e:\n"
        "    print('limited', n)\n"
    )

    async def body(sb: LooplabDockerSandbox) -> None:
        result = await sb.exec(["python3", "-c", script])
        assert result.stdout.startswith("limited"), result
        assert int(result.stdout.split()[1]) < 32

    with_sandbox(body, DockerSandboxConfig(pids_limit=32))


def test_memory_limit_kills_a_hog() -> None:
    async def body(sb: LooplabDockerSandbox) -> None:
        hog = await sb.exec(["python3", "-c", "b = bytearray(400 * 1024 * 1024); print('alive')"])
        assert not hog.success and "alive" not in hog.stdout
        small = await sb.exec(["python3", "-c", "b = bytearray(8 * 1024 * 1024); print('alive')"])
        assert small.stdout == "alive\n"

    with_sandbox(body, DockerSandboxConfig(memory="128m"))
