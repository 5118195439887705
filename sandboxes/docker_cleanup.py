"""Last-chance removal of the sandbox containers this process created.

inspect removes containers in `sample_cleanup`/`task_cleanup`; these hooks cover the ways a process
can end without getting there: interpreter exit, SIGINT and SIGTERM. The signal handlers remove the
containers and then hand the signal on to whatever handler was installed before (inspect's own
Ctrl-C handling, asyncio's, or the default action), so behaviour is otherwise unchanged.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Any

from .config import DockerSandboxConfig
from .docker_engine import (
    CREATION_GATE,
    LABEL_SANDBOX,
    TRACKED,
    api_client,
    labelled_containers,
    remove_container,
)

logger = logging.getLogger(__name__)

_GATE_WAIT_S = 5  # creations in flight normally finish within a second
_installed_pid: int | None = None
_install_lock = threading.Lock()
_previous: dict[int, Any] = {}


def remove_tracked(
    config: DockerSandboxConfig | None = None, parallel: bool = True, scope: str | None = None
) -> int:
    """Remove tracked containers (all, or those of `config` and task `scope`); return how many."""
    ids = TRACKED.ids(config, scope)
    if not ids:
        return 0

    def _remove(container_id: str) -> bool:
        try:
            return remove_container(container_id)
        except Exception as err:  # the engine may be gone at exit; nothing more to do
            logger.warning("looplab-docker: could not remove container %s: %s", container_id, err)
            return False

    if not parallel or len(ids) == 1:
        return sum(map(_remove, ids))
    with ThreadPoolExecutor(max_workers=min(8, len(ids))) as pool:
        return sum(pool.map(_remove, ids))


def install_exit_handlers() -> None:
    """Register the atexit hook and chain SIGINT/SIGTERM handlers (once per process)."""
    global _installed_pid
    with _install_lock:
        if _installed_pid == os.getpid():
            return
        _installed_pid = os.getpid()
        atexit.register(_at_exit)
        # signal.signal only works in the main thread; elsewhere atexit is the safety net.
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                _previous[sig] = signal.getsignal(sig)
                signal.signal(sig, _on_signal)


def _at_exit() -> None:
    # Sequential: thread pools refuse new work once the interpreter is shutting down.
    if _installed_pid == os.getpid():
        CREATION_GATE.close(_GATE_WAIT_S)
        remove_tracked(parallel=False)


def _on_signal(signum: int, frame: FrameType | None) -> None:
    if _installed_pid == os.getpid():
        CREATION_GATE.close(_GATE_WAIT_S)
        remove_tracked()
    previous = _previous.get(signum, signal.SIG_DFL)
    if callable(previous):
        previous(signum, frame)
    elif previous == signal.SIG_DFL:
        # Restore the default action and deliver the signal again so the process ends the
        # way it would have without us (exit status included).
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
    # SIG_IGN (or None for a handler set outside Python): ignore, as before.


def remove_labelled(container_id: str | None = None) -> list[str]:
    """`inspect sandbox cleanup looplab-docker [ID]`: remove one looplab sandbox container by id
    or name, or every container labelled as a looplab sandbox (any process, any run). Returns the
    names removed."""
    import docker

    api = api_client()
    if container_id:
        try:
            info = api.inspect_container(container_id)
        except docker.errors.NotFound as err:
            raise ValueError(f"looplab-docker: no container {container_id!r}") from err
        if LABEL_SANDBOX not in ((info.get("Config") or {}).get("Labels") or {}):
            raise ValueError(
                f"looplab-docker: container {container_id!r} is not a looplab sandbox "
                f"(no {LABEL_SANDBOX} label); not removing it"
            )
        found = [(info["Id"], info["Name"].lstrip("/"))]
    else:
        found = [
            (c["Id"], (c.get("Names") or [c["Id"]])[0].lstrip("/")) for c in labelled_containers()
        ]
    return [name for cid, name in found if remove_container(cid)]
