"""Workspace path confinement (seed 004 ``validate_file_path``).

Source: seed 004, "Validate tool parameters at the registry boundary. Never trust
model-generated file paths without canonicalization" (``validate_file_path``).

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
from harness.workspace import LocalWorkspace, Workspace, innermost


@dataclass(frozen=True)
class PathCheck:
    inside: bool
    resolved: str
    """The canonical absolute path (symlinks followed), or a reason when it could not be found."""
    root: str
    """The canonical workspace root."""


async def check_path(workspace: Workspace, path: str) -> PathCheck:
    """Resolve ``path`` (relative to the workspace root) and say whether it stays inside."""
    root = innermost(workspace).root
    return (await _check(workspace, [(path, shlex.quote(posixpath.join(root, path)))]))[0]


def _check_local(root: str, path: str) -> PathCheck:
    root_real = Path(root).resolve()
    candidate = Path(path) if Path(path).is_absolute() else Path(root) / path
    resolved = candidate.resolve()  # follows every symlink that exists, lexical for the rest
    inside = resolved == root_real or root_real in resolved.parents
    return PathCheck(inside, str(resolved), str(root_real))


async def _check(workspace: Workspace, candidates: list[tuple[str, str]]) -> list[PathCheck]:
    """Each ``(path, shell word)`` resolved inside the workspace: the path on a local workspace,
    the word (one ``realpath`` for all of them) on any other."""
    workspace = innermost(workspace)
    if isinstance(workspace, LocalWorkspace) or not candidates:
        return [_check_local(workspace.root, path) for path, _ in candidates]
    items = " ".join(word for _, word in candidates)
    res = await workspace.exec(f"realpath -m -- {shlex.quote(workspace.root)} {items}", timeout=30)
    lines = res.stdout.splitlines()
    if res.exit_code != 0 or len(lines) != len(candidates) + 1:
        reason = f"(could not resolve: {res.output.strip()[:200] or f'exit {res.exit_code}'})"
        return [PathCheck(False, reason, workspace.root)] * len(candidates)
    root_real = lines[0]
    return [PathCheck(r == root_real or r.startswith(root_real.rstrip("/") + "/"), r, root_real) for r in lines[1:]]


class PathGuard(Control):
    name = "path_guard"

    def __init__(self, config: PathGuardConfig) -> None:
        self.tool_args = config.tool_args
        self.shell_tools = config.shell_tools
        self.shell_allowed = tuple(config.shell_allowed)

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        for arg in self.tool_args.get(call.name, []):
            path = call.arguments.get(arg)
            if not isinstance(path, str) or not path:
                continue  # missing or bad arguments are the tool's own error to report
            check = await check_path(run.workspace, path)
            if not check.inside:
                return _denied(run, call, arg, path, check, FILE_TOOL_RULE)
        command = call.arguments.get(self.shell_tools.get(call.name, ""))
        if isinstance(command, str) and command.strip():
            from harness.shell.file_args import file_words  # bashlex only when this is on

            found = [(cwd, w, kind) for cwd, w, kind in file_words(command, _root(run.workspace)) if not self._allowed(w)]
            words = [(cwd, w) for cwd, w, _ in found]
            for (_, word, kind), check in zip(found, await check_shell_paths(run.workspace, words), strict=True):
                if not check.inside:
                    arg = f"{self.shell_tools[call.name]} (file argument {word!r})"
                    return _denied(run, call, arg, word, check, kind)
        return None

    def _allowed(self, word: str) -> bool:
        return any(word == p or (p.endswith("/") and word.startswith(p)) for p in self.shell_allowed)


def _root(workspace: Workspace) -> str:
    """The root as the shell sees it (``$PWD`` at the start of a command line)."""
    return str(innermost(workspace).root)


FILE_TOOL_RULE = "file-tool-path"
"""The rule (``harness/rules/paths.yaml``) a file tool's path outside the workspace breaks; a shell
command's word breaks the rule named by how it names the file (``harness.shell.file_args``)."""


def _denied(run: RunState, call: ToolCall, arg: str, path: str, check: PathCheck, rule: str) -> ToolOutcome:
    run.emit("security.path_denied", tool=call.name, path=path, resolved=check.resolved, root=check.root, rule=rule)
    text = load_prompt("security_path_denied.md").format(
        arg=arg, path=path, resolved=check.resolved, root=check.root,
    )
    return ToolOutcome("denied", text, {"path_denied": True, "root": check.root, "path": path, "path_rule": rule})


async def check_shell_paths(workspace: Workspace, words: list[tuple[str, str]]) -> list[PathCheck]:
    """Each ``(cwd, word)`` of a shell command resolved inside the workspace (one ``realpath``
    for all of them on a remote workspace). ``~`` is the workspace's home directory."""
    root = innermost(workspace).root
    words = [(cwd, posixpath.join(cwd, w[3:]) if w in ("~+", "~+/") or w.startswith("~+/") else w) for cwd, w in words]
    return await _check(workspace, [(_local_candidate(cwd, w), _remote_candidate(root, cwd, w)) for cwd, w in words])


def _local_candidate(cwd: str, word: str) -> str:
    """``word`` from ``cwd``, ``~`` expanded; ``/`` (outside: fail closed) for a home this
    machine does not know (``~-``, ``~nosuchuser``). Bash's ``~+`` (the current directory) is
    read as ``cwd`` before."""
    try:
        if word.startswith("~"):
            return str(Path(word).expanduser())
        base = str(Path(cwd).expanduser()) if cwd.startswith("~") else cwd
    except RuntimeError:
        return "/"
    return posixpath.join(base, word)


def _remote_candidate(root: str, cwd: str, word: str) -> str:
    if word.startswith("~"):
        return '"$HOME"' + shlex.quote(word[1:] or "/")
    if cwd.startswith("~"):
        return '"$HOME"' + shlex.quote(posixpath.join(cwd[1:] or "/", word))
    return shlex.quote(posixpath.join(root, cwd, word))
