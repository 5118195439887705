"""A real local HTTP server that answers like an OpenAI-compatible one (chat completions,
streamed or not, ``/health``, ``/v1/models``, and vLLM-style prefix-cache counters on
``/metrics`` that move with each request). Used as the upstream of the fault proxy in tests."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

MODELS = ("m1", "m1-fallback")


class Upstream(BaseHTTPRequestHandler):
    """Answers chat completions; records what it received in ``server.seen``. With
    ``server.gate`` (a ``threading.Event``) set to an event, a streamed answer waits on it before
    its last event, so a test can look at the proxy while the answer is still streaming."""

    def log_message(self, *args: object) -> None:
        pass

    def _send(self, status: int, payload: bytes, ctype: str = "application/json") -> None:
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)

    def do_GET(self) -> None:
        if self.path == "/health":
            self._send(200, b"")
        elif self.path == "/v1/models":
            self._send(200, json.dumps({"data": [{"id": m} for m in MODELS]}).encode())
        elif self.path == "/metrics":
            q, h = self.server.counters  # type: ignore[attr-defined]
            text = (f'vllm:prefix_cache_queries_total{{model_name="m1"}} {q}\n'
                    f'vllm:prefix_cache_hits_total{{model_name="m1"}} {h}\n')
            self._send(200, text.encode(), "text/plain")
        else:
            self._send(404, b"{}")

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)) or b"{}")
        self.server.seen.append({"path": self.path, "body": body,  # type: ignore[attr-defined]
                                 "auth": self.headers.get("Authorization")})
        if self.path == "/reset_prefix_cache":
            self._send(200, b"{}")
            return
        q, h = self.server.counters  # type: ignore[attr-defined]
        self.server.counters = (q + 10, h + 4)  # type: ignore[attr-defined]
        if body.get("stream"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Transfer-Encoding", "chunked")
            self.end_headers()
            for piece in ("Hel", "lo", None):
                if piece is None and self.server.gate is not None:  # type: ignore[attr-defined]
                    self.server.gate.wait(60)  # type: ignore[attr-defined]
                data = ({"choices": [{"index": 0, "delta": {"content": piece}}]}
                        if piece else "[DONE]")
                event = f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n".encode()
                self.wfile.write(b"%x\r\n%s\r\n" % (len(event), event))
                self.wfile.flush()
            self.wfile.write(b"0\r\n\r\n")
            return
        reply = {"id": "cmpl-1", "object": "chat.completion", "model": body.get("model"),
                 "choices": [{"index": 0, "finish_reason": "stop",
                              "message": {"role": "assistant", "content": "pong"}}],
                 "usage": {"prompt_tokens": 7, "completion_tokens": 1, "total_tokens": 8,
                           "prompt_tokens_details": {"cached_tokens": 4}}}
        self._send(200, json.dumps(reply).encode())


@pytest.fixture
def upstream() -> Iterator[ThreadingHTTPServer]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
    server.seen = []  # type: ignore[attr-defined]
    server.counters = (0, 0)  # type: ignore[attr-defined]
    server.gate = None  # type: ignore[attr-defined]
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield server
    server.shutdown()
    server.server_close()


def url(server: ThreadingHTTPServer) -> str:
    return f"http://127.0.0.1:{server.server_address[1]}"
