"""One run at a time in a log directory: a lock file in it, held while the run lasts.

Two runs writing into one directory would mix their logs, and each scorecard would rank the
other's results. The lock is an advisory ``flock`` on ``<log dir>/.looplab-run.lock``: the
kernel drops it when its process ends, however it ends, so the lock of a killed run is stale
by construction and the next run takes it over. The file names its holder (pid, host, start,
command) so that a refused run can say which run holds the directory. A run removes the file
as it ends, while it still holds the lock; a run that opened the file just before checks that
what it locked is still the file at that path, and otherwise tries again.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

LOCK_FILE = ".looplab-run.lock"


class LogDirBusy(ValueError):
    """Another live run holds the log directory, or it cannot be written (bad input: exit 2)."""


@contextmanager
def hold_log_dir(log_dir: Path) -> Iterator[None]:
    """Hold ``log_dir`` (which exists) for the block; raises ``LogDirBusy`` naming the holder."""
    path = log_dir / LOCK_FILE
    fd = _lock(path, log_dir)
    try:
        holder = {"pid": os.getpid(), "host": socket.gethostname(),
                  "started": time.strftime("%Y-%m-%d %H:%M:%S"), "command": " ".join(sys.argv)}
        os.ftruncate(fd, 0)
        os.write(fd, json.dumps(holder).encode())
        yield
    finally:
        path.unlink(missing_ok=True)  # still locked: a waiting opener sees the file is gone
        os.close(fd)


def _lock(path: Path, log_dir: Path) -> int:
    while True:
        try:
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except PermissionError as e:
            raise LogDirBusy(f"--log-dir {log_dir}: cannot write there ({e.strerror})") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _holder(fd)
            os.close(fd)
            raise LogDirBusy(f"--log-dir {log_dir}: another run is writing there ({holder}); "
                             "one run at a time: give another --log-dir, or wait") from None
        try:
            same = os.fstat(fd).st_ino == os.stat(path).st_ino
        except FileNotFoundError:
            same = False
        if same:
            return fd
        os.close(fd)  # its holder removed the file as it ended: lock the new one


def _holder(fd: int) -> str:
    try:
        data = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except ValueError:
        data = {}
    if not isinstance(data, dict) or "pid" not in data:
        return "its details are not written yet"
    return (f"pid {data['pid']} on {data.get('host', '?')}, started {data.get('started', '?')}: "
            f"{data.get('command', '?')}")
