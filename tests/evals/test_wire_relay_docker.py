"""A client inside a real container, behind inspect's sandbox bridge, sees a scripted provider
fault as the provider sends it: HTTP 429, ``Retry-After`` and OpenAI's error body (through the
wire relay); straight from the bridge it gets the status and the message but no retry header."""

from __future__ import annotations

import json
from importlib.metadata import version
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.dataset import Sample
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.util import SandboxEnvironmentSpec, sandbox

from evals.wire_relay import BRIDGE_PORT, RELAY_PORT, start_wire_relay

pytestmark = pytest.mark.docker

# A raw urllib client (the sandbox image has no openai package): four chat completions; the
# scenario answers calls 2 and 3 with a 429 (Retry-After 1 s).
CLIENT = r"""
import json, socket, sys, time, urllib.error, urllib.request
for _ in range(150):
    try:
        socket.create_connection(("127.0.0.1", BRIDGE), 1).close(); break
    except OSError: time.sleep(0.1)
def call(port):
    body = {"model": "inspect", "messages": [{"role": "user", "content": "Write the report."}]}
    req = urllib.request.Request(f"http://127.0.0.1:{port}/v1/chat/completions",
                                 json.dumps(body).encode(), {"Content-Type": "application/json"})
    try:
        r = urllib.request.urlopen(req, timeout=60)
        return {"status": r.status, "headers": dict(r.headers), "body": json.loads(r.read())}
    except urllib.error.HTTPError as e:
        return {"status": e.code, "headers": {k.lower(): v for k, v in e.headers.items()},
                "body": json.loads(e.read())}
for port in (RELAY, BRIDGE, RELAY, RELAY):
    print(json.dumps({"port": port, **call(port)}), flush=True)
"""


def _bridge_ready() -> str | None:
    """inspect's bridge refuses OpenAI-API requests with openai < 3.4 installed on the host."""
    major, minor = (int(x) for x in version("openai").split(".")[:2])
    return None if (major, minor) >= (3, 4) else f"openai {version('openai')} < 3.4 (inspect's bridge needs it)"


def _run_client() -> list[dict[str, Any]]:
    from inspect_ai.agent import sandbox_agent_bridge

    from sandboxes.docker_provider import DockerSandboxConfig

    seen: list[dict[str, Any]] = []

    @solver
    def client() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            async with sandbox_agent_bridge():
                await start_wire_relay()
                script = CLIENT.replace("BRIDGE", str(BRIDGE_PORT)).replace("RELAY", str(RELAY_PORT))
                await sandbox().write_file("/tmp/client.py", script)
                out = await sandbox().exec(["python3", "/tmp/client.py"], timeout=240)
                assert out.success, out.stderr
                seen.extend(json.loads(line) for line in out.stdout.splitlines() if line.strip())
            return state
        return solve

    task = Task(dataset=[Sample(input="probe")], solver=client(),
                sandbox=SandboxEnvironmentSpec("looplab-docker", DockerSandboxConfig()))
    [log] = inspect_eval(task, model="scripted/provider-rate-limit-backoff", display="none",
                         log_dir="logs/tests-wire-relay")
    assert log.status == "success", log.error
    return seen


def test_in_container_client_sees_429_with_retry_after() -> None:
    if (why := _bridge_ready()) is not None:
        pytest.skip(why)
    first, direct, relayed, last = _run_client()
    assert first["status"] == 200 and last["status"] == 200
    # Straight from inspect's bridge: the status and the provider's message, no retry header.
    assert direct["status"] == 429
    assert "Rate limit reached" in direct["body"]["error"]["message"]
    # Through the relay: what OpenAI sends, headers included.
    assert relayed["status"] == 429
    assert relayed["headers"]["retry-after"] == "1"
    assert relayed["headers"]["retry-after-ms"] == "1000"
    error = relayed["body"]["error"]
    assert error["code"] == "rate_limit_exceeded" and error["type"] == "requests"
    assert "Please try again in 1s" in error["message"]
