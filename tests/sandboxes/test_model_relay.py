"""The model relay in a real container: a client inside reaches whoever is attached on the host
(answers whole, streamed, reset, dropped, on a kept-alive connection), nothing is answered
between samples but a 503, no socket is left in TIME_WAIT, and the container with its relay
serves the next sample (reuse spares the relay's process)."""

from __future__ import annotations

import asyncio
import base64
import json
import uuid
from typing import Any

import pytest

from sandboxes.config import DockerSandboxConfig
from sandboxes.docker_provider import LooplabDockerSandbox
from sandboxes.model_relay import ModelRelay

pytestmark = pytest.mark.docker

TASK = "relay"

# A stdlib client in the container: one line of JSON per request it makes.
CLIENT = r"""
import http.client, json, sys
def post(conn, path):
    try:
        conn.request("POST", path, json.dumps({"model": "inspect"}), {"Content-Type": "application/json"})
        r = conn.getresponse()
        return {"path": path, "status": r.status, "headers": {k.lower(): v for k, v in r.getheaders()},
                "body": r.read().decode()}
    except Exception as e:
        return {"path": path, "error": type(e).__name__}
kept = http.client.HTTPConnection("127.0.0.1", 13131, timeout=20)
for path in sys.argv[1:]:
    conn = kept if path.startswith("/keep") else http.client.HTTPConnection("127.0.0.1", 13131, timeout=20)
    print(json.dumps(post(conn, path)), flush=True)
    if conn is not kept:
        conn.close()
kept.close()
"""
TIME_WAIT = "awk 'NR > 1 && $4 == \"06\"' /proc/net/tcp /proc/net/tcp6 | wc -l"


def _answer(message: dict[str, Any]) -> dict[str, Any]:
    path = message["path"]
    if path.endswith("/stream"):
        return {"status": 200, "headers": [["Content-Type", "text/event-stream"]],
                "chunks": ["data: one\n\n", "data: two\n\n", "data: [DONE]\n\n"]}
    if path.endswith("/reset"):
        return {"then": "reset"}
    if path.endswith("/drop"):
        return {"then": "close"}
    if path.endswith("/cut"):
        raw = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"
        return {"raw_b64": base64.b64encode(raw).decode(), "then": "reset"}
    if path.endswith("/limited"):
        return {"status": 429, "headers": [["Retry-After", "3"]], "body": '{"error": "slow down"}'}
    return {"status": 200, "headers": [["Content-Type", "application/json"]],
            "body": json.dumps({"echo": path, "got": json.loads(message["body"])})}


def _config() -> DockerSandboxConfig:
    # A config of the test's own (memory differs): pools are per config within the process.
    return DockerSandboxConfig(warm=1, model_relay=True,
                               memory=f"{300 + uuid.uuid4().int % 600}m")


async def _client(sandbox: LooplabDockerSandbox, *paths: str) -> list[dict[str, Any]]:
    await sandbox.write_file("/tmp/client.py", CLIENT)
    out = await sandbox.exec(["python3", "/tmp/client.py", *paths], timeout=60)
    assert out.success, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_requests_reach_the_attached_handler_and_come_back_as_sent(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPLAB_SANDBOX_NAMESPACE", f"test-relay-{uuid.uuid4().hex[:8]}")
    config = _config()
    seen: list[dict[str, Any]] = []

    paths = ["/keep/a", "/keep/b", "/v1/stream", "/limited", "/reset", "/cut", "/keep/c"]

    async def run() -> tuple[list[Any], list[str], list[int], list[str]]:
        await LooplabDockerSandbox.task_init(TASK, config)
        results, ids, pids, waiting = [], [], [], []
        try:
            # The last sample also has a dropped link (a stall): the relay closes first there,
            # which leaves a TIME_WAIT socket, as a provider's dropped link would.
            for attach, extra in ((True, []), (False, []), (True, ["/drop"])):
                envs = await LooplabDockerSandbox.sample_init(TASK, config, {})
                sandbox = envs["default"]
                assert isinstance(sandbox, LooplabDockerSandbox)
                relay = sandbox.model_relay
                assert isinstance(relay, ModelRelay)
                ids.append(sandbox.container_id)
                pids.append(relay.pid)
                if attach:
                    relay.attach(lambda m, r=relay: (seen.append(m), r.answer({"id": m["id"], **_answer(m)})))
                try:
                    results.append(await _client(sandbox, *paths, *extra))
                finally:
                    relay.detach()
                    waiting.append((await sandbox.exec(["bash", "-c", TIME_WAIT])).stdout.strip())
                    await LooplabDockerSandbox.sample_cleanup(TASK, config, envs, False)
            return results, ids, pids, waiting
        finally:
            await LooplabDockerSandbox.task_cleanup(TASK, config, True)

    (first, idle, again), ids, pids, waiting = asyncio.run(run())
    by_path = {r["path"]: r for r in first}
    assert json.loads(by_path["/keep/a"]["body"]) == {"echo": "/keep/a", "got": {"model": "inspect"}}
    assert by_path["/keep/b"]["status"] == 200 and by_path["/keep/c"]["status"] == 200
    assert by_path["/v1/stream"]["body"] == "data: one\n\ndata: two\n\ndata: [DONE]\n\n"
    assert by_path["/v1/stream"]["headers"]["transfer-encoding"] == "chunked"
    assert by_path["/limited"]["status"] == 429 and by_path["/limited"]["headers"]["retry-after"] == "3"
    assert by_path["/reset"]["error"] in ("ConnectionResetError", "RemoteDisconnected")
    assert by_path["/cut"]["error"] in ("IncompleteRead", "ConnectionResetError")
    # one kept-alive connection carried /keep/a, /keep/b and /keep/c
    assert [m["path"] for m in seen if m["path"].startswith("/keep")][:3] == ["/keep/a", "/keep/b", "/keep/c"]
    # between samples (nobody attached) a request is refused, never served by a stale sample
    assert {r["status"] for r in idle if "status" in r} == {503}
    assert again[:-1] == first and again[-1] == {"path": "/drop", "error": "RemoteDisconnected"}
    # the same container and relay process served all three samples: no connection of the
    # first two left a socket in TIME_WAIT behind (it would have refused the reuse)
    assert len(set(ids)) == 1 and len(set(pids)) == 1
    assert waiting[:2] == ["0", "0"] and waiting[2] != "0"


def test_a_relay_that_cannot_listen_says_why(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LOOPLAB_SANDBOX_NAMESPACE", f"test-relay-{uuid.uuid4().hex[:8]}")
    from sandboxes.docker_engine import api_client, create_container, remove_container
    from sandboxes.model_relay import RelayUnavailableError

    container_id, _ = create_container(DockerSandboxConfig(), TASK)
    try:
        first = ModelRelay.start(api_client(), container_id)
        with pytest.raises(RelayUnavailableError, match="cannot listen on 127.0.0.1:13131"):
            ModelRelay.start(api_client(), container_id)
        assert first.drop_connections() == 0
        first.close()
    finally:
        remove_container(container_id)


def test_a_request_waits_for_its_answer_while_others_are_served(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Requests on separate connections are independent: a slow answer holds up no other."""
    monkeypatch.setenv("LOOPLAB_SANDBOX_NAMESPACE", f"test-relay-{uuid.uuid4().hex[:8]}")
    from sandboxes.docker_engine import api_client, create_container, remove_container

    container_id, _ = create_container(DockerSandboxConfig(), TASK)
    relay = ModelRelay.start(api_client(), container_id)
    held: list[dict[str, Any]] = []
    order: list[str] = []

    def handler(message: dict[str, Any]) -> None:
        if message["path"] == "/slow":
            held.append(message)
            return
        order.append(message["path"])
        relay.answer({"id": message["id"], **_answer(message)})
        if held:  # answer the slow one only after the fast one was served
            order.append("/slow")
            relay.answer({"id": held[0]["id"], **_answer(held[0])})

    relay.attach(handler)
    script = ("import threading, urllib.request, json\n"
              "out = {}\n"
              "def get(p):\n"
              "    r = urllib.request.urlopen(urllib.request.Request('http://127.0.0.1:13131' + p, b'{}'), timeout=20)\n"
              "    out[p] = r.status\n"
              "t = threading.Thread(target=get, args=('/slow',)); t.start()\n"
              "import time; time.sleep(0.5); get('/fast'); t.join(); print(json.dumps(out))\n")
    try:
        from sandboxes.docker_io import run_exec

        result = run_exec(api_client(), container_id, ["python3", "-c", script], stdin=None,
                          workdir="/", env=None, user=None, deadline_s=60, output_limit=1 << 20)
        assert result.returncode == 0, result.stderr
        assert json.loads(result.stdout) == {"/fast": 200, "/slow": 200}
        assert order == ["/fast", "/slow"]
    finally:
        relay.close()
        remove_container(container_id)
