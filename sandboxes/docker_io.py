"""Blocking exec and file transfer against one container through the Docker SDK.

exec uses the attach socket directly (rather than `exec_start(demux=True)`) for three reasons:
stdin can be written and closed, output is kept in bounded buffers (inspect's exec output limit,
keeping the tail as inspect's own docker sandbox does), and the read honours a host-side deadline.
"""

from __future__ import annotations

import base64
import io
import socket
import struct
import tarfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ExecRequest:
    """One command for a sandbox, as the provider hands it to the agent or to `run_exec`."""

    argv: list[str]
    stdin: bytes | None
    workdir: str
    env: dict[str, str] | None
    user: str | None
    deadline_s: float | None
    output_limit: int


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


_HEADER = struct.Struct(">BxxxL")  # Docker's multiplexed stream frame: stream id, payload size
_STDOUT, _STDERR = 1, 2


class TailBuffer:
    """Keeps at most `limit` bytes: the most recent ones."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._chunks: list[bytes] = []
        self._kept = 0

    def write(self, data: bytes) -> None:
        self.total += len(data)
        self._chunks.append(data)
        self._kept += len(data)
        while len(self._chunks) > 1 and self._kept - len(self._chunks[0]) >= self.limit:
            self._kept -= len(self._chunks.pop(0))

    def getvalue(self) -> bytes:
        data = b"".join(self._chunks)
        return data[-self.limit :] if len(data) > self.limit else data


@dataclass
class RawExecResult:
    returncode: int
    stdout: bytes
    stderr: bytes
    truncated: bool
    elapsed: float


def run_exec(
    api: Any,
    container_id: str,
    argv: list[str],
    *,
    stdin: bytes | None,
    workdir: str,
    env: dict[str, str] | None,
    user: str | None,
    deadline_s: float | None,
    output_limit: int,
) -> RawExecResult:
    """Run argv in the container; raise TimeoutError if no result arrives within deadline_s."""
    started = time.monotonic()
    exec_id = api.exec_create(
        container_id,
        argv,
        stdin=stdin is not None,
        environment=env or None,
        workdir=workdir,
        user=user or "",
    )["Id"]
    wrapped = api.exec_start(exec_id, socket=True)
    raw = getattr(wrapped, "_sock", wrapped)
    # The client's API timeout must not cut a long, quiet command short: only our deadline may.
    raw.settimeout(deadline_s)
    out, err = TailBuffer(output_limit), TailBuffer(output_limit)
    writer = _start_stdin_writer(raw, stdin) if stdin is not None else None
    try:
        _read_frames(raw, out, err)
    except TimeoutError as ex:
        raise TimeoutError(f"no result from the sandbox within {deadline_s:.0f}s") from ex
    finally:
        if writer is not None:
            writer.join(timeout=5)
        wrapped.close()
    returncode = _exit_code(api, exec_id)
    truncated = out.total > output_limit or err.total > output_limit
    return RawExecResult(
        returncode, out.getvalue(), err.getvalue(), truncated, time.monotonic() - started
    )


def _start_stdin_writer(raw: Any, data: bytes) -> threading.Thread:
    # Written from its own thread: a command may fill its output pipe before reading all input.
    def _write() -> None:
        try:
            raw.sendall(data)
        except OSError:
            pass  # the command exited without reading everything: like a closed pipe
        try:
            if hasattr(raw, "shutdown_write"):  # paramiko channel (ssh:// DOCKER_HOST)
                raw.shutdown_write()
            else:
                raw.shutdown(socket.SHUT_WR)  # EOF on the command's stdin
        except OSError:
            pass

    thread = threading.Thread(target=_write, name="looplab-docker-stdin", daemon=True)
    thread.start()
    return thread


def take_frames(pending: bytearray) -> Iterator[tuple[int, bytes]]:
    """Complete frames of Docker's multiplexed stream (8-byte header: stream id, size) taken
    off the front of ``pending`` as ``(stream, payload)``; a partial frame stays there."""
    while len(pending) >= _HEADER.size:
        stream, size = _HEADER.unpack_from(pending)
        if len(pending) < _HEADER.size + size:
            return
        payload = bytes(pending[_HEADER.size : _HEADER.size + size])
        del pending[: _HEADER.size + size]
        yield stream, payload


def _read_frames(raw: Any, out: TailBuffer, err: TailBuffer) -> None:
    pending = bytearray()
    while True:
        chunk = raw.recv(65536)
        if not chunk:
            return
        pending += chunk
        for stream, payload in take_frames(pending):
            (err if stream == _STDERR else out).write(payload)


def _exit_code(api: Any, exec_id: str) -> int:
    # The stream can end a moment before the engine records the exit code.
    for _ in range(500):
        info = api.exec_inspect(exec_id)
        if not info.get("Running") and info.get("ExitCode") is not None:
            return int(info["ExitCode"])
        time.sleep(0.01)
    raise TimeoutError("the sandbox did not report an exit code for a finished command")


def file_archive(name: str, contents: bytes) -> bytes:
    """A tar holding one regular file `name` (mode 0644, owned by root)."""
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size = len(contents)
        info.mode = 0o644
        info.mtime = int(time.time())
        tar.addfile(info, io.BytesIO(contents))
    return buffer.getvalue()


def read_archive_member(stream: Any) -> tuple[tarfile.TarInfo, bytes | None]:
    """First member of a tar stream from `get_archive`, with its bytes if it is a regular file."""
    buffer = io.BytesIO(b"".join(stream))
    with tarfile.open(fileobj=buffer, mode="r") as tar:
        member = tar.next()
        if member is None:
            raise FileNotFoundError("empty archive from the sandbox")
        if not member.isfile():
            return member, None
        extracted = tar.extractfile(member)
        return member, extracted.read() if extracted is not None else b""
