"""The Docker engine side of the looplab-docker sandbox: client, readiness checks, containers.

Every call here is blocking (Docker SDK); the provider runs them through `asyncio.to_thread`.
The `docker` package is imported lazily so that registering the sandbox costs nothing.
"""

from __future__ import annotations

import functools
import hashlib
import logging
import os
import re
import threading
import uuid
from contextvars import ContextVar
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .config import DEFAULT_IMAGE, WITNESS_DIR, DockerSandboxConfig

if TYPE_CHECKING:
    from docker import APIClient

logger = logging.getLogger(__name__)

LABEL_SANDBOX = "looplab.sandbox"
"""Every container we create carries this label; `cli_cleanup` removes by it."""
LABEL_RUN = "looplab.run"
"""Identifies the process (run) that created a container."""
LABEL_TASK = "looplab.task"
LABEL_DOCKERFILE_HASH = "looplab.dockerfile-sha256"
"""Set on the image by setup.sh; compared with the Dockerfile to spot a stale image."""

RUN_ID = uuid.uuid4().hex[:12]
"""This process's run id (value of `looplab.run`)."""

DOCKERFILE = Path(__file__).with_name("Dockerfile")
CONTEXT = Path(__file__).with_name("container")
"""The image's build context: the sandbox's own programs (init, witness)."""
INIT = "/opt/looplab/init.py"
"""The container's main process in the looplab image (sandboxes/container/init.py)."""
SETUP_HINT = "run `make sandbox` (sandboxes/setup.sh)"
LOCAL_HINT = "or run without Docker with sandbox=local (e.g. `make eval SANDBOX=local`)"


def sandbox_namespace() -> str:
    """Value of the `looplab.sandbox` label: this run's own (`run-<RUN_ID>`) unless
    LOOPLAB_SANDBOX_NAMESPACE names a shared one, so one user's cleanup never reaches another
    user's live run."""
    return os.environ.get("LOOPLAB_SANDBOX_NAMESPACE") or f"run-{RUN_ID}"


def owner_labels() -> dict[str, str]:
    """Who owns a container: this process (pid and start time, so a reused pid is not taken
    for it), on this host and this boot. `docker_cleanup.reap_orphans` reads them back."""
    from .docker_owner import owner_identity

    return owner_identity()


def _prerequisite_base() -> type[Exception]:
    # inspect prints a PrerequisiteError as a clean message instead of a traceback.
    try:
        from inspect_ai._util.error import PrerequisiteError

        return PrerequisiteError
    except ImportError:  # pragma: no cover - private inspect API moved
        return RuntimeError


class SandboxNotReadyError(_prerequisite_base()):  # type: ignore[misc]
    """The Docker engine or the sandbox image is not there."""

    def __init__(self, message: str) -> None:
        Exception.__init__(self, message)
        self.message = message

    def __str__(self) -> str:
        return self.message


_client_lock = threading.Lock()
_client: tuple[tuple[int, str | None], APIClient] | None = None


def api_client() -> APIClient:
    """The process's low-level Docker client, created on first use and again after a fork or a
    change of DOCKER_HOST."""
    global _client
    key = (os.getpid(), os.environ.get("DOCKER_HOST"))
    with _client_lock:
        if _client is None or _client[0] != key:
            import docker

            try:
                # Many samples exec at once; the default pool of 10 connections would churn.
                client = docker.from_env(max_pool_size=64, timeout=120)
            except docker.errors.DockerException as err:
                raise SandboxNotReadyError(_no_engine_message(err)) from err
            _client = (key, client.api)
        return _client[1]


def _no_engine_message(err: object) -> str:
    where = os.environ.get("DOCKER_HOST", "unix:///var/run/docker.sock")
    return (
        f"looplab-docker: no Docker engine is reachable at {where} ({err}). "
        f"To use Docker sandboxes {SETUP_HINT} to bring one up, {LOCAL_HINT}."
    )


def check_ready(image: str) -> None:
    """Raise SandboxNotReadyError naming what is missing: the engine or the image."""
    import docker

    try:
        api = api_client()
        api.ping()
    except SandboxNotReadyError:
        raise
    except docker.errors.DockerException as err:
        raise SandboxNotReadyError(_no_engine_message(err)) from err
    try:
        info = api.inspect_image(image)
    except docker.errors.ImageNotFound as err:
        raise SandboxNotReadyError(
            f"looplab-docker: the sandbox image {image!r} is not there; {SETUP_HINT} to build "
            f"it, {LOCAL_HINT}."
        ) from err
    if image == DEFAULT_IMAGE and DOCKERFILE.is_file():
        labels = (info.get("Config") or {}).get("Labels") or {}
        if labels.get(LABEL_DOCKERFILE_HASH) != dockerfile_hash():
            logger.warning(
                "looplab-docker: %s is older than sandboxes/Dockerfile; %s to rebuild it",
                image,
                SETUP_HINT,
            )


def dockerfile_hash() -> str:
    """The image's identity as sandboxes/setup.sh labels it: the Dockerfile, then each program
    of the build context in name order, its name between NUL bytes before its content."""
    digest = hashlib.sha256(DOCKERFILE.read_bytes())
    for path in sorted(CONTEXT.glob("*.py"), key=lambda p: p.name.encode()):
        digest.update(b"\0" + path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def _container_name(task_name: str) -> str:
    slug = re.sub(r"[^a-zA-Z0-9_.-]+", "-", task_name).strip("-.")[:40] or "task"
    return f"looplab-{slug}-{uuid.uuid4().hex[:8]}"


class _CreationGate:
    """Counts container creations in flight, and closes for good when the process is ending:
    the exit and signal hooks close it and wait for those in flight to be tracked before they
    sweep, so no container made by a background thread (warm pools) slips past the sweep."""

    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._in_flight = 0
        self.closed = False

    def enter(self) -> None:
        with self._cond:
            if self.closed:
                raise SandboxNotReadyError("looplab-docker: the process is ending; no new sandboxes")
            self._in_flight += 1

    def leave(self) -> None:
        with self._cond:
            self._in_flight -= 1
            self._cond.notify_all()

    def close(self, wait_s: float) -> None:
        with self._cond:
            self.closed = True
            self._cond.wait_for(lambda: self._in_flight <= 0, timeout=wait_s)


CREATION_GATE = _CreationGate()


def create_container(config: DockerSandboxConfig, task_name: str) -> tuple[str, str]:
    """Create and start one sandbox container; return (id, name). It is tracked for cleanup
    from the moment it exists, so a failed start still gets removed."""
    CREATION_GATE.enter()
    try:
        return _create_and_start(config, task_name)
    finally:
        CREATION_GATE.leave()


def _create_and_start(config: DockerSandboxConfig, task_name: str) -> tuple[str, str]:
    api = api_client()
    tmpfs, shm_size = config.docker_tmpfs()
    host_config = api.create_host_config(
        network_mode="bridge" if config.network else "none",
        mem_limit=config.memory,
        memswap_limit=config.memory,  # no swap beyond the memory limit
        nano_cpus=int(config.cpus * 1e9),
        pids_limit=config.pids_limit,
        # Everything dropped, then only the file-ownership capabilities the config names (see
        # DockerSandboxConfig.cap_add for why those); users are switched by the engine at exec.
        cap_drop=["ALL"],
        cap_add=list(config.cap_add) or None,
        security_opt=["no-new-privileges"],
        # A real init reaps processes orphaned by killed commands (timeouts), so none linger.
        init=True,
        # The only places the harness can write, each bounded (and the witness's journal).
        tmpfs=tmpfs or None,
        shm_size=shm_size,
        # Inherited by the sandbox's own processes; commands run as `user` raise theirs to 1000.
        oom_score_adj=config.oom_score_adj or None,
    )
    name = _container_name(task_name)
    labels = {
        LABEL_SANDBOX: sandbox_namespace(),
        LABEL_RUN: RUN_ID,
        LABEL_TASK: task_name[:200],
        "looplab.pid": str(os.getpid()),
        **owner_labels(),
    }
    created = api.create_container(
        config.image,
        name=name,
        labels=labels,
        host_config=host_config,
        working_dir=config.workdir,
        environment=config.docker_env() or None,
        # The image's main process (init.py: keeps the witness up), told what to watch.
        command=_main_command(config),
        detach=True,
    )
    container_id: str = created["Id"]
    TRACKED.add(container_id, config)
    try:
        api.start(container_id)
    except Exception:
        remove_container(container_id)
        raise
    return container_id, name


@functools.cache
def _image_cmd(image: str) -> tuple[str, ...]:
    return tuple(((api_client().inspect_image(image).get("Config") or {}).get("Cmd")) or ())


def has_witness(config: DockerSandboxConfig) -> bool:
    """Whether containers of this config run the witness (their image's command is our init)."""
    return INIT in _image_cmd(config.image)


def _main_command(config: DockerSandboxConfig) -> list[str] | None:
    """The looplab image's init (an image whose command it is: the sandbox image and the
    harness images built on it) told this config's workdir and scratch directories; None (the
    image's own command) for any other image."""
    if not has_witness(config):
        return None
    disks = [x for path, _ in config.tmpfs for x in ("--disk", path)
             if path.rstrip("/") not in (config.workdir.rstrip("/"), WITNESS_DIR)]
    return ["python3", "-I", INIT, "--root", config.workdir, "--dir", WITNESS_DIR, *disks]


def remove_container(container_id: str) -> bool:
    """Force-remove one container (and its anonymous volumes). False if it was already gone."""
    import docker

    TRACKED.discard(container_id)
    try:
        api_client().remove_container(container_id, force=True, v=True)
        return True
    except docker.errors.NotFound:
        return False
    except docker.errors.APIError as err:
        # 409: removal already in progress (a signal handler and a cleanup racing).
        if err.status_code == 409:
            return False
        raise


def labelled_containers() -> list[dict[str, Any]]:
    """All containers (running or not) labelled as looplab sandboxes of this namespace."""
    return api_client().containers(
        all=True, filters={"label": f"{LABEL_SANDBOX}={sandbox_namespace()}"}
    )


TASK_SCOPE: ContextVar[str | None] = ContextVar("looplab_docker_task_scope", default=None)
"""Set by `task_init` in the task's context: containers are tracked per task, because several
tasks with the same config run at once in one process (`eval` with several configurations), and
one task finishing must not remove another's live sandboxes."""


class _Tracked:
    """Containers this process created and has not removed yet, with the config and task scope
    each was made in: `task_cleanup` removes only its own task's leftovers."""

    def __init__(self) -> None:
        # Re-entrant: a signal handler may run in the main thread while it holds the lock.
        self._lock = threading.RLock()
        self._items: dict[str, tuple[DockerSandboxConfig, str | None]] = {}

    def add(self, container_id: str, config: DockerSandboxConfig, *, pooled: bool = False) -> None:
        """Track (or re-scope) a container: in the current task's scope, or in none when it
        is `pooled` (waiting in a warm pool: no task's `task_cleanup` may remove it)."""
        with self._lock:
            self._items[container_id] = (config, None if pooled else TASK_SCOPE.get())

    def discard(self, container_id: str) -> None:
        with self._lock:
            self._items.pop(container_id, None)

    def ids(self, config: DockerSandboxConfig | None = None, scope: str | None = None) -> list[str]:
        """Tracked ids, optionally only those of ``config`` and of task ``scope``."""
        with self._lock:
            return [c for c, (k, sc) in self._items.items()
                    if (config is None or k == config) and (scope is None or sc == scope)]


TRACKED = _Tracked()


def container_running(container_id: str) -> bool:
    """Whether the container exists and runs."""
    import docker

    try:
        info = api_client().inspect_container(container_id)
    except docker.errors.NotFound:
        return False
    return bool((info.get("State") or {}).get("Running"))
