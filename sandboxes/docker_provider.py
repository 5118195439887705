"""The `looplab-docker` inspect sandbox: one locked-down container per sample, on the Docker SDK.

inspect's built-in `docker` sandbox needs Docker Compose v2 and a recent engine; this provider
needs only an engine API. Importing this module registers the sandbox and contacts no engine.
Isolation defaults (no network, all capabilities dropped, no-new-privileges, memory/CPU/pids
limits) live in `DockerSandboxConfig`; containers are removed at sample end, at task end, at
interpreter exit, on SIGINT/SIGTERM, and by `inspect sandbox cleanup looplab-docker [ID]`. Each
carries its run and owner (`docker_owner`); those whose owner died (`kill -9`) are reaped when
the next task starts and by `make clean-sandboxes`.

Speed on a small machine: commands and file operations go to a command agent inside the
container over one attached stream (`docker_agent.py`), not a `docker exec` each, and while a
task runs its containers come from a warm pool made ahead (`docker_pool.py`), to which a
finished sample's container returns when it is shown to be as fresh (`docker_reuse.py`). These
keep the semantics of a fresh container per sample and of `docker exec`; see sandboxes/README.md.
"""

from __future__ import annotations

import asyncio
import base64
import errno
import logging
import posixpath
import uuid
from collections.abc import Callable
from typing import Any, Literal, TypeVar, overload

from inspect_ai.util import (
    ExecResult,
    SandboxConnection,
    SandboxEnvironment,
    SandboxEnvironmentConfigType,
    SandboxEnvironmentLimits,
    SandboxUnavailableError,
    SandboxUserUnsupportedError,
    sandboxenv,
)
from pydantic import BaseModel
from typing_extensions import override

from .config import DockerSandboxConfig, resolve_config
from .docker_agent import AgentHandle, ChannelClosedError
from .docker_cleanup import (
    install_exit_handlers,
    reap_orphans,
    reap_orphans_once,
    remove_labelled,
    remove_tracked,
)
from .docker_engine import (
    TASK_SCOPE,
    TRACKED,
    api_client,
    check_ready,
    has_witness,
    remove_container,
)
from .docker_exec import ContainerLostError, exec_by_agent, exec_by_docker, is_engine_error
from .docker_files import (
    ContainerGoneError,
    raise_agent_error,
    read_via_archive,
    write_via_archive,
)
from .docker_io import ExecRequest, b64
from .docker_pool import POOLS, Prepared, discard, give_back_if_fresh, prepare
from .docker_slots import SLOTS
from .model_relay import ModelRelay
from .witness_client import WitnessHandle

logger = logging.getLogger(__name__)

SANDBOX_NAME = "looplab-docker"
_TIMEOUT = "/usr/bin/timeout"  # absolute: it runs before the command, as the exec's user
_KILL_GRACE = "2s"  # after SIGTERM at the timeout, SIGKILL whatever is left
_HOST_SLACK_S = 15  # the in-container timeout must fire first; this only catches a hung engine
_FILE_DEADLINE_S = 120  # a file request the agent has not answered by then means a hung engine
T = TypeVar("T")


@sandboxenv(name=SANDBOX_NAME)
class LooplabDockerSandbox(SandboxEnvironment):
    """A sample's container. Files and exec cwds resolve against the config's `workdir`."""

    kills_process_group_on_cancel = True
    """A cancelled ``exec`` kills its command's process group in the container (the agent does),
    so callers need no kill of their own (see ``evals.adapter.workspace``)."""

    def __init__(
        self,
        container_id: str,
        name: str,
        config: DockerSandboxConfig,
        agent: AgentHandle | None = None,
        prepared: Prepared | None = None,
    ) -> None:
        super().__init__()
        self.container_id = container_id
        self.name = name
        self.config = config
        self.agent = agent or AgentHandle(api_client(), container_id)
        """The container's command agent: commands and file operations go through it."""
        self.prepared = prepared
        """How the container was made (its reuse baseline), when it came from `prepare`."""
        self.released = False
        """Set at sample end: the container may serve another sample now, so this object
        must not reach it any more (a task of the finished sample may still hold it)."""
        self.witness: WitnessHandle | None = None
        """The container's witness, its segment begun for this sample (None: the image has
        none, e.g. a custom image not built on looplab-sandbox)."""
        self.slot: asyncio.Semaphore | None = None
        """The run's sandbox slot this sample holds (`docker_slots`), released at its end."""

    # --- lifecycle (classmethods inspect calls) ------------------------------------------------

    @override
    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return DockerSandboxConfig.model_validate(config)

    @override
    @classmethod
    def default_concurrency(cls) -> int | None:
        # No bound of inspect's: where one is in effect, inspect sleeps every sample a random
        # 0-1 s before its sandbox (docker_slots.py says why that mattered). Our runs bound the
        # containers with `docker_slots.SLOTS` (evals.evaluate); `max_sandboxes` still works.
        return None

    @override
    def default_polling_interval(self) -> float:
        # inspect's base class polls sandbox services (the agent bridge) every 2 s, which put
        # a 2 s floor under every model call of a harness in the container. Our execs go
        # through the in-container command agent and cost a few ms, so poll as inspect's own
        # Docker sandbox does.
        return 0.2

    @override
    @classmethod
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        """Check engine and image (raises SandboxNotReadyError naming what is missing)."""
        resolved = resolve_config(config)
        await asyncio.to_thread(check_ready, resolved.image)
        # Containers of runs that died without cleaning up (kill -9) go before this one starts.
        await asyncio.to_thread(reap_orphans_once)
        TASK_SCOPE.set(uuid.uuid4().hex)
        install_exit_handlers()  # containers are made from here on (the pool starts at once)
        POOLS.acquire(resolved)
        # Containers for the first samples are made while inspect sets up the eval, not when
        # the first sample asks (as many as samples are expected, at most `warm`).
        pool = POOLS.pool_for(resolved, task_name)
        if pool is not None:
            pool.prewarm()

    @override
    @classmethod
    async def sample_init(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, metadata: dict[str, str]
    ) -> dict[str, SandboxEnvironment]:
        """A fresh container for the sample (from the warm pool when a task runs); raises
        SandboxNotReadyError or the engine's error when none can be made."""
        resolved = resolve_config(config)
        install_exit_handlers()
        slot = await SLOTS.take()
        try:
            pool = POOLS.pool_for(resolved, task_name)
            if pool is not None:
                prepared = await asyncio.wrap_future(pool.take())
                TRACKED.add(prepared.container_id, resolved)  # now this task's: scope it
            else:
                prepared = await asyncio.to_thread(prepare, resolved, task_name)
        except BaseException:
            if slot is not None:
                slot.release()
            raise
        environment = cls(prepared.container_id, prepared.name, resolved, prepared.agent, prepared)
        environment.slot = slot
        try:
            if await asyncio.to_thread(has_witness, resolved):
                # A fresh segment per sample (a reused container keeps its witness running);
                # this also waits until a new container's witness watches the workdir.
                witness = WitnessHandle(environment)
                await witness.begin()
                environment.witness = witness
            for path, content in resolved.files:
                await environment.write_file(path, content)
        except BaseException:
            environment._release_slot()
            await asyncio.to_thread(discard, prepared)
            raise
        return {"default": environment}

    @override
    @classmethod
    async def sample_cleanup(
        cls,
        task_name: str,
        config: SandboxEnvironmentConfigType | None,
        environments: dict[str, SandboxEnvironment],
        interrupted: bool,
    ) -> None:
        """Give the container back to its pool when it is shown to be as fresh (see
        `DockerSandboxConfig.reuse`), otherwise remove it."""
        for environment in environments.values():
            if isinstance(environment, LooplabDockerSandbox):
                environment.released = True
                try:
                    if not await environment._recycled(task_name, interrupted):
                        environment.agent.close()
                        if environment.model_relay is not None:
                            environment.model_relay.close()
                        await asyncio.to_thread(remove_container, environment.container_id)
                finally:
                    environment._release_slot()

    @override
    @classmethod
    async def task_cleanup(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, cleanup: bool
    ) -> None:
        """Drain the warm pool, then remove this task's leftover containers (or, with
        `cleanup=False`, stop tracking them so they are kept)."""
        resolved = resolve_config(config)
        # Pooled containers were never a sample's: they go even with --no-sandbox-cleanup.
        await asyncio.to_thread(POOLS.release, resolved)
        if cleanup:
            scope = TASK_SCOPE.get()
            if scope is None:
                # No task scope in this context: removing by config alone could hit another
                # task's live sandboxes. Each sample removes its own; exit hooks catch the rest.
                return
            await asyncio.to_thread(remove_tracked, resolved, True, scope)
            return
        # --no-sandbox-cleanup: the user wants the containers kept, so exit hooks must spare them.
        kept = TRACKED.ids(resolved, TASK_SCOPE.get())
        for container_id in kept:
            TRACKED.discard(container_id)
        if kept:
            logger.warning(
                "looplab-docker: kept %d container(s); remove them with "
                "`inspect sandbox cleanup %s`",
                len(kept),
                SANDBOX_NAME,
            )

    @override
    @classmethod
    async def cli_cleanup(cls, id: str | None) -> None:
        removed = await asyncio.to_thread(remove_labelled, id)
        print(f"{SANDBOX_NAME}: removed {len(removed)} container(s) {' '.join(removed)}".rstrip())
        if id is None:
            orphans = await asyncio.to_thread(reap_orphans)
            print(f"{SANDBOX_NAME}: reaped {len(orphans)} orphaned container(s) of runs that are "
                  f"gone {' '.join(orphans)}".rstrip())

    # --- commands and files ---------------------------------------------------------------------

    @override
    async def exec(
        self,
        cmd: list[str],
        input: str | bytes | None = None,
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        user: str | None = None,
        timeout: int | None = None,
        timeout_retry: bool = True,
        concurrency: bool = True,
    ) -> ExecResult[str]:
        """Run `cmd` as `user`, or as the config's `user` (the unprivileged `agent`) when None:
        internal callers that need root say `user="root"`. Raises TimeoutError (timeout
        expired: the command's process group is killed), SandboxUnavailableError (container
        gone), SandboxUserUnsupportedError (no such user in the image)."""
        self._check_live()
        user = user or self.config.user
        # `timeout -k` ends the command's whole process group inside the container; a host-side
        # deadline alone would leave the processes running there. Exit 124 (TERM worked) or 137
        # (KILL was needed) after the full time means the timeout fired, not the command.
        argv = [_TIMEOUT, "-k", _KILL_GRACE, f"{timeout}s", *cmd] if timeout else list(cmd)
        stdin = input.encode("utf-8") if isinstance(input, str) else input
        request = ExecRequest(
            argv=argv,
            stdin=stdin,
            workdir=self._resolve(cwd) if cwd else self.config.workdir,
            env=env,
            user=user,
            deadline_s=timeout + _HOST_SLACK_S if timeout else None,
            output_limit=SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE,
        )
        try:
            # The agent (root) runs each command as the user asked for; the engine's exec is the
            # fallback where it cannot (no python3 in the image, an agent that keeps dying).
            raw = await exec_by_agent(self.agent, self.container_id, self.name, request)
            if raw is None:
                raw = await asyncio.to_thread(exec_by_docker, self.container_id, request)
        except TimeoutError as err:
            raise TimeoutError(f"Command timed out after {timeout} seconds") from err
        except ContainerLostError as err:
            raise self._unavailable(err) from err
        except Exception as err:
            if is_engine_error(err):
                raise self._unavailable(err) from err
            raise
        if timeout and raw.returncode in (124, 137) and raw.elapsed >= timeout:
            raise TimeoutError(f"Command timed out after {timeout} seconds")
        if raw.truncated:
            # As inspect's own docker sandbox does: keep the tail, say so in the log.
            logger.warning(
                "looplab-docker: output of %r exceeded %s; only its end was kept",
                cmd[:3],
                SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE_STR,
            )
        stdout = raw.stdout.decode("utf-8", errors="replace")
        stderr = raw.stderr.decode("utf-8", errors="replace")
        if user and raw.returncode == 126 and "unable to find user" in stdout + stderr:
            raise SandboxUserUnsupportedError(f"no user {user!r} in sandbox {self.name}")
        return ExecResult(
            success=raw.returncode == 0, returncode=raw.returncode, stdout=stdout, stderr=stderr
        )

    @override
    async def write_file(self, file: str, contents: str | bytes) -> None:
        """Write a file (parents created) as the config's `user`, who then owns it (scenario
        files are the harness's to work on). Raises IsADirectoryError where a directory is,
        PermissionError, SandboxUnavailableError."""
        self._check_live()
        data = contents.encode("utf-8") if isinstance(contents, str) else contents
        path = self._resolve(file)
        reply = await self._agent_call("write", path=path, data=b64(data), user=self.config.user)
        if reply is not None:
            raise_agent_error(reply, path)
            return
        await self._file_op(write_via_archive, self.container_id, path, data)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    @override
    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        """Read a file as the config's `user`, following symlinks. Raises FileNotFoundError,
        IsADirectoryError, PermissionError, OutputLimitExceededError (over inspect's read
        limit), UnicodeDecodeError (text=True and not UTF-8), SandboxUnavailableError."""
        self._check_live()
        path = self._resolve(file)
        limit = SandboxEnvironmentLimits.MAX_READ_FILE_SIZE
        reply = await self._agent_call("read", path=path, limit=limit, user=self.config.user)
        if reply is not None:
            raise_agent_error(reply, path)
            data = base64.b64decode(reply.get("data", ""))
        else:
            data = await self._file_op(read_via_archive, self.container_id, path)
        # Strict decode (UnicodeDecodeError on bad bytes) and newlines kept as they are.
        return data.decode("utf-8") if text else data

    async def rename(self, src: str, dst: str) -> None:
        """Atomically replace `dst` with `src` (one rename(2) in the container; not part of
        inspect's API: harness stores use it for atomic writes). Raises FileNotFoundError,
        PermissionError, OSError, SandboxUnavailableError."""
        self._check_live()
        src_path, dst_path = self._resolve(src), self._resolve(dst)
        reply = await self._agent_call("rename", src=src_path, dst=dst_path,
                                       user=self.config.user)
        if reply is not None:
            raise_agent_error(reply, src_path)
            return
        res = await self.exec(["mv", "-f", "--", src_path, dst_path])
        if not res.success:
            raise OSError(errno.EIO, f"cannot rename over {dst_path}: {res.stderr.strip()}",
                          src_path)

    async def ask(self, socket: str, request: dict[str, Any], tail: int | None) -> dict[str, Any] | None:
        """Ask a root service's Unix socket in the container through the command agent (one
        request, no process started: the witness, ``witness_client``); None when there is no
        agent to ask (the caller then runs the service's own client)."""
        self._check_live()
        return await self._agent_call("ask", socket=socket, request=request, tail=tail)

    @override
    async def connection(self, *, user: str | None = None) -> SandboxConnection:
        user_arg = f"--user {user} " if user else ""
        return SandboxConnection(
            type=SANDBOX_NAME,
            command=f"docker exec -it {user_arg}{self.name} bash -l",
            container=self.name,
        )

    @property
    def model_relay(self) -> ModelRelay | None:
        """The container's model relay (`DockerSandboxConfig.model_relay`): harness specs reach
        the eval's model through it. None when the config asks for none."""
        return self.prepared.relay if self.prepared is not None else None

    # --- helpers ----------------------------------------------------------------------------

    def _release_slot(self) -> None:
        slot, self.slot = self.slot, None  # once, whichever path gets here first
        if slot is not None:
            slot.release()

    async def _recycled(self, task_name: str, interrupted: bool) -> bool:
        """Put the container back in its pool if it may be reused; False: remove it."""
        # An interrupted sample may have left anything half done: never reuse its container.
        if interrupted or self.prepared is None:
            return False
        return await asyncio.to_thread(
            give_back_if_fresh, self.prepared, self.agent, self.config, task_name
        )

    def _check_live(self) -> None:
        if self.released:
            raise SandboxUnavailableError(
                f"sandbox {self.name} was released at the end of its sample"
            )

    def _resolve(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.config.workdir, path))

    async def _agent_call(self, op: str, **fields: Any) -> dict[str, Any] | None:
        """The agent's reply to a file request, or None when the Docker API must do it."""
        for _ in range(2):  # an agent that died (a root command killed it) is started again
            try:
                return await self.agent.call(op, _FILE_DEADLINE_S, **fields)
            except ChannelClosedError:
                continue
        # The Docker API path says whether the container is still there (it cannot reach the
        # tmpfs mounts, see DockerSandboxConfig.tmpfs).
        return None

    async def _file_op(self, fn: Callable[..., T], *args: Any) -> T:
        try:
            return await asyncio.to_thread(fn, *args)
        except ContainerGoneError as err:
            raise self._unavailable(err) from err

    def _unavailable(self, err: Exception) -> SandboxUnavailableError:
        return SandboxUnavailableError(f"sandbox {self.name} is not available: {err}")

