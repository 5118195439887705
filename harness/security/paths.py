"""Workspace path confinement (seed 004 ``validate_file_path``).

Model-generated paths are canonicalised before a file tool touches them: ``..`` segments,
absolute paths and symlinks are resolved *inside the workspace* (a ``LocalWorkspace`` with
``Path.resolve``; any other workspace with ``realpath -m`` run there, since the files live there)
and the call is denied when the result leaves the root. Failure to resolve denies too (fail
closed).
"""

from __future__ import annotations

import posixpath
import shlex
from dataclasses import dataclass
from pathlib import Path

from harness.controls.base import Control
from harness.messages import ToolCall
from harness.prompts import load_prompt
from harness.security.config import PathGuardConfig
from harness.state import RunState
from harness.tools.base import ToolOutcome
from harness.workspace import LocalWorkspace, Workspace


@dataclass(frozen=True)
class PathCheck:
    inside: bool
    resolved: str
    """The canonical absolute path (symlinks followed), or a reason when it could not be found."""
    root: str
    """The canonical workspace root."""


async def check_path(workspace: Workspace, path: str) -> PathCheck:
    """Resolve ``path`` (relative to the workspace root) and say whether it stays inside."""
    while isinstance(getattr(workspace, "inner", None), Workspace):
        workspace = workspace.inner  # type: ignore[attr-defined]  # a wrapper (write gate)
    if isinstance(workspace, LocalWorkspace):
        return _check_local(workspace.root, path)
    return await _check_remote(workspace, path)


def _check_local(root: str, path: str) -> PathCheck:
    root_real = Path(root).resolve()
    candidate = Path(path) if Path(path).is_absolute() else Path(root) / path
    resolved = candidate.resolve()  # follows every symlink that exists, lexical for the rest
    inside = resolved == root_real or root_real in resolved.parents
    return PathCheck(inside, str(resolved), str(root_real))


async def _check_remote(workspace: Workspace, path: str) -> PathCheck:
    candidate = posixpath.join(workspace.root, path)
    res = await workspace.exec(
        f"realpath -m -- {shlex.quote(workspace.root)} {shlex.quote(candidate)}", timeout=30,
    )
    lines = res.stdout.splitlines()
    if res.exit_code != 0 or len(lines) != 2:
        reason = f"(could not resolve: {res.output.strip()[:200] or f'exit {res.exit_code}'})"
        return PathCheck(False, reason, workspace.root)
    root_real, resolved = lines
    inside = resolved == root_real or resolved.startswith(root_real.rstrip("/") + "/")
    return PathCheck(inside, resolved, root_real)


class PathGuard(Control):
    name = "path_guard"

    def __init__(self, config: PathGuardConfig) -> None:
        self.tool_args = config.tool_args

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        for arg in self.tool_args.get(call.name, []):
            path = call.arguments.get(arg)
            if not isinstance(path, str) or not path:
                continue  # missing or bad arguments are the tool's own error to report
            check = await check_path(run.workspace, path)
            if check.inside:
                continue
            run.emit("security.path_denied", tool=call.name, path=path, resolved=check.resolved,
                     root=check.root)
            text = load_prompt("security_path_denied.md").format(
                arg=arg, path=path, resolved=check.resolved, root=check.root,
            )
            return ToolOutcome("denied", text, {"path_denied": True, "root": check.root, "path": path})
        return None
