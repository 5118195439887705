"""A tiny OpenAI-compatible server on 127.0.0.1 for the client and CLI tests (stdlib only).

Answers ``POST /v1/chat/completions`` from a script of responders (one per request; when the
script is used up, a plain "done" answer), and ``POST /tokenize`` when ``tokenize`` is on.
Every request is recorded with its headers.
"""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

Reply = tuple[int, Any, dict[str, str]]
Responder = Callable[[dict[str, Any], dict[str, str]], Reply]


def completion(content: str | None = "done", tool_calls: list[tuple[str, str]] | None = None,
               prompt_tokens: int = 100, completion_tokens: int = 10, cached: int | None = None,
               reasoning: str | None = None) -> dict[str, Any]:
    """A chat completion; ``tool_calls`` are ``(name, raw JSON arguments)`` pairs."""
    message: dict[str, Any] = {"role": "assistant", "content": content}
    if reasoning is not None:
        message["reasoning_content"] = reasoning
    if tool_calls:
        message["tool_calls"] = [
            {"id": f"chatcmpl-tool-{i}", "type": "function",
             "function": {"name": name, "arguments": args}}
            for i, (name, args) in enumerate(tool_calls)
        ]
    usage: dict[str, Any] = {"prompt_tokens": prompt_tokens, "completion_tokens": completion_tokens,
                             "total_tokens": prompt_tokens + completion_tokens}
    if cached is not None:
        usage["prompt_tokens_details"] = {"cached_tokens": cached}
    return {"id": "chatcmpl-1", "object": "chat.completion", "model": "stub-model",
            "choices": [{"index": 0, "message": message,
                         "finish_reason": "tool_calls" if tool_calls else "stop"}],
            "usage": usage}


def ok(body: dict[str, Any]) -> Responder:
    return lambda payload, headers: (200, body, {})


def error(status: int, message: str, headers: dict[str, str] | None = None,
          type_: str = "error") -> Responder:
    body = {"error": {"message": message, "type": type_, "code": status}}
    return lambda payload, headers_: (status, body, headers or {})


class StubServer:
    def __init__(self) -> None:
        self.script: list[Responder] = []
        self.default: Responder = ok(completion())
        self.requests: list[tuple[str, dict[str, Any], dict[str, str]]] = []
        self.tokenize = False
        self.delay_s = 0.0
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                length = int(self.headers.get("Content-Length") or 0)
                payload = json.loads(self.rfile.read(length) or b"{}")
                headers = {k.lower(): v for k, v in self.headers.items()}
                stub.requests.append((self.path, payload, headers))
                if stub.delay_s:
                    time.sleep(stub.delay_s)
                if self.path == "/tokenize" and stub.tokenize:
                    n = sum(len(str(m.get("content") or "")) // 4 + 4 for m in payload["messages"])
                    self._send(200, {"count": n, "max_model_len": 4096}, {})
                elif self.path == "/v1/chat/completions":
                    responder = stub.script.pop(0) if stub.script else stub.default
                    self._send(*responder(payload, headers))
                else:
                    self._send(404, {"detail": "Not Found"}, {})

            def _send(self, status: int, body: Any, headers: dict[str, str]) -> None:
                data = (body if isinstance(body, str) else json.dumps(body)).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for k, v in headers.items():
                    self.send_header(k, v)
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def chat_requests(self) -> list[tuple[dict[str, Any], dict[str, str]]]:
        return [(p, h) for path, p, h in self.requests if path == "/v1/chat/completions"]

    def __enter__(self) -> StubServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
