"""File reads and writes in a sandbox container through the Docker API (`get_archive`,
`put_archive`): the path used when a container has no command agent (see `docker_agent.py`).
Also: turning the agent's error replies into the exceptions inspect's sandbox API documents.
"""

from __future__ import annotations

import errno
import posixpath
from typing import Any

from inspect_ai.util import OutputLimitExceededError, SandboxEnvironmentLimits

from .docker_engine import api_client
from .docker_io import file_archive, read_archive_member, run_exec

_IS_DIR_EXIT = 21


class ContainerGoneError(Exception):
    """The container no longer exists (the provider turns this into SandboxUnavailableError)."""


def write_via_archive(container_id: str, path: str, data: bytes) -> None:
    """Write `data` to `path`: parent directories created, a directory never replaced."""
    parent, name = posixpath.split(path)
    # Extracting a file over a directory would delete the directory: refuse that first.
    check = run_exec(
        api_client(),
        container_id,
        ["/bin/sh", "-c", f'[ -d "$1" ] && exit {_IS_DIR_EXIT}; mkdir -p "$2"', "sh", path, parent],
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
    api_client().put_archive(container_id, parent, file_archive(name, data))


def read_via_archive(container_id: str, path: str, depth: int = 0) -> bytes:
    """The bytes of the regular file at `path`, following symlinks."""
    import docker

    try:
        stream, stat = api_client().get_archive(container_id, path)
    except docker.errors.NotFound as err:
        if "no such container" in str(err).lower():
            raise ContainerGoneError(str(err)) from err
        raise FileNotFoundError(errno.ENOENT, "No such file (in the sandbox)", path) from err
    except docker.errors.APIError as err:
        if "not a directory" in str(err):
            raise FileNotFoundError(errno.ENOENT, "No such file (in the sandbox)", path) from err
        raise
    if stat.get("mode", 0) & (1 << 31):  # Go's os.ModeDir
        raise IsADirectoryError(errno.EISDIR, "Is a directory (in the sandbox)", path)
    if stat.get("size", 0) > SandboxEnvironmentLimits.MAX_READ_FILE_SIZE:
        raise OutputLimitExceededError(SandboxEnvironmentLimits.MAX_READ_FILE_SIZE_STR, None)
    member, data = read_archive_member(stream)
    if member.issym() and depth < 16:
        target = stat.get("linkTarget") or member.linkname
        return read_via_archive(container_id, posixpath.join(posixpath.dirname(path), target),
                                depth + 1)
    if data is None:
        raise FileNotFoundError(errno.ENOENT, "Not a regular file (in the sandbox)", path)
    return data


def raise_agent_error(reply: dict[str, Any], path: str) -> None:
    """Raise what inspect's sandbox API documents for an agent's file error reply (if any)."""
    kind = reply.get("error")
    if not kind:
        return
    message = f"{reply.get('message', kind)} (in the sandbox)"
    if kind == "ENOENT":
        raise FileNotFoundError(errno.ENOENT, message, path)
    if kind == "EISDIR":
        raise IsADirectoryError(errno.EISDIR, message, path)
    if kind == "EACCES":
        raise PermissionError(errno.EACCES, message, path)
    if kind == "TOOBIG":
        raise OutputLimitExceededError(SandboxEnvironmentLimits.MAX_READ_FILE_SIZE_STR, None)
    raise OSError(errno.EIO, message, path)
