"""Helpers for the sandbox tests: run a coroutine against a real looplab-docker sandbox."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from sandboxes.config import DockerSandboxConfig
from sandboxes.docker_engine import api_client
from sandboxes.docker_provider import LooplabDockerSandbox

T = TypeVar("T")
TASK = "sandbox-tests"


def with_sandbox(
    body: Callable[[LooplabDockerSandbox], Awaitable[T]],
    config: DockerSandboxConfig | None = None,
) -> T:
    """Create a sandbox the way inspect does, run `body` in it, and always clean it up."""

    async def run() -> T:
        envs = await LooplabDockerSandbox.sample_init(TASK, config, {})
        try:
            sandbox = envs["default"]
            assert isinstance(sandbox, LooplabDockerSandbox)
            return await body(sandbox)
        finally:
            await LooplabDockerSandbox.sample_cleanup(TASK, config, envs, False)

    return asyncio.run(run())


def container_exists(container_id: str) -> bool:
    import docker

    try:
        api_client().inspect_container(container_id)
        return True
    except docker.errors.NotFound:
        return False


def inspect_container(container_id: str) -> dict[str, Any]:
    return api_client().inspect_container(container_id)
