"""Run by the cleanup tests: create one sandbox the way inspect does, print its container id,
then either return at once without cleaning up ("exit"), wait for a signal ("wait"), or start a
task first so that a warm pool fills, and wait for a signal ("pool")."""

import asyncio
import signal
import sys

from sandboxes.config import DockerSandboxConfig
from sandboxes.docker_engine import labelled_containers
from sandboxes.docker_provider import LooplabDockerSandbox


async def main(mode: str) -> None:
    config = None
    if mode == "pool":
        config = DockerSandboxConfig(warm=2)
        await LooplabDockerSandbox.task_init("startup", config)
    envs = await LooplabDockerSandbox.sample_init("hold", config, {})
    for _ in range(600):  # in "pool" mode, until the pool has made a warm container
        if mode != "pool" or len(labelled_containers()) >= 2:
            break
        await asyncio.sleep(0.1)
    print(envs["default"].container_id, flush=True)  # type: ignore[attr-defined]
    if mode != "exit":
        await asyncio.sleep(120)


if __name__ == "__main__":
    # An interactive run gets Python's Ctrl-C handler even where the test runner's shell made
    # background jobs ignore SIGINT.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    asyncio.run(main(sys.argv[1]))
