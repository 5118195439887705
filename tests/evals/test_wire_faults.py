"""Provider faults on the wire: each dialect's answer, classified by the harness's own classifier
from what a client sees, and the wire relay that puts headers back behind inspect's bridge."""

from __future__ import annotations

import asyncio
import http.client
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from evals import wire_relay
from evals.adapter import classify_error
from evals.scripted_provider import ScriptedConnectionError, ScriptedFault
from evals.wire_faults import DIALECTS, HTTP_KINDS, TRANSPORT_KINDS, wire_fault


@pytest.mark.parametrize("dialect", DIALECTS)
@pytest.mark.parametrize("kind", HTTP_KINDS)
def test_each_dialect_fault_is_classified_from_the_wire_alone(dialect: str, kind: str) -> None:
    fault = ScriptedFault(wire_fault(kind, dialect, model="m", retry_after=2, n_ctx=1000), "m")
    assert not hasattr(fault, "looplab_kind")
    err = classify_error(fault, "m")
    assert err.kind == kind, f"{dialect}/{kind}: {err.kind} ({err.reason})"
    assert err.status == fault.status_code
    if kind == "rate_limit":
        assert err.retry_after == 2.0


def test_retry_hints_travel_as_each_provider_sends_them() -> None:
    assert wire_fault("rate_limit", "openai", retry_after=1.5).headers["retry-after-ms"] == "1500"
    assert "x-ms-retry-after-ms" in wire_fault("rate_limit", "azure", retry_after=3).headers
    anthropic = wire_fault("overloaded", "anthropic", retry_after=3)
    assert anthropic.status == 529 and anthropic.headers["retry-after"] == "3"
    google = wire_fault("rate_limit", "google", retry_after=13)
    assert google.headers == {}
    assert google.body["error"]["details"][-1] == {
        "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "13s"}
    assert wire_fault("rate_limit", "openai").headers == {}  # no hint unless the scenario says


def test_context_overflow_names_the_window_in_each_dialect() -> None:
    for dialect in DIALECTS:
        text = json.dumps(wire_fault("context_overflow", dialect, n_ctx=4096, prompt_tokens=5000).body)
        assert "4096" in text and "5000" in text, dialect


def test_bad_names_are_refused() -> None:
    with pytest.raises(ValueError, match="provider dialect 'bedrock'"):
        wire_fault("rate_limit", "bedrock")
    with pytest.raises(ValueError, match="fault kind 'stall' has no HTTP answer"):
        wire_fault("stall")


@pytest.mark.parametrize("kind", TRANSPORT_KINDS)
def test_transport_faults_are_timeouts_with_their_reason(kind: str) -> None:
    err = classify_error(ScriptedConnectionError(kind), "m")
    assert err.kind == "timeout" and err.status is None and err.reason == kind


def test_a_non_provider_exception_is_other() -> None:
    assert classify_error(RuntimeError("no scenario is active"), "m").kind == "other"


# ------------------------------------------------------------------ the relay, on this machine

class _Bridge(BaseHTTPRequestHandler):
    """Answers as inspect's bridge does: status and message in an OpenAI envelope, no headers."""

    message = ""

    def do_POST(self) -> None:  # noqa: N802
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path.endswith("/ok"):
            payload, status = {"choices": []}, 200
        else:
            payload = {"error": {"message": self.message, "type": "invalid_request_error"}}
            status = 429
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def relay(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(wire_relay, "FAULT_DIR", str(tmp_path))
    bridge = ThreadingHTTPServer(("127.0.0.1", 0), _Bridge)
    threading.Thread(target=bridge.serve_forever, daemon=True).start()
    loop = asyncio.new_event_loop()
    ready = threading.Event()
    port: list[int] = []

    async def start() -> None:
        async def handle(r: asyncio.StreamReader, w: asyncio.StreamWriter) -> None:
            try:
                await wire_relay._relay(r, w, bridge.server_address[1])
            finally:
                if not w.is_closing():
                    w.close()
        server = await asyncio.start_server(handle, "127.0.0.1", 0)
        port.append(server.sockets[0].getsockname()[1])
        ready.set()

    threading.Thread(target=lambda: (loop.run_until_complete(start()), loop.run_forever()),
                     daemon=True).start()
    ready.wait(10)
    yield port[0], tmp_path
    loop.call_soon_threadsafe(loop.stop)
    bridge.shutdown()


def _post(port: int, path: str) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    conn.request("POST", path, json.dumps({"model": "inspect"}), {"Content-Type": "application/json"})
    return conn.getresponse()


def _record(where: Path, **record: object) -> None:
    (where / "fault-1.json").write_text(json.dumps(record))


def test_relay_answers_the_recorded_fault_in_the_clients_api(relay) -> None:
    port, where = relay
    wire = wire_fault("rate_limit", "openai", model="m", retry_after=4)
    _Bridge.message = wire.message()
    _record(where, kind="rate_limit", dialect="openai", model="m", retry_after=4,
            message=wire.message())
    resp = _post(port, "/v1/chat/completions")
    assert resp.status == 429 and resp.getheader("Retry-After") == "4"
    assert json.loads(resp.read())["error"]["code"] == "rate_limit_exceeded"
    assert not list(where.glob("fault-*.json"))  # used up
    _record(where, kind="rate_limit", dialect="openai", model="m", retry_after=4,
            message=wire.message())
    resp = _post(port, "/v1/messages")  # an Anthropic client gets Anthropic's format
    assert resp.status == 429
    assert json.loads(resp.read())["error"]["type"] == "rate_limit_error"


def test_relay_passes_answers_without_a_record(relay) -> None:
    port, _ = relay
    assert _post(port, "/v1/ok").status == 200
    _Bridge.message = "some other failure"
    resp = _post(port, "/v1/chat/completions")
    assert resp.status == 429 and resp.getheader("Retry-After") is None


def test_relay_resets_the_connection_for_a_transport_fault(relay) -> None:
    port, where = relay
    _Bridge.message = "[Errno 104] Connection reset by peer"
    _record(where, transport="connection_reset", message=_Bridge.message)
    with pytest.raises((ConnectionError, http.client.RemoteDisconnected)):
        _post(port, "/v1/chat/completions").read()
