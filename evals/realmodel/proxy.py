"""A fault-injecting HTTP proxy in front of any OpenAI-compatible server.

Every request is forwarded to the upstream (responses, streamed ones included, are piped back byte
for byte) unless the schedule says this call fails: then the proxy answers the fault itself (in the rule's
provider dialect, ``evals.wire_faults``), holds the request (``stall``), drops the connection
(``connection_reset``) or starts a streamed answer and cuts it (``stream_cut``). Calls are counted per (model name in
the body, bearer key); only requests naming a model count. Every request is logged as one JSON line
(the key only as a hash) and ``GET /looplab/proxy/log`` returns the log, so scorers can read what
the proxy saw. An entry is written once, whole, when the client is answered (before it sees any
of the answer) and never changed afterwards: whoever got an answer finds its entry complete. One request per connection (``Connection: close``): simple, and enough for clients.

    python -m evals.realmodel.proxy --upstream http://127.0.0.1:8000 --listen 127.0.0.1:8100 \\
        [--schedule FILE.yaml | --scenario ID --model SERVED_NAME] [--log FILE]
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import socket
import struct
import sys
import threading
import time
from collections import Counter
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from evals.realmodel.faults import FaultAnswer, fault_answer, retry_after_of, upstream_error
from evals.realmodel.schedule import ProxyRule, Schedule, from_scenario, key_id, load_schedule
from evals.wire_faults import cut_stream

LOG_PATH = "/looplab/proxy/log"
FaultHook = Callable[[dict[str, Any]], Awaitable[None]]
"""Told each fault the proxy plays, before the client sees any of it: the fault's wire record
(``kind``/``dialect``/``retry_after``/... for an HTTP fault, ``transport`` for the others), the
form the model relay plays to a harness in its container (``evals.harnesses.model_relay``)."""
_HOP_BY_HOP = {"connection", "keep-alive", "proxy-connection", "proxy-authorization", "te",
               "trailer", "upgrade", "host", "expect", "content-length", "transfer-encoding"}


@dataclass
class Request:
    method: str
    path: str
    headers: list[tuple[str, str]]
    body: bytes

    def header(self, name: str) -> str | None:
        return next((v for k, v in self.headers if k.lower() == name.lower()), None)

    def bearer(self) -> str | None:
        auth = self.header("authorization") or ""
        return auth[7:].strip() or None if auth.lower().startswith("bearer ") else None

    def json_body(self) -> dict[str, Any]:
        try:
            data = json.loads(self.body) if self.body else {}
        except ValueError:
            return {}
        return data if isinstance(data, dict) else {}


async def read_request(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> Request | None:
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
        return None
    lines = head.decode("latin-1").split("\r\n")
    method, path, _ = (lines[0].split(" ", 2) + ["", ""])[:3]
    headers = [(k.strip(), v.strip()) for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)]
    req = Request(method, path, headers, b"")
    if (req.header("expect") or "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")  # curl waits for it before large bodies
    if (req.header("transfer-encoding") or "").lower() == "chunked":
        req.body = await _read_chunked(reader)
    elif req.header("content-length"):
        req.body = await reader.readexactly(int(req.header("content-length") or 0))
    return req


async def _read_chunked(reader: asyncio.StreamReader) -> bytes:
    body = b""
    while True:
        size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
        if size == 0:
            await reader.readline()  # the blank line after the last chunk (no trailers sent)
            return body
        body += await reader.readexactly(size)
        await reader.readline()


class FaultProxy:
    """The proxy. ``start()`` binds 127.0.0.1 (port 0: any free port) and returns the port."""

    def __init__(self, upstream: str, schedule: Schedule | None = None,
                 log_file: Path | None = None, host: str = "127.0.0.1", port: int = 0,
                 on_fault: FaultHook | None = None) -> None:
        parts = urlsplit(upstream.rstrip("/"))
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError(f"--upstream {upstream!r}: expected http(s)://host[:port]")
        self.upstream = parts
        # The upstream is the server root: a trailing /v1 is dropped, clients send /v1/... paths.
        self.prefix = parts.path[:-3] if parts.path.endswith("/v1") else parts.path
        self.schedule = schedule or Schedule()
        self.log_file = log_file
        self.host, self.port = host, port
        self.entries: list[dict[str, Any]] = []
        self.counts: Counter[tuple[str, str | None]] = Counter()
        self._last_prompt: dict[tuple[str, str | None], str] = {}
        self._server: asyncio.base_events.Server | None = None
        self.on_fault = on_fault

    async def start(self) -> int:
        self._server = await asyncio.start_server(self._handle, self.host, self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self.port

    async def close(self) -> None:
        if self._server:
            self._server.close()
            await self._server.wait_closed()

    def _prefix_reuse(self, model: str, key: str | None, body: dict[str, Any]) -> float | None:
        """Share of the previous request (same model and key) that this one repeats as its
        prefix: tools then messages, as a chat template lays them out. A server's prefix cache
        can only reuse that much."""
        text = json.dumps([body.get("tools"), body.get("messages")], sort_keys=True)
        prev = self._last_prompt.get((model, key))
        self._last_prompt[(model, key)] = text
        if not prev:
            return None
        return round(len(os.path.commonprefix([prev, text])) / len(prev), 4)

    def _write_line(self, entry: dict[str, Any]) -> None:
        if self.log_file:
            with self.log_file.open("a") as f:
                f.write(json.dumps(entry) + "\n")

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            req = await read_request(reader, writer)
            if req is not None:
                await self._dispatch(req, reader, writer)
        except ConnectionError:
            pass
        finally:
            if not writer.is_closing():
                writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    async def _dispatch(self, req: Request, reader: asyncio.StreamReader,
                        writer: asyncio.StreamWriter) -> None:
        if req.method == "GET" and req.path.split("?")[0] == LOG_PATH:
            writer.write(FaultAnswer(200, {"entries": self.entries}).encode())
            await writer.drain()
            return
        started = time.monotonic()
        body = req.json_body()
        model = body.get("model") if isinstance(body.get("model"), str) else None
        key = req.bearer()
        entry: dict[str, Any] = {"ts": time.time(), "method": req.method, "path": req.path,
                                 "model": model, "key_id": key_id(key), "call": None, "status": None,
                                 "stream": bool(body.get("stream"))}
        rule = None
        if model is not None:
            entry["prefix_reuse"] = self._prefix_reuse(model, key, body)
            self.counts[(model, key)] += 1
            entry["call"] = self.counts[(model, key)]
            rule = self.schedule.match(model, key, entry["call"])
        listed = False

        def answered(**fields: Any) -> None:
            """Publish the entry, whole, before the client sees any of the answer: a client
            that got its answer finds the request in the log, and nothing in the entry changes
            afterwards (what happens to the answer's body is not part of it). ``latency_s`` is
            the time to the answer's head."""
            nonlocal listed
            if listed:
                return
            listed = True
            entry.update(fields, latency_s=round(time.monotonic() - started, 4))
            self.entries.append(entry)
            self._write_line(entry)

        entry["action"] = "forwarded" if rule is None else rule.kind
        if rule is not None and self.on_fault is not None:
            await self.on_fault(wire_record(rule, model or "model", _estimate_tokens(body)))
        try:
            if rule is None:
                await self._forward(req, writer, answered)
            elif rule.kind in ("reset", "connection_reset"):
                answered(status=None)
                _abort(writer)
            elif rule.kind == "stream_cut":
                answered(status=200)
                writer.write(cut_stream(model or "model"))
                await writer.drain()
                _abort(writer)
            elif rule.kind == "stall":
                await asyncio.sleep(rule.stall_s)
                if rule.after_stall == "forward":
                    await self._forward(req, writer, answered)
                else:
                    answered(status=None)
            else:
                answer = fault_answer(rule, model or "", _estimate_tokens(body))
                answered(status=answer.status)
                writer.write(answer.encode())
                await writer.drain()
        finally:
            if not listed:  # the client went away first (e.g. during a stall)
                answered(status=None, client_gone=True)

    async def _forward(self, req: Request, writer: asyncio.StreamWriter,
                       answered: Callable[..., None]) -> None:
        """Send the request upstream and pipe the answer back unchanged (chunked bodies stay
        chunked: the client decodes them, the proxy only copies bytes as they arrive)."""
        up = self.upstream
        port = up.port or (443 if up.scheme == "https" else 80)
        try:
            up_reader, up_writer = await asyncio.open_connection(
                up.hostname, port, ssl=up.scheme == "https" or None)
        except OSError as e:
            answer = upstream_error(str(e))
            answered(action="upstream_error", status=answer.status, error=str(e))
            writer.write(answer.encode())
            await writer.drain()
            return
        try:
            path = req.path if req.path.startswith(self.prefix + "/") else self.prefix + req.path
            headers = [f"{k}: {v}" for k, v in req.headers if k.lower() not in _HOP_BY_HOP]
            headers += [f"Host: {up.netloc}", f"Content-Length: {len(req.body)}", "Connection: close"]
            up_writer.write((f"{req.method} {path} HTTP/1.1\r\n" + "\r\n".join(headers)
                             + "\r\n\r\n").encode("latin-1") + req.body)
            await up_writer.drain()
            head = await up_reader.readuntil(b"\r\n\r\n")
            answered(status=int(head.split(b" ", 2)[1]))
            writer.write(_force_close(head))
            while chunk := await up_reader.read(65536):
                writer.write(chunk)
                await writer.drain()
        except (asyncio.IncompleteReadError, ConnectionError, ValueError, IndexError) as e:
            # Before the head: the client gets no answer (the connection closes) and the entry
            # says why; after it, the answer is cut short and the entry, already published,
            # stands as it was (the client saw the head it records).
            answered(error=f"upstream: {e!r}")
        finally:
            up_writer.close()
            with contextlib.suppress(ConnectionError, OSError):
                await up_writer.wait_closed()


def wire_record(rule: ProxyRule, model: str, prompt_tokens: int) -> dict[str, Any]:
    """What the proxy plays for ``rule``, as the wire relay's fault record (no ``message``: the
    hook's owner adds the text the relay matches)."""
    if rule.kind in ("reset", "connection_reset", "stream_cut", "stall"):
        return {"transport": "connection_reset" if rule.kind == "reset" else rule.kind}
    return {"kind": rule.kind, "dialect": rule.dialect, "model": model,
            "retry_after": retry_after_of(rule), "n_ctx": rule.max_context,
            "prompt_tokens": prompt_tokens, "status": rule.status}


def _force_close(head: bytes) -> bytes:
    lines = [ln for ln in head.split(b"\r\n") if ln and not ln.lower().startswith(b"connection:")]
    return b"\r\n".join([*lines, b"Connection: close"]) + b"\r\n\r\n"


def _abort(writer: asyncio.StreamWriter) -> None:
    """Close with a TCP RST (linger 0), as a crashed server or a dropped link does."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def _estimate_tokens(body: dict[str, Any]) -> int:
    """chars/4 of the messages, as the scripted actor counts: only used in the overflow message."""
    return len(json.dumps(body.get("messages") or body.get("prompt") or "")) // 4


async def _shutdown(proxy: FaultProxy) -> None:
    await proxy.close()
    # Stalled requests would otherwise outlive the loop.
    others = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for task in others:
        task.cancel()
    await asyncio.gather(*others, return_exceptions=True)


@contextlib.contextmanager
def running_proxy(upstream: str, schedule: Schedule | None = None,
                  log_file: Path | None = None, on_fault: FaultHook | None = None) -> Iterator[FaultProxy]:
    """Run a proxy on a free 127.0.0.1 port in a background thread (for tests and scorers that
    drive a synchronous client); ``proxy.port`` is set when the block starts."""
    proxy = FaultProxy(upstream, schedule, log_file, on_fault=on_fault)
    loop = asyncio.new_event_loop()
    ready = threading.Event()

    def run() -> None:
        asyncio.set_event_loop(loop)
        loop.run_until_complete(proxy.start())
        ready.set()
        loop.run_forever()

    thread = threading.Thread(target=run, name="fault-proxy", daemon=True)
    thread.start()
    if not ready.wait(10):
        raise RuntimeError("fault proxy did not start within 10 s")
    try:
        yield proxy
    finally:
        asyncio.run_coroutine_threadsafe(_shutdown(proxy), loop).result(10)
        loop.call_soon_threadsafe(loop.stop)
        thread.join(10)
        loop.close()


def _parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m evals.realmodel.proxy", description=__doc__.split("\n\n")[0])
    p.add_argument("--upstream", required=True, help="base URL of the OpenAI-compatible server")
    p.add_argument("--listen", default="127.0.0.1:8100", help="127.0.0.1:PORT (loopback only)")
    src = p.add_mutually_exclusive_group()
    src.add_argument("--schedule", type=Path, help="YAML file: rules: [{model, api_key, kind, ...}]")
    src.add_argument("--scenario", help="take the schedule from this scenario's faults")
    p.add_argument("--model", help="served model name that the scenario role 'primary' stands for")
    p.add_argument("--role", action="append", default=[], metavar="ROLE=NAME",
                   help="served model name for another scenario role (repeatable)")
    p.add_argument("--log", type=Path, help="append one JSON line per request to this file")
    return p.parse_args(argv)


def build_schedule(args: argparse.Namespace) -> Schedule:
    if args.schedule:
        return load_schedule(args.schedule)
    if not args.scenario:
        return Schedule()
    if not args.model:
        raise ValueError("--scenario needs --model (the served name of the 'primary' model)")
    roles = {}
    for item in args.role:
        role, sep, name = item.partition("=")
        if not sep or not role or not name:
            raise ValueError(f"--role {item!r}: expected ROLE=NAME")
        roles[role] = name
    return from_scenario(args.scenario, args.model, roles)


def main(argv: list[str] | None = None) -> int:
    args = _parse_args(argv)
    host, _, port = args.listen.rpartition(":")
    if host not in ("127.0.0.1", "localhost") or not port.isdigit():
        print(f"--listen {args.listen!r}: expected 127.0.0.1:PORT (the proxy listens on loopback only)",
              file=sys.stderr)
        return 2
    try:
        schedule = build_schedule(args)
        proxy = FaultProxy(args.upstream, schedule, args.log, "127.0.0.1", int(port))
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    for note in schedule.notes:
        print(f"note: {note}", file=sys.stderr)

    async def serve() -> None:
        bound = await proxy.start()
        print(f"fault proxy on http://127.0.0.1:{bound} -> {args.upstream} "
              f"({len(schedule.rules)} rules; log: {LOG_PATH})", flush=True)
        await asyncio.Event().wait()

    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(serve())
    return 0


if __name__ == "__main__":
    sys.exit(main())
