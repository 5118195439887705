"""How `looplab-docker` runs one command: through the container's command agent, or through the
engine's exec when the agent cannot (no python3 in the image, a lost stream). Kept apart from the sandbox
class so that the class holds the inspect interface and this module the transport choices."""

from __future__ import annotations

import asyncio
import base64
import logging
import time

from .docker_agent import AgentHandle, ChannelClosedError
from .docker_engine import api_client, container_running
from .docker_io import ExecRequest, RawExecResult, b64, run_exec

logger = logging.getLogger(__name__)


class ContainerLostError(RuntimeError):
    """The command's stream ended and the container is gone (the sandbox is unavailable)."""


async def exec_by_agent(
    agent: AgentHandle, container_id: str, name: str, request: ExecRequest
) -> RawExecResult | None:
    """The command's result from the agent; None when the engine's exec must run it.
    Raises ContainerLostError when the stream ended because the container is gone."""
    started = time.monotonic()
    try:
        reply = await agent.call(
            "exec",
            request.deadline_s,
            argv=request.argv,
            cwd=request.workdir,
            env=request.env or {},
            input=b64(request.stdin) if request.stdin is not None else None,
            limit=request.output_limit,
            user=request.user,
        )
    except ChannelClosedError:
        return await _lost_exec(container_id, name, started)
    if reply is None:
        return None
    return RawExecResult(
        int(reply["rc"]),
        base64.b64decode(reply.get("out", "")),
        base64.b64decode(reply.get("err", "")),
        bool(reply.get("trunc")),
        time.monotonic() - started,
    )


async def _lost_exec(container_id: str, name: str, started: float) -> RawExecResult:
    # The stream ended mid-command. A container that is gone is unavailable; one that lives
    # on lost its agent (a command may kill every process it can see): report the command
    # as killed, as `docker exec` would for a command killed by a signal, and start a new
    # agent for the next call.
    if not await asyncio.to_thread(container_running, container_id):
        raise ContainerLostError("the container is gone")
    logger.warning("looplab-docker: the command agent in %s ended during a command", name)
    message = b"looplab-docker: the command was killed (its sandbox agent ended)\n"
    return RawExecResult(137, b"", message, False, time.monotonic() - started)


def exec_by_docker(container_id: str, request: ExecRequest) -> RawExecResult:
    """The command run through the engine's exec API (blocking: call it in a thread)."""
    return run_exec(
        api_client(),
        container_id,
        request.argv,
        stdin=request.stdin,
        workdir=request.workdir,
        env=request.env,
        user=request.user,
        deadline_s=request.deadline_s,
        output_limit=request.output_limit,
    )


def is_engine_error(err: Exception) -> bool:
    import docker

    return isinstance(err, docker.errors.DockerException)
