"""Run by test_docker_cleanup: create one sandbox the way inspect does, print its container id,
then either return at once without cleaning up ("exit") or wait for a signal ("wait")."""

import asyncio
import signal
import sys

from sandboxes.docker_provider import LooplabDockerSandbox


async def main(mode: str) -> None:
    envs = await LooplabDockerSandbox.sample_init("hold", None, {})
    print(envs["default"].container_id, flush=True)  # type: ignore[attr-defined]
    if mode == "wait":
        await asyncio.sleep(120)


if __name__ == "__main__":
    # An interactive run gets Python's Ctrl-C handler even where the test runner's shell made
    # background jobs ignore SIGINT.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    asyncio.run(main(sys.argv[1]))
