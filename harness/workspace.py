"""The ``Workspace`` protocol (where tools act) and a local-directory implementation.

Implementations: :class:`LocalWorkspace` here; the inspect sandbox adapter in ``evals``.
Paths are relative to the workspace root; confinement (``..``, absolute paths, symlinks) is a
harness control (``harness.security.paths``), not the workspace's job, so it can be switched off
and probed.
"""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path
from typing import Protocol, runtime_checkable

from pydantic import BaseModel


class ExecResult(BaseModel):
    exit_code: int
    stdout: str = ""
    stderr: str = ""
    timed_out: bool = False

    @property
    def output(self) -> str:
        """stdout and stderr as one text, the way a terminal shows them."""
        if self.stderr and self.stdout:
            return f"{self.stdout}\n{self.stderr}" if not self.stdout.endswith("\n") else self.stdout + self.stderr
        return self.stdout or self.stderr


@runtime_checkable
class Workspace(Protocol):
    """Where tools run.

    ``exec`` never raises on a non-zero exit or a timeout: it returns ``timed_out=True`` and
    ``exit_code=124``. ``read_file`` raises ``FileNotFoundError`` (missing) or
    ``IsADirectoryError``; ``write_file`` creates parent directories.
    """

    root: str
    """Absolute path of the working directory inside the workspace."""

    async def exec(self, command: str, timeout: float | None = None) -> ExecResult: ...

    async def read_file(self, path: str) -> str: ...

    async def write_file(self, path: str, content: str) -> None: ...


def innermost(workspace: Workspace) -> Workspace:
    """The workspace under any wrappers (a call's write gate, deadlines): where the files are."""
    while isinstance(getattr(workspace, "inner", None), Workspace):
        workspace = workspace.inner  # type: ignore[attr-defined]
    return workspace


class LocalWorkspace:
    """A directory on this machine. Commands run with ``bash -c`` in that directory.

    This is the 'no Docker' path: commands really run on the host, so scenarios aim their
    destructive probes at canary files inside the workspace only.
    """

    def __init__(self, root: str | Path, env: dict[str, str] | None = None) -> None:
        self.root = str(Path(root).resolve())
        Path(self.root).mkdir(parents=True, exist_ok=True)
        self._env = {**os.environ, **(env or {})}

    def _path(self, path: str) -> Path:
        p = Path(path)
        return p if p.is_absolute() else Path(self.root) / p

    async def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        unusable = _unusable_command(command)
        if unusable:  # no process can be given this text: an error result, not an exception
            return ExecResult(exit_code=2, stderr=f"command not run: {unusable}")
        spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(
            "bash", "-c", command, cwd=self.root, env=self._env,
            stdin=asyncio.subprocess.DEVNULL,  # a command that reads stdin must not wait on ours
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
            start_new_session=True,  # so a timeout can kill the whole process group
        ))
        try:
            # Shielded: a cancel that lands while the process is being created must still get
            # its handle, or the process (and its children) would outlive the interrupt.
            proc = await asyncio.shield(spawn)
        except asyncio.CancelledError:
            proc = await spawn
            _kill_group(proc.pid)
            await proc.wait()
            raise
        try:
            out, err = await asyncio.wait_for(proc.communicate(), timeout=timeout)
        except (TimeoutError, asyncio.CancelledError) as e:
            _kill_group(proc.pid)
            await proc.wait()
            if isinstance(e, asyncio.CancelledError):
                raise
            return ExecResult(exit_code=124, stderr=f"timed out after {timeout}s", timed_out=True)
        return ExecResult(
            exit_code=proc.returncode if proc.returncode is not None else -1,
            stdout=out.decode("utf-8", errors="replace"),
            stderr=err.decode("utf-8", errors="replace"),
        )

    async def read_file(self, path: str) -> str:
        return await asyncio.to_thread(self._path(path).read_text, "utf-8", "replace")

    async def write_file(self, path: str, content: str) -> None:
        def _write() -> None:
            p = self._path(path)
            p.parent.mkdir(parents=True, exist_ok=True)
            # Lone surrogates (model text) cannot be UTF-8: written as escapes, not a crash.
            p.write_text(content, encoding="utf-8", errors="backslashreplace")

        await asyncio.to_thread(_write)

    async def rename(self, src: str, dst: str) -> None:
        """Atomically replace ``dst`` with ``src`` (optional capability: stores use it when a
        workspace has it, else they fall back to ``mv`` through ``exec``)."""
        await asyncio.to_thread(os.replace, self._path(src), self._path(dst))


def _unusable_command(command: str) -> str | None:
    """Why ``command`` cannot be handed to a process (``None`` when it can)."""
    if "\x00" in command:
        return "it contains a NUL byte"
    try:
        command.encode("utf-8")
    except UnicodeEncodeError:
        return "it is not valid Unicode (a lone surrogate)"
    return None


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
