"""looplab's model relay, inside the sandbox container: the one HTTP endpoint a harness under test
talks to (127.0.0.1:13131: OpenAI Chat Completions and Responses, Anthropic Messages, Google
Gemini; the URLs harness specs use).

It knows no provider API. Each HTTP request becomes one JSON line on stdout, read by the eval
process over the attached stream of the `docker exec` that started this program
(`sandboxes/model_relay.py`); the eval answers with one JSON line on stdin, which the relay
writes back as HTTP: a JSON body, an event stream (chunked), or a transport fault (a reset
connection, a dropped one, a stream cut mid-way). Nothing polls and nothing is written to the
container's file system; a request costs two lines on a stream that is already open.

Started once per container, as root, before the container's reuse baseline is taken, and kept
across the samples the container serves. Standard library only (the image's own `python3` runs
it; the source travels as the first line on stdin, as the agent's loader's does), and then one
line of settings: `{"port": 13131}`.

Lines out:  {"ready": true, "pid", "port"} | {"id", "method", "path", "headers": [[k, v]...],
            "body" | "body_b64"} | {"id", "dropped": n} (answer to a drop)
Lines in:   {"id", "status", "reason"?, "headers": [[k, v]...], "body"} (a whole answer)
            {"id", "status", "headers", "chunks": [text...]} (chunked, e.g. server-sent events)
            {"id", "raw_b64"?, "then": "reset" | "close"} (a transport fault: bytes, then the
            connection is reset or closed without an answer)
            {"op": "drop", "id"} (the sample is over: reset every client connection)

Connections are closed so that no socket is left in TIME_WAIT, which would keep the container
from being reused: the relay never closes first; when a client has closed its side (or a drop
ends the sample), the relay's close is a reset (SO_LINGER 0), which leaves nothing behind on
either side.
"""

import asyncio
import base64
import json
import os
import socket
import struct
import sys
import threading

MAX_HEAD = 64 * 1024
MAX_BODY = 64 * 1024 * 1024
REASONS = {200: "OK", 400: "Bad Request", 401: "Unauthorized", 403: "Forbidden",
           404: "Not Found", 429: "Too Many Requests", 500: "Internal Server Error",
           502: "Bad Gateway", 503: "Service Unavailable", 529: "Site Overloaded"}
_OUT = threading.Lock()


def emit(message):
    data = json.dumps(message).encode() + b"\n"
    with _OUT:
        sys.stdout.buffer.write(data)
        sys.stdout.buffer.flush()


class Relay:
    def __init__(self, loop):
        self.loop = loop
        self.pending = {}  # request id -> future of the eval's answer
        self.connections = set()
        self.ids = 0

    # --- the eval's side -------------------------------------------------------------------

    def deliver(self, message):
        """An answer (or a drop) from the eval; runs on the event loop."""
        if message.get("op") == "drop":
            dropped = len(self.connections)
            for writer in list(self.connections):
                reset(writer)
            for future in self.pending.values():
                if not future.done():
                    future.set_result({"then": "reset"})
            self.pending.clear()
            emit({"id": message.get("id"), "dropped": dropped})
            return
        future = self.pending.pop(str(message.get("id")), None)
        if future is not None and not future.done():
            future.set_result(message)

    async def forward(self, method, path, headers, body):
        self.ids += 1
        request_id = str(self.ids)
        future = self.loop.create_future()
        self.pending[request_id] = future
        line = {"id": request_id, "method": method, "path": path, "headers": headers}
        try:
            line["body"] = body.decode("utf-8")
        except UnicodeDecodeError:
            line["body_b64"] = base64.b64encode(body).decode("ascii")
        emit(line)
        return await future

    # --- the harness's side -----------------------------------------------------------------

    async def serve(self, reader, writer):
        self.connections.add(writer)
        try:
            while True:
                request = await read_request(reader, writer)
                if request is None:
                    break  # the client closed its side: nothing more will come
                answer = await self.forward(*request)
                if not await write_answer(writer, answer):
                    return
        except (OSError, ValueError, asyncio.IncompleteReadError, asyncio.LimitOverrunError):
            pass
        finally:
            self.connections.discard(writer)
            reset(writer)


def reset(writer):
    """Close with a reset: neither side keeps a TIME_WAIT socket."""
    if writer.is_closing():
        return
    sock = writer.get_extra_info("socket")
    if sock is not None:
        try:
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        except OSError:
            pass
    try:
        writer.transport.abort()
    except RuntimeError:
        pass  # its event loop closed first (a connection's coroutine finalised at teardown): nothing to reset


async def read_request(reader, writer):
    """(method, path, headers, body) of the next request; None when the client closed."""
    try:
        head = await reader.readuntil(b"\r\n\r\n")
    except asyncio.IncompleteReadError:
        return None
    if len(head) > MAX_HEAD:
        raise ValueError("request head too large")
    lines = head.decode("latin-1").split("\r\n")
    method, path = (lines[0].split(" ") + ["", ""])[:2]
    headers = [[k.strip(), v.strip()] for k, _, v in (ln.partition(":") for ln in lines[1:] if ln)]
    fields = {k.lower(): v for k, v in headers}
    if fields.get("expect", "").lower() == "100-continue":
        writer.write(b"HTTP/1.1 100 Continue\r\n\r\n")
    if "chunked" in fields.get("transfer-encoding", "").lower():
        body = b""
        while True:
            size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while (await reader.readline()) not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                break
            body += await reader.readexactly(size)
            await reader.readline()
            if len(body) > MAX_BODY:
                raise ValueError("request body too large")
    else:
        length = int(fields.get("content-length") or 0)
        if length > MAX_BODY:
            raise ValueError("request body too large")
        body = await reader.readexactly(length) if length else b""
    return method, path, headers, body


def _head(status, reason, headers):
    lines = [f"HTTP/1.1 {status} {reason or REASONS.get(status, 'Error')}"]
    lines += [f"{k}: {v}" for k, v in headers]
    return ("\r\n".join(lines) + "\r\n\r\n").encode("latin-1")


async def write_answer(writer, answer):
    """Write the eval's answer; False when the connection is done with (reset or closed)."""
    then = answer.get("then")
    if answer.get("raw_b64"):
        writer.write(base64.b64decode(answer["raw_b64"]))
        await writer.drain()
    if then == "reset":
        reset(writer)
        return False
    if then == "close":  # the provider held the request and the link dropped: no answer
        writer.close()
        return False
    status = int(answer.get("status", 500))
    headers = [(k, v) for k, v in answer.get("headers", [])
               if k.lower() not in ("content-length", "transfer-encoding", "connection")]
    if "chunks" in answer:
        writer.write(_head(status, answer.get("reason"), headers + [
            ("Transfer-Encoding", "chunked"), ("Connection", "keep-alive")]))
        for chunk in answer["chunks"]:
            data = chunk.encode("utf-8")
            if data:
                writer.write(f"{len(data):X}\r\n".encode() + data + b"\r\n")
        writer.write(b"0\r\n\r\n")
    else:
        body = answer.get("body", "").encode("utf-8")
        writer.write(_head(status, answer.get("reason"), headers + [
            ("Content-Length", str(len(body))), ("Connection", "keep-alive")]) + body)
    await writer.drain()
    return True


def _read_stdin(relay):
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            continue
        if isinstance(message, dict):
            relay.loop.call_soon_threadsafe(relay.deliver, message)
    os._exit(0)  # the eval closed the stream: this container serves no sample any more


async def main(port):
    relay = Relay(asyncio.get_running_loop())
    try:
        server = await asyncio.start_server(relay.serve, "127.0.0.1", port, limit=MAX_HEAD)
    except OSError as err:
        emit({"ready": False, "error": f"cannot listen on 127.0.0.1:{port}: {err}"})
        return
    threading.Thread(target=_read_stdin, args=(relay,), daemon=True).start()
    emit({"ready": True, "pid": os.getpid(), "port": port})
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    settings = json.loads(sys.stdin.buffer.readline() or b"{}")
    asyncio.run(main(int(settings.get("port", 13131))))
