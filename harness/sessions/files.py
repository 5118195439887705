"""Where session state is written, and how it is written safely (seed 004: atomic file writes).

Two stores with one small interface:

* :class:`WorkspaceStore` writes through the ``Workspace`` protocol (``write_file`` + ``exec mv``),
  so it works for any workspace — a local directory or a Docker sandbox — and black-box scorers
  find the files where the agent worked.
* :class:`HostStore` writes to a directory on the harness host (``os.replace`` + ``fsync``), for
  state that must outlive a sandbox that is thrown away.

"Atomic" means: write a temp file next to the target, then rename it over the target. A rename on
one filesystem is atomic, so a reader (or a crash) sees the old file or the new one, never half of
one. A crash may leave a stale temp file behind; the next write replaces it.

Stores that can append (``can_append``: the host store, and a workspace store over a plain local
directory) also offer ``append_text``: one ``write`` of whole lines at the end of the file, whose
weaker crash contract (a torn last line) the JSONL transcript is built for
(``harness.sessions.transcript``).
"""

from __future__ import annotations

import asyncio
import os
import shlex
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any, Protocol

from harness.security.redaction import redact
from harness.workspace import LocalWorkspace, Workspace

Redactor = Callable[[str], str]


class FileStore(Protocol):
    """Reads and writes text files for the session machinery; paths are relative to the store."""

    def describe(self, path: str) -> str:
        """A human-readable location (for error messages and logs)."""
        ...

    async def read_text(self, path: str) -> str | None:
        """The file's text, or ``None`` when it does not exist."""
        ...

    async def write_text(self, path: str, text: str, *, atomic: bool = True) -> None:
        """Replace the file's content (creating parent directories)."""
        ...

    @property
    def can_append(self) -> bool:
        """True when ``append_text`` adds to the file without rewriting it."""
        ...

    async def append_text(self, path: str, text: str) -> None:
        """Add ``text`` (whole lines) at the end of the file, creating it (and its directories)."""
        ...


def append_text_durably(target: Path, text: str, *, sync: bool) -> None:
    """One ``write`` of ``text`` at the end of ``target`` (``O_APPEND``); ``sync``: fsync after."""
    data = text.encode("utf-8")
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT
    try:
        fd = os.open(target, flags, 0o644)
    except FileNotFoundError:  # the first append: make the directories (not on every append)
        target.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(target, flags, 0o644)
    try:
        view = memoryview(data)
        while view:  # a short write (a signal) goes on where it stopped
            view = view[os.write(fd, view):]
        if sync:
            os.fsync(fd)
    finally:
        os.close(fd)


def _temp_name(path: str) -> str:
    # Unique per writer, in the same directory as the target (a rename across filesystems is
    # a copy, not atomic).
    p = Path(path)
    return str(p.with_name(f".{p.name}.tmp-{os.getpid()}-{uuid.uuid4().hex[:8]}"))


class HostStore:
    """A directory on the harness host."""

    def __init__(self, root: str | Path) -> None:
        self.root = Path(root).expanduser().resolve()

    def _path(self, path: str) -> Path:
        p = Path(path)
        return p if p.is_absolute() else self.root / p

    def describe(self, path: str) -> str:
        return str(self._path(path))

    async def read_text(self, path: str) -> str | None:
        p = self._path(path)
        try:
            return await asyncio.to_thread(p.read_text, "utf-8", "replace")
        except FileNotFoundError:
            return None

    async def write_text(self, path: str, text: str, *, atomic: bool = True) -> None:
        target = self._path(path)
        if atomic:
            await asyncio.to_thread(atomic_write_text, target, text)
        else:
            def _write() -> None:
                target.parent.mkdir(parents=True, exist_ok=True)
                target.write_text(text, encoding="utf-8")

            await asyncio.to_thread(_write)

    can_append = True

    async def append_text(self, path: str, text: str) -> None:
        # Durable like the atomic write: a host transcript must outlive the machine's crash.
        await asyncio.to_thread(append_text_durably, self._path(path), text, sync=True)


def atomic_write_text(target: Path, text: str) -> None:
    """Write ``text`` to ``target`` atomically and durably (temp file, fsync, rename, fsync dir)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(_temp_name(str(target)))
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, target)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise
    try:  # make the rename itself durable (a power loss could otherwise undo it)
        dir_fd = os.open(target.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    except OSError:
        pass  # some filesystems refuse fsync on directories; the rename is still atomic


class WorkspaceStore:
    """Files inside a ``Workspace`` (paths relative to its root)."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace
        # A plain local directory is appended to directly; a subclass that changes how files are
        # written, or a sandbox, keeps the full rewrite through the protocol.
        self._local_root = (workspace.root if isinstance(workspace, LocalWorkspace) and
                            type(workspace).write_file is LocalWorkspace.write_file else None)

    @property
    def can_append(self) -> bool:
        return self._local_root is not None

    async def append_text(self, path: str, text: str) -> None:
        if self._local_root is None:
            raise OSError(f"{self.describe(path)}: this workspace cannot append; rewrite instead")
        target = Path(path) if path.startswith("/") else Path(self._local_root) / path
        # No fsync: the workspace's own writes are not fsync'ed either (a process crash is the
        # failure this store survives; a power cut is the host store's).
        append_text_durably(target, text, sync=False)

    def describe(self, path: str) -> str:
        return f"{self.workspace.root.rstrip('/')}/{path}" if not path.startswith("/") else path

    async def read_text(self, path: str) -> str | None:
        try:
            return await self.workspace.read_file(path)
        except FileNotFoundError:
            return None

    async def write_text(self, path: str, text: str, *, atomic: bool = True) -> None:
        if not atomic:
            await self.workspace.write_file(path, text)
            return
        tmp = _temp_name(path)
        await self.workspace.write_file(tmp, text)
        rename = getattr(self.workspace, "rename", None)
        if rename is not None:  # a native rename (local workspace): no process per write
            await rename(tmp, path)
            return
        res = await self.workspace.exec(f"mv -f -- {shlex.quote(tmp)} {shlex.quote(path)}",
                                        timeout=30)
        if res.exit_code != 0:
            await self.workspace.exec(f"rm -f -- {shlex.quote(tmp)}", timeout=30)
            raise OSError(f"could not rename {tmp} over {self.describe(path)}: {res.output.strip()}")


def _identity(text: str) -> str:
    return text


NO_REDACTION: Redactor = _identity
"""The redactor ``make_redactor`` returns when redaction is off (callers may skip the walk)."""


def make_redactor(enabled: bool) -> Redactor:
    """``harness.security.redaction.redact`` when ``enabled``, else ``NO_REDACTION``."""
    return redact if enabled else NO_REDACTION


def redact_obj(obj: Any, redact: Redactor) -> Any:
    """``obj`` (JSON-like) with every string in it passed through ``redact`` (structure kept, so
    a replacement can never break the JSON around it)."""
    if isinstance(obj, str):
        return redact(obj)
    if isinstance(obj, dict):
        return {k: redact_obj(v, redact) for k, v in obj.items()}
    if isinstance(obj, list):
        return [redact_obj(v, redact) for v in obj]
    return obj
