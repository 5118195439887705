"""Host side of the model relay (`model_relay_server.py`): one attached stream per container.

The relay is started once per container that asks for it (`DockerSandboxConfig.model_relay`),
as root, before the container's reuse baseline, and lives as long as the container: a reused
container keeps it (reuse spares its process, see `docker_reuse`). While a sample runs, the
eval attaches a handler (`attach`) that receives each HTTP request the relay forwards and
answers it (`answer`); between samples nobody is attached and a request is answered 503.

Threads own the socket, as in `docker_agent.py`: a reader that hands requests to the handler
and replies to futures, and a writer fed from a queue, so answering never blocks an event loop.
"""

from __future__ import annotations

import itertools
import json
import logging
import queue
import socket
import threading
from collections.abc import Callable
from concurrent.futures import Future
from pathlib import Path
from typing import Any

from .docker_agent import AGENT_ARGV, attach_exec, boot_line, pump_stdout

logger = logging.getLogger(__name__)

RELAY_SOURCE = Path(__file__).with_name("model_relay_server.py")
RELAY_PORT = 13131
"""Where harnesses reach the model inside the container (the URLs of inspect's bridge)."""
_READY_TIMEOUT_S = 30
_MAX_LINE = 128 * 1024 * 1024  # a request with a long conversation, base64 at worst

Handler = Callable[[dict[str, Any]], None]
"""Receives one forwarded request (``id``, ``method``, ``path``, ``headers``, ``body``) on the
reader thread; it must not block (hand it to an event loop) and must ``answer`` it once."""


class RelayUnavailableError(RuntimeError):
    """The relay could not be started in the container (no python3, the port taken...)."""


class ModelRelay:
    """The relay process of one container."""

    def __init__(self, container_id: str) -> None:
        self.container_id = container_id
        self.pid = 0
        """The relay's pid inside the container (spared by the reuse reset)."""
        self.closed = False
        self._lock = threading.Lock()
        self._handler: Handler | None = None
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._ready: Future[dict[str, Any]] = Future()
        self._replies: dict[str, Future[dict[str, Any]]] = {}
        self._ids = itertools.count(1)
        self._stderr = bytearray()
        self._wrapped: Any = None
        self._sock: Any = None

    @classmethod
    def start(cls, api: Any, container_id: str, port: int = RELAY_PORT) -> ModelRelay:
        """Start the relay as root (blocking); raise RelayUnavailableError if it does not listen."""
        relay = cls(container_id)
        relay._wrapped, relay._sock = attach_exec(api, container_id, AGENT_ARGV, user="root")
        relay._send(boot_line(RELAY_SOURCE) + json.dumps({"port": port}).encode() + b"\n")
        for target, name in ((relay._read_loop, "reader"), (relay._write_loop, "writer")):
            threading.Thread(target=target, name=f"looplab-relay-{name}", daemon=True).start()
        try:
            ready = relay._ready.result(timeout=_READY_TIMEOUT_S)
            if not ready.get("ready"):
                raise RelayUnavailableError(str(ready.get("error")))
            relay.pid = int(ready["pid"])
        except Exception as err:
            detail = relay._stderr.decode("utf-8", "replace").strip()[-500:]
            relay.close()
            raise RelayUnavailableError(f"the model relay did not start in {container_id[:12]}: "
                                        f"{err} {detail}".strip()) from err
        return relay

    # --- the sample's side ------------------------------------------------------------------

    def attach(self, handler: Handler) -> None:
        """Send every request from now on to ``handler`` (one sample at a time)."""
        with self._lock:
            if self._handler is not None:
                raise RuntimeError(f"the model relay of {self.container_id[:12]} already serves a sample")
            self._handler = handler

    def detach(self) -> None:
        with self._lock:
            self._handler = None

    def answer(self, reply: dict[str, Any]) -> None:
        """Answer one forwarded request (``id`` and the answer's fields; see the relay)."""
        self._send(json.dumps(reply).encode("utf-8") + b"\n")

    def drop_connections(self, timeout_s: float = 10.0) -> int:
        """Reset every connection a harness holds to the relay and wait until it is done
        (blocking); → how many there were. Pending requests are answered with a reset."""
        request_id = f"drop-{next(self._ids)}"
        future: Future[dict[str, Any]] = Future()
        with self._lock:
            if self.closed:
                raise ConnectionError("the model relay's stream is closed")
            self._replies[request_id] = future
        self._send(json.dumps({"op": "drop", "id": request_id}).encode() + b"\n")
        return int(future.result(timeout=timeout_s).get("dropped", 0))

    def close(self) -> None:
        """End the stream: the relay sees EOF and exits."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
        self._outbox.put(None)
        self._fail_waiting(ConnectionError("the model relay's stream was closed"))

    # --- threads -----------------------------------------------------------------------------

    def _send(self, data: bytes) -> None:
        if not self.closed:
            self._outbox.put(data)

    def _write_loop(self) -> None:
        while (data := self._outbox.get()) is not None:
            try:
                self._sock.sendall(data)
            except OSError as err:
                self._ended(f"the model relay's stream failed: {err}")
                return
        try:
            self._sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass

    def _read_loop(self) -> None:
        reason = "the model relay's stream ended"
        try:
            pump_stdout(self._sock, self._dispatch, self._stderr)
        except (OSError, ValueError) as err:
            reason = f"the model relay's stream failed: {err}"
        finally:
            self._ended(reason)
            try:
                self._wrapped.close()
            except Exception:  # already closed by the engine or the client
                pass

    def _dispatch(self, buffer: bytearray) -> None:
        while (end := buffer.find(b"\n")) >= 0:
            message = json.loads(bytes(buffer[:end]))
            del buffer[: end + 1]
            if not isinstance(message, dict):
                raise ValueError("a line from the model relay was not an object")
            if "ready" in message:
                if not self._ready.done():
                    self._ready.set_result(message)
            elif "method" in message:
                self._request(message)
            else:
                with self._lock:
                    future = self._replies.pop(str(message.get("id")), None)
                if future is not None and not future.done():
                    future.set_result(message)
        if len(buffer) > _MAX_LINE:
            raise ValueError("a line from the model relay exceeded the line limit")

    def _request(self, message: dict[str, Any]) -> None:
        with self._lock:
            handler = self._handler
        try:
            if handler is not None:
                handler(message)
                return
        except Exception as err:  # a sample ending as the request came: refuse it, keep serving
            logger.info("model relay of %s: a request was not handed over: %s",
                        self.container_id[:12], err)
        body = {"error": {"message": "no sample is being served by this sandbox",
                          "type": "unavailable", "code": 503}}
        self.answer({"id": message["id"], "status": 503, "body": json.dumps(body),
                     "headers": [["Content-Type", "application/json"]]})

    def _ended(self, reason: str) -> None:
        with self._lock:
            self.closed = True
        self._outbox.put(None)
        if not self._ready.done():
            self._ready.set_exception(ConnectionError(reason))
        self._fail_waiting(ConnectionError(reason))

    def _fail_waiting(self, err: Exception) -> None:
        with self._lock:
            waiting, self._replies = list(self._replies.values()), {}
        for future in waiting:
            if not future.done():
                future.set_exception(err)
