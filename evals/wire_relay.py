"""A relay inside the sandbox, between a harness and inspect's model bridge, that puts provider
faults back on the wire as the provider sends them.

inspect's ``sandbox_agent_bridge`` (inspect_ai 0.3.285) answers a failed model call with the
exception's ``status_code`` and message in the requested API's own error envelope; for its two
OpenAI APIs it also merges an OpenAI-SDK exception's error object into that envelope. It sends no
response header of the provider (no ``Retry-After``), builds Anthropic and Google error bodies
from the status alone, and cannot drop a connection, stall or cut a stream.

So the scripted provider, when this relay runs (``evals.state.HarnessRun.wire_relay``), also
writes each fault's wire form (``evals.wire_faults``) into the container (``FAULT_DIR``), and the
relay, seeing the bridge's error answer, replaces it with that status, headers and body, or
resets the connection, or starts a stream and cuts it. Requests that do not fail pass through
byte for byte. A harness points its base URL at ``http://127.0.0.1:RELAY_PORT`` instead of the
bridge's port.

The relay half is standard library only (the container's ``python3`` runs this very file with
``wire_faults.py`` beside it); the host half (``start_wire_relay``, ``record_fault``) imports
inspect lazily.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import socket
import struct
import sys
import time
from pathlib import Path
from typing import Any

RELAY_PORT = 13132
BRIDGE_PORT = 13131
FAULT_DIR = "/var/tmp/looplab-wire"


# ---------------------------------------------------------------- relay (inside the container)

async def _read_message(reader: asyncio.StreamReader) -> tuple[bytes, bytes]:
    """One HTTP request or response head and its body (Content-Length or chunked, de-chunked)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    fields = {k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)}
    if "chunked" in fields.get("transfer-encoding", "").lower():
        body = b""
        while size := int((await reader.readline()).split(b";")[0].strip() or b"0", 16):
            body += await reader.readexactly(size)
            await reader.readline()
        await reader.readline()
        return head, body
    if "content-length" in fields:
        return head, await reader.readexactly(int(fields["content-length"]))
    return head, b""


def _request_bytes(head: bytes, body: bytes) -> bytes:
    lines = [ln for ln in head.decode("latin-1").split("\r\n") if ln]
    keep = [ln for ln in lines[1:] if ln.split(":")[0].strip().lower() not in
            ("content-length", "transfer-encoding", "connection", "expect")]
    out = [lines[0], *keep, f"Content-Length: {len(body)}", "Connection: close"]
    return ("\r\n".join(out) + "\r\n\r\n").encode("latin-1") + body


def take_fault(answer: bytes, fault_dir: str | None = None) -> dict[str, Any] | None:
    """The recorded fault this bridge answer carries (its message appears in it), oldest first;
    the record is used up."""
    text = answer.decode("utf-8", errors="replace")
    for path in sorted(Path(fault_dir or FAULT_DIR).glob("fault-*.json")):
        try:
            record = json.loads(path.read_text())
        except (OSError, ValueError):
            continue
        message = str(record.get("message", ""))
        if message and (message in text or json.dumps(message)[1:-1] in text):
            with contextlib.suppress(OSError):
                path.unlink()
            return record
    return None


def _is_error_answer(head: bytes, first: bytes) -> bool:
    status = int(head.split(b" ", 2)[1])
    # inspect's Anthropic stream reports a provider error as an ``error`` event after a 200
    return status >= 400 or b"event: error" in first


async def _open_bridge(port: int) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    deadline = time.monotonic() + 15
    while True:
        try:
            return await asyncio.open_connection("127.0.0.1", port)
        except OSError:
            if time.monotonic() > deadline:
                raise
            await asyncio.sleep(0.1)


async def _relay(reader: asyncio.StreamReader, writer: asyncio.StreamWriter, bridge_port: int) -> None:
    try:
        head, body = await _read_message(reader)
    except asyncio.IncompleteReadError:
        return  # a readiness probe: connected and went away
    up_reader, up_writer = await _open_bridge(bridge_port)
    try:
        up_writer.write(_request_bytes(head, body))
        await up_writer.drain()
        answer_head = await up_reader.readuntil(b"\r\n\r\n")
        first = await up_reader.read(65536)
        if _is_error_answer(answer_head, first):
            rest = await up_reader.read()
            record = take_fault(first + rest)
            if record is not None:
                path = head.split(b" ", 2)[1].decode("latin-1")
                await _play(record, api_dialect(path, record.get("dialect", "openai")), writer)
                return
            first += rest
        writer.write(answer_head + first)
        while chunk := await up_reader.read(65536):
            writer.write(chunk)
            await writer.drain()
        await writer.drain()
    finally:
        up_writer.close()


def api_dialect(path: str, dialect: str) -> str:
    """The dialect to answer in: the scenario's, unless the harness speaks another provider's
    API (an Anthropic Messages client always gets Anthropic's format, a Gemini client Google's)."""
    if path.split("?")[0].rstrip("/").endswith("/messages"):
        return "anthropic"
    if ":generateContent" in path or ":streamGenerateContent" in path:
        return "google"
    return dialect if dialect in ("openai", "azure", "vllm", "llamacpp") else "openai"


async def _play(record: dict[str, Any], dialect: str, writer: asyncio.StreamWriter) -> None:
    """Answer as the provider would have: its HTTP error, or the transport fault."""
    try:
        from wire_faults import cut_stream, wire_fault  # beside this file in the container
    except ImportError:
        from evals.wire_faults import cut_stream, wire_fault  # run from the package (the host)

    transport = record.get("transport")
    if transport is None:
        wire = wire_fault(record["kind"], dialect, model=record.get("model") or "model",
                          retry_after=record.get("retry_after"), n_ctx=record.get("n_ctx") or 16_384,
                          prompt_tokens=record.get("prompt_tokens"), status=record.get("status"))
        writer.write(wire.encode())
        await writer.drain()
        return
    if transport == "stream_cut":
        writer.write(cut_stream())
        await writer.drain()
    if transport in ("connection_reset", "stream_cut"):
        sock = writer.get_extra_info("socket")
        if sock is not None:
            with contextlib.suppress(OSError):  # linger 0: the close is a TCP RST
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        writer.transport.abort()
    # ``stall``: the provider already held the request; the link drops without an answer


async def serve(port: int = RELAY_PORT, bridge_port: int = BRIDGE_PORT) -> None:
    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            await _relay(reader, writer, bridge_port)
        except (OSError, asyncio.IncompleteReadError, ValueError, IndexError) as e:
            print(f"wire relay: {e!r}", file=sys.stderr, flush=True)
        finally:
            if not writer.is_closing():
                writer.close()

    os.makedirs(FAULT_DIR, exist_ok=True)
    server = await asyncio.start_server(handle, "127.0.0.1", port)
    async with server:
        await server.serve_forever()


# ---------------------------------------------------------------- host side (the eval process)

async def start_wire_relay(port: int = RELAY_PORT, bridge_port: int = BRIDGE_PORT) -> str:
    """Copy the relay into the sample's sandbox, start it, wait until it listens, and tell the
    scripted provider to record faults for it. Returns the base URL a harness should use
    (``/v1`` appended by the caller where its client wants it)."""
    from inspect_ai.util import sandbox, store_as  # the host half (see the module's docstring)

    from evals.state import HarnessRun  # inspect's, so the host half's too

    here = Path(__file__).parent
    box = sandbox()
    # Root's, in a directory only root writes: the harness under test (user `agent`) can
    # neither stop the relay nor plant the fault records it plays.
    for name in ("wire_relay.py", "wire_faults.py"):
        await _write_as_root(f"{FAULT_DIR}/{name}", (here / name).read_text())
    await box.exec(["sh", "-c", f"cd {FAULT_DIR} && nohup python3 wire_relay.py {port} "
                    f"{bridge_port} > relay.log 2>&1 &"], timeout=30, user="root")
    probe = ("import socket,time\nfor _ in range(100):\n    try:\n        socket.create_connection("
             f"('127.0.0.1', {port}), 1).close(); break\n    except OSError: time.sleep(0.1)\n"
             "else: raise SystemExit(1)")
    ready = await box.exec(["python3", "-c", probe], timeout=30)
    if not ready.success:
        log = await box.exec(["cat", f"{FAULT_DIR}/relay.log"])
        raise RuntimeError(f"wire relay did not start in the sandbox: {log.stdout[-2000:]}")
    store_as(HarnessRun).wire_relay = True
    return f"http://127.0.0.1:{port}"


async def record_fault(record: dict[str, Any]) -> None:
    """Leave one fault's wire form where the relay looks for it (called by the provider)."""
    await _write_as_root(f"{FAULT_DIR}/fault-{time.time_ns()}.json", json.dumps(record))


async def _write_as_root(path: str, text: str) -> None:
    """A root-owned file in a root-owned directory (``write_file`` writes as the sandbox's
    default user, the harness's)."""
    from inspect_ai.util import sandbox  # the host half (see the module's docstring)

    parent = os.path.dirname(path)
    res = await sandbox().exec(
        ["sh", "-c", 'mkdir -p "$1" && chmod 0755 "$1" && cat > "$2.tmp" && mv -f "$2.tmp" "$2"',
         "write", parent, path], input=text, user="root", timeout=30)
    if not res.success:
        raise RuntimeError(f"could not write {path} in the sandbox: {res.stderr[-300:]}")


if __name__ == "__main__":
    args = [int(a) for a in sys.argv[1:3]]
    asyncio.run(serve(*args))
