"""Configuration of the looplab-docker sandbox: one frozen, hashable pydantic model.

inspect uses a sandbox config object as a dict key, so every field is hashable (tuples of pairs
rather than dicts). A *string* config is always a file path to inspect; `resolve_config` loads such
a file (YAML or JSON) into the same model.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

DEFAULT_IMAGE = os.environ.get("LOOPLAB_SANDBOX_IMAGE") or "looplab-sandbox:latest"
"""Image built by sandboxes/setup.sh from sandboxes/Dockerfile (``LOOPLAB_SANDBOX_IMAGE``, as
for setup.sh, names another tag: several checkouts on one engine keep their images apart)."""
AGENT_USER = "agent"
"""The unprivileged user of the sandbox image: the harness under test runs as it."""
AGENT_UID = 1000
"""Its uid and gid (sandboxes/Dockerfile)."""
WITNESS_DIR = "/var/lib/looplab"
"""The witness's journal and control socket: a root-only tmpfs (sandboxes/container/witness.py)."""

_MEMORY_RE = re.compile(r"^[0-9]+(\.[0-9]+)?[bkmg]?$", re.IGNORECASE)
_CAP_RE = re.compile(r"^(CAP_)?[A-Z_]+$")
_ENV_NAME_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class DockerSandboxConfig(BaseModel):
    """Isolation and resources of one looplab-docker sandbox container."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    image: str = DEFAULT_IMAGE
    """Image the container runs (built by `make sandbox`)."""

    network: bool = False
    """Give the container a network. False (the default) means `network_mode="none"`:
    only the loopback interface exists inside."""

    memory: str = "1g"
    """Memory limit in Docker's notation (`512m`, `1g`); swap is capped at the same value."""

    cpus: float = 1.0
    """CPU share, in cores (Docker's `--cpus`)."""

    pids_limit: int = 256
    """Maximum number of processes/threads inside the container (fork-bomb guard)."""

    cap_add: tuple[str, ...] = ("CHOWN", "DAC_OVERRIDE", "FOWNER", "KILL", "SETUID", "SETGID")
    """Capabilities given back to root after dropping all of them; `user` has none (a process
    that changes from root to another uid loses its capabilities, and no-new-privileges keeps
    it from regaining any). Root needs CHOWN (`tar x` restores owners, files are handed to
    `user`), DAC_OVERRIDE/FOWNER (to read, chmod and delete the files `user` created), KILL (to
    stop `user`'s processes at a timeout and between samples) and SETUID/SETGID (the command
    agent drops to `user` for each of its commands). No NET_*, SYS_* or others. Set `()` for a
    container with no capabilities at all (then set `user` to None: nothing can switch users)."""

    user: str | None = AGENT_USER
    """The user that commands, file reads and writes run as when the caller names none
    (`exec(user=None)`, `read_file`, `write_file`): the harness under test and everything it or a
    scenario runs. The sandbox's own processes stay root; internal callers that need root pass
    `user="root"`. None: the container's default user (root in the looplab image: no isolation
    between the harness and the witness)."""

    tmpfs: tuple[tuple[str, str], ...] = (
        ("/workspace", "256m"), ("/tmp", "128m"), ("/var/tmp", "64m"), ("/dev/shm", "64m"),
        (WITNESS_DIR, "64m"),
    )
    """Size-bounded in-memory file systems as (path, size): the only places the harness can
    write (the workdir, the scratch directories; they count against `memory`) and the
    witness's journal. Everything else in the container is root's. A `workdir` or scratch
    directory missing here is a directory of the image's file system (unbounded)."""

    oom_score_adj: int = 0
    """The container's processes start with this OOM score adjustment (the sandbox's own: init,
    witness, command agent, model relay). Every command run as `user` raises its own to 1000,
    so under memory pressure the kernel kills the harness, never the sandbox: that needs no
    privilege. A negative value protects the sandbox's processes further, but the engine can
    set one only where its host grants CAP_SYS_RESOURCE (this project's machines do not: the
    container then fails to start)."""

    workdir: str = "/workspace"
    """Working directory of the container; relative exec cwds and file paths resolve here."""

    env: tuple[tuple[str, str], ...] = ()
    """Environment variables of the container as (name, value) pairs; a dict is accepted."""

    files: tuple[tuple[str, str], ...] = ()
    """Files written into the container at sample start as (path, text content) pairs; relative
    paths resolve against `workdir`. inspect writes `Sample.files` itself; this is for files every
    sample of a task needs."""

    warm: int = 4
    """Containers kept created and started ahead of need, per task and config, while a task
    with this config runs (0: make each sample's container when the sample starts). This only
    takes container start-up off the sample's path. Samples run without `task_init` (direct
    provider use) never pool, and so are never reused either."""

    reuse: bool = True
    """Let a container that served a sample serve a later sample of a task with this config,
    when, and only when, it is shown to be what a fresh container would be. At sample end
    (not interrupted, agent alive) every process but the container's init and main process is
    killed; the workdir and `scratch_dirs` are emptied and get back their owner, mode and
    times; the state `docker diff` cannot see (writable mounts such as /dev and /etc/hosts,
    System V IPC, the kept processes) must match its record from before the first sample; and
    `docker diff` must show no file added, changed or deleted anywhere else. Otherwise the
    container is removed as without reuse. Guaranteed: the next sample sees no file, process,
    background job, environment change or IPC object of the previous one. Not restored: the
    ctime/inode numbers of the emptied directories, and a process that deliberately ptraces
    the container's kept processes (init, main process, command agent) could outlive its
    sample; use `reuse: false` (or LOOPLAB_SANDBOX_REUSE=0 for a whole run) against that."""

    max_reuses: int = 50
    """How many later samples one container may serve before it is removed (bounds whatever
    drift the checks above do not cover)."""

    model_relay: bool = False
    """Start looplab's model relay in each container (root, once per container, kept across
    reuse): the HTTP endpoint on 127.0.0.1:13131 through which a harness under test reaches the
    eval's model (`sandboxes/model_relay.py`). Harness specs' sandboxes set it."""

    expected_samples: int = 0
    """How many samples (epochs included) of the task will use this config; the warm pool then
    never makes more containers than samples are still to start (a one-sample run makes one).
    0: not known, `warm` alone decides."""

    scratch_dirs: tuple[str, ...] = ("/tmp", "/var/tmp", "/dev/shm")
    """Directories a sample may write to besides the workdir and still leave its container
    reusable: they are emptied between samples, so they must be empty in the image. A write
    anywhere else (/etc, /opt, a home directory) makes the container single-use."""

    @field_validator("env", "files", "tmpfs", mode="before")
    @classmethod
    def _pairs_from_mapping(cls, value: Any) -> Any:
        # YAML files and callers naturally write mappings; pairs keep the model hashable.
        if isinstance(value, dict):
            return tuple((str(k), str(v)) for k, v in value.items())
        return value

    @field_validator("memory")
    @classmethod
    def _check_memory(cls, value: str) -> str:
        if not _MEMORY_RE.match(value):
            raise ValueError(f"memory must look like '512m' or '1g', got {value!r}")
        return value

    @field_validator("cpus")
    @classmethod
    def _check_cpus(cls, value: float) -> float:
        if value <= 0:
            raise ValueError(f"cpus must be > 0, got {value}")
        return value

    @field_validator("pids_limit")
    @classmethod
    def _check_pids(cls, value: int) -> int:
        if value < 8:
            raise ValueError(f"pids_limit must be at least 8 (a shell needs a few), got {value}")
        return value

    @field_validator("cap_add")
    @classmethod
    def _check_caps(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for cap in value:
            if not _CAP_RE.match(cap):
                raise ValueError(f"cap_add: {cap!r} is not a capability name like 'CHOWN'")
        return tuple(cap.removeprefix("CAP_") for cap in value)

    @field_validator("warm")
    @classmethod
    def _check_warm(cls, value: int) -> int:
        if not 0 <= value <= 64:
            raise ValueError(f"warm must be between 0 and 64 containers, got {value}")
        return value

    @field_validator("max_reuses")
    @classmethod
    def _check_max_reuses(cls, value: int) -> int:
        if not 1 <= value <= 10_000:
            raise ValueError(f"max_reuses must be between 1 and 10000, got {value}")
        return value

    @field_validator("scratch_dirs")
    @classmethod
    def _check_scratch_dirs(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for path in value:
            if not path.startswith("/") or path.rstrip("/") == "":
                raise ValueError(f"scratch_dirs: {path!r} must be an absolute path other than '/'")
        return value

    @field_validator("tmpfs")
    @classmethod
    def _check_tmpfs(cls, value: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        for path, size in value:
            if not path.startswith("/") or path.rstrip("/") == "":
                raise ValueError(f"tmpfs: {path!r} must be an absolute path other than '/'")
            if not _MEMORY_RE.match(size):
                raise ValueError(f"tmpfs: the size of {path} must look like '64m', got {size!r}")
        return value

    @field_validator("oom_score_adj")
    @classmethod
    def _check_oom(cls, value: int) -> int:
        if not -1000 <= value <= 1000:
            raise ValueError(f"oom_score_adj must be between -1000 and 1000, got {value}")
        return value

    @field_validator("workdir")
    @classmethod
    def _check_workdir(cls, value: str) -> str:
        if not value.startswith("/"):
            raise ValueError(f"workdir must be an absolute path, got {value!r}")
        return value

    @field_validator("env")
    @classmethod
    def _check_env(cls, value: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
        for name, _ in value:
            if not _ENV_NAME_RE.match(name):
                raise ValueError(f"env: {name!r} is not a valid environment variable name")
        return value

    def docker_env(self) -> dict[str, str]:
        """The `env` pairs as the mapping the Docker API takes."""
        return dict(self.env)

    def docker_tmpfs(self) -> tuple[dict[str, str], str | None]:
        """The `tmpfs` mounts as the Docker API takes them (path -> options), and the size of
        /dev/shm (the engine mounts that one itself, as `shm_size`)."""
        mounts, shm = {}, None
        workdir = self.workdir.rstrip("/")
        for path, size in self.tmpfs:
            path = path.rstrip("/")
            if path == "/dev/shm":
                shm = size
            elif path == WITNESS_DIR:
                mounts[path] = f"size={size},mode=0700,uid=0,gid=0,noexec,nosuid,nodev"
            elif path == workdir and self.user == AGENT_USER:
                mounts[path] = f"size={size},mode=0755,uid={AGENT_UID},gid={AGENT_UID},exec,nosuid,nodev"
            else:  # a scratch directory (or a workdir any user may write): sticky, as /tmp is
                mounts[path] = f"size={size},mode=1777,exec,nosuid,nodev"
        return mounts, shm


def resolve_config(config: object) -> DockerSandboxConfig:
    """Turn what inspect hands a provider (None, a model, or a file path) into our config."""
    if config is None:
        return DockerSandboxConfig()
    if isinstance(config, DockerSandboxConfig):
        return config
    if isinstance(config, str):
        return _load_config_file(Path(config))
    if isinstance(config, BaseModel):
        raise ValueError(
            f"looplab-docker: unsupported sandbox config type {type(config).__name__}; "
            "pass a DockerSandboxConfig or the path of a YAML/JSON file with its fields"
        )
    raise ValueError(f"looplab-docker: unsupported sandbox config {config!r}")


def _load_config_file(path: Path) -> DockerSandboxConfig:
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as err:
        raise ValueError(f"looplab-docker: cannot read sandbox config file {path}: {err}") from err
    except UnicodeDecodeError as err:
        raise ValueError(f"looplab-docker: sandbox config file {path} is not UTF-8 text "
                         f"(byte {err.start}: {err.reason})") from err
    except yaml.YAMLError as err:
        raise ValueError(f"looplab-docker: {path} is not valid YAML/JSON: {err}") from err
    if data is None:
        data = {}
    if not isinstance(data, dict):
        raise ValueError(f"looplab-docker: {path} must hold a mapping of config fields")
    try:
        return DockerSandboxConfig.model_validate(data)
    except ValidationError as err:
        raise ValueError(f"looplab-docker: invalid sandbox config in {path}: {err}") from err
