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
from .docker_owner import owner_gone

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


def reap_orphans() -> list[str]:
    """Remove every looplab sandbox container (any namespace) whose owner process is gone:
    killed with `kill -9`, or on a machine that has restarted since. Containers of live runs
    and of other hosts are left alone. Returns the names removed."""
    import docker

    try:
        found = api_client().containers(all=True, filters={"label": LABEL_SANDBOX})
    except docker.errors.DockerException as err:
        logger.warning("looplab-docker: cannot list containers to reap orphans: %s", err)
        return []
    removed = []
    for c in found:
        if owner_gone(c.get("Labels") or {}):
            name = (c.get("Names") or [c["Id"]])[0].lstrip("/")
            try:
                if remove_container(c["Id"]):
                    removed.append(name)
            except docker.errors.DockerException as err:
                logger.warning("looplab-docker: could not remove orphan %s: %s", name, err)
    if removed:
        logger.warning("looplab-docker: removed %d container(s) left by runs that are gone",
                       len(removed))
    return removed


_reaped_in: int | None = None


def reap_orphans_once() -> None:
    """Reap orphans at the first task start of this process (later tasks find none)."""
    global _reaped_in
    if _reaped_in != os.getpid():
        _reaped_in = os.getpid()
        reap_orphans()


def remove_labelled(container_id: str | None = None) -> list[str]:
    """`inspect sandbox cleanup looplab-docker [ID]`: remove one looplab sandbox container by id
    or name; without an id, every container of the namespace LOOPLAB_SANDBOX_NAMESPACE names
    (when it is set: each run has its own by default, so another user's live run is never
    reached). Orphans of any run are reaped by `cli_cleanup` as well. Returns the names removed."""
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
    elif os.environ.get("LOOPLAB_SANDBOX_NAMESPACE"):
        found = [
            (c["Id"], (c.get("Names") or [c["Id"]])[0].lstrip("/")) for c in labelled_containers()
        ]
    else:
        found = []
    return [name for cid, name in found if remove_container(cid)]


def main() -> int:
    """`python -m sandboxes.docker_cleanup` (`make clean-sandboxes`): reap orphaned containers,
    and with LOOPLAB_SANDBOX_NAMESPACE set, remove that namespace's containers too."""
    logging.basicConfig(level=logging.ERROR)
    orphans = reap_orphans()
    print(f"looplab-docker: reaped {len(orphans)} orphaned container(s) {' '.join(orphans)}".rstrip())
    if os.environ.get("LOOPLAB_SANDBOX_NAMESPACE"):
        named = remove_labelled(None)
        print(f"looplab-docker: removed {len(named)} container(s) of namespace "
              f"{os.environ['LOOPLAB_SANDBOX_NAMESPACE']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
