"""A workspace reached only through ``exec``, for the path-guard tests."""

from __future__ import annotations

from pathlib import Path

from harness import LocalWorkspace
from harness.workspace import ExecResult


class ExecOnlyWorkspace:
    """A workspace that is not a ``LocalWorkspace`` (like a container): guards must resolve
    paths by running ``realpath`` inside it."""

    def __init__(self, root: Path) -> None:
        self._local = LocalWorkspace(root)
        self.root = self._local.root

    async def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        return await self._local.exec(command, timeout)

    async def read_file(self, path: str) -> str:
        return await self._local.read_file(path)

    async def write_file(self, path: str, content: str) -> None:
        await self._local.write_file(path, content)
