"""Tools the model uses to keep the progress file and the notes (seed 004 long-running sessions).

They keep ``agent-progress.json`` valid JSON by construction (the model never rewrites the file
by hand) and every write is atomic. Offered when their names are in ``HarnessConfig.tools``;
declared in ``harness/prompts/tools.yaml``.
"""

from __future__ import annotations

from typing import Any

from harness.sessions.files import WorkspaceStore, make_redactor
from harness.sessions.progress import (
    ProgressError,
    Task,
    add_task,
    append_note,
    set_task_status,
)
from harness.tools.base import ToolContext, ToolOutcome, register_tools


def _str(args: dict[str, Any], key: str, required: bool = True) -> str:
    value = args.get(key, None if required else "")
    if not isinstance(value, str) or (required and not value.strip()):
        raise ValueError(f"argument {key!r} is required and must be a non-empty string")
    return value


async def _progress_update(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    cfg = ctx.config.progress
    task_id, status = _str(args, "task_id"), _str(args, "status")
    try:
        task = await set_task_status(WorkspaceStore(ctx.workspace), cfg.progress_file, task_id,
                                     status, make_redactor(cfg.redact))
    except (ProgressError, ValueError) as e:
        return ToolOutcome("failure", str(e))
    done = f" at {task.completed_at}" if task.completed_at else ""
    return ToolOutcome("result", f"Task {task.id!r} is now {task.status}{done}.",
                       {"file_path": cfg.progress_file})


async def _progress_add_task(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    cfg = ctx.config.progress
    criteria = args.get("acceptance_criteria", "")
    if not isinstance(criteria, str | list):
        raise ValueError("argument 'acceptance_criteria' must be a string or a list of strings")
    task = Task(id=_str(args, "id"), title=_str(args, "title"),
                description=_str(args, "description", required=False),
                acceptance_criteria=criteria)
    try:
        tasks = await add_task(WorkspaceStore(ctx.workspace), cfg.progress_file, task,
                               make_redactor(cfg.redact))
    except ProgressError as e:
        return ToolOutcome("failure", str(e))
    return ToolOutcome("result", f"Added task {task.id!r} ({len(tasks)} tasks in "
                       f"{cfg.progress_file}).", {"file_path": cfg.progress_file})


async def _notes_append(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    cfg = ctx.config.progress
    await append_note(WorkspaceStore(ctx.workspace), cfg.notes_file, _str(args, "text"),
                      make_redactor(cfg.redact))
    return ToolOutcome("result", f"Appended a note to {cfg.notes_file}.",
                       {"file_path": cfg.notes_file})


register_tools({"progress_update": _progress_update, "progress_add_task": _progress_add_task,
                "notes_append": _notes_append})
