"""Who owns a sandbox container, and whether that owner still lives.

Every container carries its owner's identity as labels: host name, boot id, pid and the pid's
start time. A container whose owner is gone (killed with `kill -9`, a crashed machine) is an
orphan: the next run and `make clean-sandboxes` remove it (`docker_cleanup.reap_orphans`).
"""

from __future__ import annotations

import os
import socket
from functools import cache
from pathlib import Path

LABEL_OWNER_HOST = "looplab.owner.host"
LABEL_OWNER_BOOT = "looplab.owner.boot"
LABEL_OWNER_PID = "looplab.owner.pid"
LABEL_OWNER_START = "looplab.owner.start"
"""The owner's start time in clock ticks since boot (`/proc/<pid>/stat` field 22)."""
LEGACY_PID = "looplab.pid"
"""Set by earlier versions, which had no owner labels."""


@cache
def boot_id() -> str:
    try:
        return Path("/proc/sys/kernel/random/boot_id").read_text().strip()
    except OSError:
        return ""


def start_time(pid: int) -> str:
    """The start time of process `pid` ('' when it does not exist or cannot be read)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return ""
    # The command name (field 2) may hold spaces and parentheses: split after its last ')'.
    fields = stat.rsplit(")", 1)[-1].split()
    return fields[19] if len(fields) > 19 else ""


def owner_identity() -> dict[str, str]:
    pid = os.getpid()
    return {LABEL_OWNER_HOST: socket.gethostname(), LABEL_OWNER_BOOT: boot_id(),
            LABEL_OWNER_PID: str(pid), LABEL_OWNER_START: start_time(pid)}


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # it exists, under another user
    return True


def owner_gone(labels: dict[str, str]) -> bool:
    """True only when the owner is known to be gone; a container of another host (or one that
    names no owner) is never taken for an orphan."""
    host = labels.get(LABEL_OWNER_HOST)
    pid_text = labels.get(LABEL_OWNER_PID) or labels.get(LEGACY_PID)
    if host is None:
        # Earlier versions recorded only the pid: judge it on a local engine only.
        if os.environ.get("DOCKER_HOST") or not (pid_text or "").isdigit():
            return False
        return not pid_alive(int(pid_text))  # type: ignore[arg-type]
    if host != socket.gethostname():
        return False
    if labels.get(LABEL_OWNER_BOOT) and labels[LABEL_OWNER_BOOT] != boot_id():
        return True  # the machine restarted since: its processes are all gone
    if not (pid_text or "").isdigit():
        return False
    pid = int(pid_text)  # type: ignore[arg-type]
    if not pid_alive(pid):
        return True
    recorded = labels.get(LABEL_OWNER_START)
    return bool(recorded) and start_time(pid) not in ("", recorded)  # the pid was reused
