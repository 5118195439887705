"""The `looplab-docker` inspect sandbox: one locked-down container per sample, on the Docker SDK.

inspect's built-in `docker` sandbox needs Docker Compose v2 and a recent engine; this provider
needs only an engine API. Importing this module registers the sandbox and contacts no engine.
Isolation defaults (no network, all capabilities dropped, no-new-privileges, memory/CPU/pids
limits) live in `DockerSandboxConfig`; containers are removed at sample end, at task end, at
interpreter exit, on SIGINT/SIGTERM, and by `inspect sandbox cleanup looplab-docker [ID]`.
"""

from __future__ import annotations

import asyncio
import errno
import logging
import os
import posixpath
import uuid
from typing import Any, Literal, overload

from inspect_ai.util import (
    ExecResult,
    OutputLimitExceededError,
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
from .docker_cleanup import install_exit_handlers, remove_labelled, remove_tracked
from .docker_engine import (
    TASK_SCOPE,
    TRACKED,
    api_client,
    check_ready,
    create_container,
    remove_container,
)
from .docker_io import file_archive, read_archive_member, run_exec

logger = logging.getLogger(__name__)

SANDBOX_NAME = "looplab-docker"
_TIMEOUT = "/usr/bin/timeout"  # absolute: it runs before the command, as the exec's user
_KILL_GRACE = "2s"  # after SIGTERM at the timeout, SIGKILL whatever is left
_HOST_SLACK_S = 15  # the in-container timeout must fire first; this only catches a hung engine
_IS_DIR_EXIT = 21


@sandboxenv(name=SANDBOX_NAME)
class LooplabDockerSandbox(SandboxEnvironment):
    """A sample's container. Files and exec cwds resolve against the config's `workdir`."""

    def __init__(self, container_id: str, name: str, config: DockerSandboxConfig) -> None:
        super().__init__()
        self.container_id = container_id
        self.name = name
        self.config = config

    # --- lifecycle (classmethods inspect calls) ------------------------------------------------

    @override
    @classmethod
    def config_deserialize(cls, config: dict[str, Any]) -> BaseModel:
        return DockerSandboxConfig.model_validate(config)

    @override
    @classmethod
    def default_concurrency(cls) -> int | None:
        # Same default as inspect's docker sandbox: containers mostly wait on the model.
        return 2 * (os.cpu_count() or 1)

    @override
    @classmethod
    async def task_init(cls, task_name: str, config: SandboxEnvironmentConfigType | None) -> None:
        await asyncio.to_thread(check_ready, resolve_config(config).image)
        TASK_SCOPE.set(uuid.uuid4().hex)

    @override
    @classmethod
    async def sample_init(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, metadata: dict[str, str]
    ) -> dict[str, SandboxEnvironment]:
        resolved = resolve_config(config)
        install_exit_handlers()
        container_id, name = await asyncio.to_thread(create_container, resolved, task_name)
        environment = cls(container_id, name, resolved)
        try:
            for path, content in resolved.files:
                await environment.write_file(path, content)
        except BaseException:
            await asyncio.to_thread(remove_container, container_id)
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
        for environment in environments.values():
            if isinstance(environment, LooplabDockerSandbox):
                await asyncio.to_thread(remove_container, environment.container_id)

    @override
    @classmethod
    async def task_cleanup(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, cleanup: bool
    ) -> None:
        resolved = resolve_config(config)
        if cleanup:
            scope = TASK_SCOPE.get()
            if scope is None:
                # No task scope in this context: removing by config alone could hit another
                # task's live sandboxes. Each sample removes its own; exit hooks catch the rest.
                return
            await asyncio.to_thread(remove_tracked, resolved, True, scope)
            return
        # --no-sandbox-cleanup: the user wants the containers kept, so exit hooks must spare them.
        kept = TRACKED.ids(resolved)
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
        # `timeout -k` ends the command's whole process group inside the container; a host-side
        # deadline alone would leave the processes running there. Exit 124 (TERM worked) or 137
        # (KILL was needed) after the full time means the timeout fired, not the command.
        argv = [_TIMEOUT, "-k", _KILL_GRACE, f"{timeout}s", *cmd] if timeout else list(cmd)
        stdin = input.encode("utf-8") if isinstance(input, str) else input
        try:
            raw = await asyncio.to_thread(
                run_exec,
                api_client(),
                self.container_id,
                argv,
                stdin=stdin,
                workdir=self._resolve(cwd) if cwd else self.config.workdir,
                env=env,
                user=user,
                deadline_s=timeout + _HOST_SLACK_S if timeout else None,
                output_limit=SandboxEnvironmentLimits.MAX_EXEC_OUTPUT_SIZE,
            )
        except TimeoutError as err:
            raise TimeoutError(f"Command timed out after {timeout} seconds") from err
        except Exception as err:
            if _is_engine_error(err):
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
        data = contents.encode("utf-8") if isinstance(contents, str) else contents
        await asyncio.to_thread(self._write_bytes, self._resolve(file), data)

    @overload
    async def read_file(self, file: str, text: Literal[True] = True) -> str: ...

    @overload
    async def read_file(self, file: str, text: Literal[False]) -> bytes: ...

    @override
    async def read_file(self, file: str, text: bool = True) -> str | bytes:
        data = await asyncio.to_thread(self._read_bytes, self._resolve(file))
        # Strict decode (UnicodeDecodeError on bad bytes) and newlines kept as they are.
        return data.decode("utf-8") if text else data

    @override
    async def connection(self, *, user: str | None = None) -> SandboxConnection:
        user_arg = f"--user {user} " if user else ""
        return SandboxConnection(
            type=SANDBOX_NAME,
            command=f"docker exec -it {user_arg}{self.name} bash -l",
            container=self.name,
        )

    # --- helpers (blocking; run in a worker thread) ---------------------------------------------

    def _resolve(self, path: str) -> str:
        return posixpath.normpath(posixpath.join(self.config.workdir, path))

    def _write_bytes(self, path: str, data: bytes) -> None:
        parent, name = posixpath.split(path)
        # Extracting a file over a directory would delete the directory: refuse that first.
        check = run_exec(
            api_client(),
            self.container_id,
            [
                "/bin/sh",
                "-c",
                f'[ -d "$1" ] && exit {_IS_DIR_EXIT}; mkdir -p "$2"',
                "sh",
                path,
                parent,
            ],
            stdin=None,
            workdir="/",
            env=None,
            user=None,
            deadline_s=60,
            output_limit=64 * 1024,
        )
        if check.returncode == _IS_DIR_EXIT:
            raise IsADirectoryError(errno.EISDIR, "Is a directory (in the sandbox)", path)
        if check.returncode != 0:
            message = check.stderr.decode("utf-8", errors="replace").strip()
            raise PermissionError(errno.EACCES, f"cannot create {parent}: {message}", path)
        api_client().put_archive(self.container_id, parent, file_archive(name, data))

    def _read_bytes(self, path: str, depth: int = 0) -> bytes:
        import docker

        try:
            stream, stat = api_client().get_archive(self.container_id, path)
        except docker.errors.NotFound as err:
            if "no such container" in str(err).lower():
                raise self._unavailable(err) from err
            raise FileNotFoundError(errno.ENOENT, "No such file (in the sandbox)", path) from err
        except docker.errors.APIError as err:
            if "not a directory" in str(err):
                raise FileNotFoundError(
                    errno.ENOENT, "No such file (in the sandbox)", path
                ) from err
            raise
        if stat.get("mode", 0) & (1 << 31):  # Go's os.ModeDir
            raise IsADirectoryError(errno.EISDIR, "Is a directory (in the sandbox)", path)
        if stat.get("size", 0) > SandboxEnvironmentLimits.MAX_READ_FILE_SIZE:
            raise OutputLimitExceededError(SandboxEnvironmentLimits.MAX_READ_FILE_SIZE_STR, None)
        member, data = read_archive_member(stream)
        if member.issym() and depth < 16:
            target = stat.get("linkTarget") or member.linkname
            return self._read_bytes(posixpath.join(posixpath.dirname(path), target), depth + 1)
        if data is None:
            raise FileNotFoundError(errno.ENOENT, "Not a regular file (in the sandbox)", path)
        return data

    def _unavailable(self, err: Exception) -> SandboxUnavailableError:
        return SandboxUnavailableError(f"sandbox {self.name} is not available: {err}")


def _is_engine_error(err: Exception) -> bool:
    import docker

    return isinstance(err, docker.errors.DockerException)
