"""Host side of the in-container command agent (`agent/`): one stream per container.

A `docker exec` costs a runc process start and several engine round trips (~0.1 s idle, ~0.25 s
and more with a few samples at once on two cores); a line over an open stream costs a write. So
each container gets one agent, started with one `docker exec`, and every command and file
operation of the sample is a request on its attached stdin, answered on its stdout.

Threads, not the event loop, own the socket: a reader that dispatches replies to futures and a
writer fed from a queue, so no caller ever blocks its loop and any loop (or none) can wait on a
reply. Replies are untrusted bytes from inside the sandbox: lines are bounded and malformed
ones end the channel. Everything blocking here runs in those threads or in a worker thread.
"""

from __future__ import annotations

import asyncio
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

from .docker_io import _STDOUT, take_frames

logger = logging.getLogger(__name__)

AGENT_PACKAGE = Path(__file__).with_name("agent")
"""The agent's modules (stdlib only): sent over stdin, not baked into the image."""
AGENT_LOADER = AGENT_PACKAGE / "loader.py"
# The source travels as the first line on stdin, so `ps` in the sandbox shows a short command.
_BOOT = (
    "import json,sys;"
    "exec(compile(json.loads(sys.stdin.buffer.readline()),'looplab-sandbox-agent','exec'))"
)
AGENT_ARGV = ["python3", "-I", "-c", _BOOT]
_MAX_LINE = 64 * 1024 * 1024  # > inspect's largest exec output (2 × 10 MiB) in base64
_READY_TIMEOUT_S = 30
_INLINE_MAX = 16 * 1024


def attach_exec(api: Any, container_id: str, argv: list[str],
                user: str | None = None) -> tuple[Any, Any]:
    """Start ``argv`` in the container with stdin and stdout attached (blocking); → (the SDK's
    socket wrapper, the raw socket). Replies may be minutes apart: the socket has no timeout."""
    kwargs = {"user": user} if user else {}
    exec_id = api.exec_create(container_id, argv, stdin=True, workdir="/", **kwargs)["Id"]
    wrapped = api.exec_start(exec_id, socket=True)
    sock = getattr(wrapped, "_sock", wrapped)
    sock.settimeout(None)
    return wrapped, sock


def pump_stdout(sock: Any, on_stdout: Callable[[bytearray], None], stderr: bytearray) -> None:
    """Read an attached exec's multiplexed stream until it ends: its stdout is appended to one
    buffer, handed to ``on_stdout`` after each frame (it takes the complete lines off the
    front); the last 4 KiB of its stderr are kept in ``stderr``. Raises OSError, or whatever
    ``on_stdout`` raises for a bad line (ValueError)."""
    frames, line = bytearray(), bytearray()
    while chunk := sock.recv(65536):
        frames += chunk
        for stream, payload in take_frames(frames):
            if stream == _STDOUT:
                line += payload
                on_stdout(line)
            else:
                stderr += payload
                del stderr[:-4096]


def boot_line(source: Path) -> bytes:
    """The first line ``AGENT_ARGV``'s interpreter reads: a stdlib program's source."""
    return json.dumps(source.read_text(encoding="utf-8")).encode("utf-8") + b"\n"


def agent_boot_lines() -> bytes:
    """What the agent's interpreter reads first: the loader's source (``boot_line``), then the
    agent's other modules as one JSON object {module name: source}, which the loader installs
    as a package and runs."""
    sources = {path.stem: path.read_text(encoding="utf-8")
               for path in sorted(AGENT_PACKAGE.glob("*.py")) if path != AGENT_LOADER}
    return boot_line(AGENT_LOADER) + json.dumps(sources).encode("utf-8") + b"\n"


class ChannelClosedError(ConnectionError):
    """The agent's stream ended (agent killed, container stopped or removed) before a reply."""


class AgentUnavailableError(RuntimeError):
    """The agent could not be started in this container (for example: no python3 in the image)."""


class AgentChannel:
    """A running agent in one container; `request` returns a future of the reply dict."""

    def __init__(self, api: Any, container_id: str) -> None:
        self.container_id = container_id
        self._api = api
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._pending: dict[str, Future[dict[str, Any]]] = {}
        self._ready: Future[dict[str, Any]] = Future()
        self._outbox: queue.SimpleQueue[bytes | None] = queue.SimpleQueue()
        self._send_lock = threading.Lock()  # one sender on the socket at a time
        self._queued = 0  # messages handed to the writer thread and not sent yet
        self._stderr = bytearray()
        self.users: frozenset[str] = frozenset()
        """Names the agent's own user goes by (uid, and name if it has one)."""
        self.closed = False
        self._wrapped: Any = None
        self._sock: Any = None

    # --- start and stop ----------------------------------------------------------------------

    @classmethod
    def start(cls, api: Any, container_id: str) -> AgentChannel:
        """Start the agent (blocking); raise AgentUnavailableError if it does not come up."""
        channel = cls(api, container_id)
        channel._wrapped, channel._sock = attach_exec(api, container_id, AGENT_ARGV)
        channel._queue(agent_boot_lines())
        for target, name in ((channel._read_loop, "reader"), (channel._write_loop, "writer")):
            threading.Thread(target=target, name=f"looplab-agent-{name}", daemon=True).start()
        try:
            ready = channel._ready.result(timeout=_READY_TIMEOUT_S)
            channel.users = frozenset(str(ready[k]) for k in ("uid", "user") if ready.get(k) is not None)
        except Exception as err:
            detail = channel._stderr.decode("utf-8", "replace").strip()[-500:]
            channel.close()
            raise AgentUnavailableError(f"{err} {detail}".strip()) from err
        return channel

    def close(self) -> None:
        """End the stream: the agent sees EOF, kills what still runs and exits."""
        with self._lock:
            if self.closed:
                return
            self.closed = True
        self._queue(None)
        self._fail_pending(ChannelClosedError("the sandbox command channel was closed"))

    # --- requests ------------------------------------------------------------------------------

    def request(self, op: str, **fields: Any) -> tuple[str, Future[dict[str, Any]]]:
        """Send one request; return its id and the future of its reply."""
        future: Future[dict[str, Any]] = Future()
        request_id = str(next(self._ids))
        line = json.dumps({"id": request_id, "op": op, **fields}).encode("utf-8") + b"\n"
        with self._lock:
            if self.closed:
                raise ChannelClosedError("the sandbox command channel is closed")
            self._pending[request_id] = future
        self._send(line)
        return request_id, future

    def kill(self, request_id: str) -> None:
        """Kill the process group of a running exec (its reply then arrives, or never matters)."""
        with self._lock:
            self._pending.pop(request_id, None)
            if self.closed:
                return
        self._send(json.dumps({"op": "kill", "target": request_id}).encode() + b"\n")

    def _send(self, data: bytes) -> None:
        # Small messages go out at once from the caller's thread: the socket and the pipe behind
        # it buffer far more than one, so this does not block, and it spares waking the writer
        # thread (a GIL hand-off that costs the event loop more than the send). Big ones, or any
        # while the writer has a backlog, go through the writer so the caller never waits.
        if len(data) <= _INLINE_MAX and self._send_lock.acquire(blocking=False):
            try:
                if self._queued == 0:
                    try:
                        self._sock.sendall(data)
                    except OSError as err:
                        self._closed_by(ChannelClosedError(f"the sandbox command channel "
                                                           f"failed: {err}"))
                    return
            finally:
                self._send_lock.release()
        self._queue(data)

    def _queue(self, data: bytes | None) -> None:
        with self._lock:
            self._queued += 1
        self._outbox.put(data)

    # --- threads -------------------------------------------------------------------------------

    def _write_loop(self) -> None:
        while True:
            data = self._outbox.get()
            try:
                with self._send_lock:
                    if data is None:
                        self._shutdown_write()
                        return
                    self._sock.sendall(data)
            except OSError as err:
                self._closed_by(ChannelClosedError(f"the sandbox command channel failed: {err}"))
                return
            finally:
                with self._lock:
                    self._queued -= 1

    def _shutdown_write(self) -> None:
        try:
            if hasattr(self._sock, "shutdown_write"):  # paramiko channel (ssh:// DOCKER_HOST)
                self._sock.shutdown_write()
            else:
                self._sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        # The reader ends when the engine closes the stream after the agent has exited.

    def _read_loop(self) -> None:
        reason = "the sandbox command channel ended"
        try:
            pump_stdout(self._sock, self._dispatch_lines, self._stderr)
        except (OSError, ValueError) as err:
            reason = f"the sandbox command channel failed: {err}"
        finally:
            self._closed_by(ChannelClosedError(reason))
            try:
                self._wrapped.close()
            except Exception:  # already closed by the engine or the client
                pass

    def _dispatch_lines(self, buffer: bytearray) -> None:
        while True:
            end = buffer.find(b"\n")
            if end < 0:
                if len(buffer) > _MAX_LINE:
                    raise ValueError("a reply from the sandbox agent exceeded the line limit")
                return
            raw = bytes(buffer[:end])
            del buffer[: end + 1]
            message = json.loads(raw)
            if not isinstance(message, dict):
                raise ValueError("a reply from the sandbox agent was not an object")
            if message.get("ready"):
                if not self._ready.done():
                    self._ready.set_result(message)
                continue
            with self._lock:
                future = self._pending.pop(str(message.get("id")), None)
            if future is not None and not future.done():
                future.set_result(message)

    def _closed_by(self, err: Exception) -> None:
        with self._lock:
            self.closed = True
        self._queue(None)
        if not self._ready.done():
            self._ready.set_exception(err)
        self._fail_pending(err)

    def _fail_pending(self, err: Exception) -> None:
        with self._lock:
            pending, self._pending = list(self._pending.values()), {}
        for future in pending:
            if not future.done():
                future.set_exception(err)


class AgentHandle:
    """The agent of one container: started on first use, started again if it died while the
    container lives (a command may kill it), and given up on (None: use `docker exec`) when it
    cannot start, e.g. in an image without python3."""

    _MAX_STARTS = 4

    def __init__(self, api: Any, container_id: str) -> None:
        self._api = api
        self.container_id = container_id
        self._lock = threading.Lock()
        self._channel: AgentChannel | None = None
        self._starts = 0
        self.disabled = False

    def runs_as(self, user: str) -> bool:
        """Whether commands for `user` can go through the agent (it runs as that user)."""
        channel = self._channel
        return channel is not None and user in channel.users

    def ready(self) -> AgentChannel | None:
        """The live channel if there is one, without blocking."""
        channel = self._channel
        return channel if channel is not None and not channel.closed else None

    def get(self) -> AgentChannel | None:
        """A live channel, starting the agent if needed (blocking); None to fall back."""
        with self._lock:
            channel = self.ready()
            if channel is not None or self.disabled:
                return channel
            if self._starts >= self._MAX_STARTS:
                self.disabled = True
                logger.warning("looplab-docker: the command agent of %s keeps dying; using "
                               "docker exec for the rest of the sample", self.container_id[:12])
                return None
            self._starts += 1
            try:
                self._channel = AgentChannel.start(self._api, self.container_id)
            except Exception as err:
                # No python3, an engine error, a container that is gone: the `docker exec` and
                # archive paths still work where anything can, and name the error where not.
                self.disabled = True
                logger.info("looplab-docker: no command agent in %s (%s); using docker exec",
                            self.container_id[:12], err)
                return None
            return self._channel

    def close(self) -> None:
        with self._lock:
            self.disabled = True
            if self._channel is not None:
                self._channel.close()

    def hand_over(self) -> AgentChannel | None:
        """Give up this handle's live channel without closing it (for a container that goes on
        to another sample): from now on this handle has no agent. None when none is live."""
        with self._lock:
            channel = self.ready()
            self.disabled = True
            self._channel = None
            return channel

    @classmethod
    def adopt(cls, api: Any, container_id: str, channel: AgentChannel) -> AgentHandle:
        """A new handle on a channel handed over by another (the next sample's handle)."""
        handle = cls(api, container_id)
        handle._channel = channel
        handle._starts = 1
        return handle

    async def call(self, op: str, deadline_s: float | None, **fields: Any) -> dict[str, Any] | None:
        """Send one request and wait for its reply; None when there is no agent to ask (use the
        Docker API instead). Raises ChannelClosedError when the stream ends after the request
        went out, TimeoutError after `deadline_s`. An exec that times out here or whose caller
        is cancelled (an interrupt) is killed: it must not live on in the container."""
        channel = self.ready()  # the common case costs no thread hop
        if channel is None and not self.disabled:
            channel = await asyncio.to_thread(self.get)
        if channel is None:
            return None
        try:
            request_id, future = channel.request(op, **fields)
        except ChannelClosedError:
            return None
        try:
            reply = await asyncio.wait_for(asyncio.wrap_future(future), deadline_s)
        except ChannelClosedError:
            raise
        except BaseException:
            if op == "exec":
                channel.kill(request_id)
            raise
        if reply.get("error") == "AGENT":  # the agent could not serve it (e.g. pids limit)
            logger.warning("looplab-docker: the agent could not %s: %s", op, reply.get("message"))
            return None
        return reply
