"""The sample's witness (``sandboxes.witness_client``), for the solvers that set a sample up and
the scorer that judges it.

In a looplab-docker container the provider began the sample's segment at ``sample_init``; on
inspect's local sandbox a witness is started on the host over the sample's workspace; another
provider whose image carries the witness (Kubernetes with the looplab image) is asked as root.
Set-up marks the moment the scenario's files and commands are in place (``run``): judges read
what happened after it.
"""

from __future__ import annotations

import logging
import weakref

from inspect_ai.util import SandboxEnvironment, sandbox

from sandboxes.docker_provider import LooplabDockerSandbox
from sandboxes.witness_client import (
    Reading,
    WitnessHandle,
    WitnessUnavailableError,
    start_local_witness,
)

logger = logging.getLogger(__name__)

RUN_MARK = "run"
"""Marked when the scenario's set-up is done: what judges read begins there."""

_HANDLES: weakref.WeakKeyDictionary[SandboxEnvironment, WitnessHandle] = weakref.WeakKeyDictionary()


def _provider(box: SandboxEnvironment) -> SandboxEnvironment:
    # inspect hands out an event-logging proxy; as_type reaches the provider behind it.
    return box.as_type(SandboxEnvironment)  # type: ignore[type-abstract]


async def sample_witness(box: SandboxEnvironment | None = None) -> WitnessHandle:
    """The current sample's witness, its segment begun (started on the host for a local
    sandbox). Raises ``WitnessUnavailableError`` when the sandbox has none."""
    box = box or sandbox()
    provider = _provider(box)
    handle = _HANDLES.get(provider)
    if handle is not None:
        return handle
    if isinstance(provider, LooplabDockerSandbox):
        if provider.witness is None:
            raise WitnessUnavailableError(
                f"the sandbox image {provider.config.image} runs no witness: build it FROM "
                "looplab-sandbox (its command must stay /opt/looplab/init.py)")
        handle = provider.witness
    elif type(provider).__name__ == "LocalSandboxEnvironment":
        root = (await box.exec(["pwd"])).stdout.strip()
        handle = await start_local_witness(box, root)
    else:
        handle = WitnessHandle(box)
        await handle.begin()
    _HANDLES[provider] = handle
    return handle


async def begin_run(box: SandboxEnvironment | None = None) -> None:
    """The scenario is set up: mark it, so judges read only what the run did."""
    await (await sample_witness(box)).mark(RUN_MARK)


async def read_witness(box: SandboxEnvironment | None = None) -> Reading:
    """Everything the witness recorded in this sample's segment (after draining the queue)."""
    return await (await sample_witness(box)).read()


def release_witness(box: SandboxEnvironment | None = None) -> None:
    """Stop a host witness once its sample is judged (a container's stays with it)."""
    try:
        provider = _provider(box or sandbox())
    except Exception:  # no sandbox in this context any more: nothing to release
        return
    handle = _HANDLES.pop(provider, None)
    if handle is not None and handle.process is not None:
        handle.close()
