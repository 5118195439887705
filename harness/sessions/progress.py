"""Long-running sessions (seed 004): the progress file, the notes, and the session-state text.

``agent-progress.json`` is a JSON array of tasks (JSON, not Markdown: models destructively
rewrite Markdown lists; a JSON structure is harder to corrupt by accident). ``agent-notes.md`` is
append-only. Every write is atomic (temp file + rename) through a :class:`FileStore`, so the same
code works on a local directory or inside a sandbox.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from harness.config import ProgressConfig
from harness.prompts import load_prompt
from harness.sessions.files import FileStore, Redactor, redact_obj

TaskStatus = Literal["todo", "in_progress", "done"]
TASK_STATUSES: tuple[str, ...] = ("todo", "in_progress", "done")


class Task(BaseModel):
    """One entry of the progress file. Unknown keys are kept (a model may add its own)."""

    model_config = ConfigDict(extra="allow")

    id: str
    title: str
    description: str = ""
    acceptance_criteria: str | list[str] = ""
    status: TaskStatus = "todo"
    completed_at: str | None = None


class ProgressError(ValueError):
    """The progress file exists but is not a valid task list (the message names the file)."""


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def parse_progress(text: str, source: str) -> list[Task]:
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise ProgressError(f"{source}: not valid JSON ({e.msg} at line {e.lineno})") from e
    if not isinstance(data, list):
        raise ProgressError(f"{source}: expected a JSON array of tasks, got {type(data).__name__}")
    tasks = []
    for i, item in enumerate(data):
        try:
            tasks.append(Task.model_validate(item))
        except ValidationError as e:
            err = e.errors()[0]
            field = ".".join(str(x) for x in err["loc"]) or "task"
            raise ProgressError(f"{source}: task [{i}] field {field!r}: {err['msg']}") from e
    ids = [t.id for t in tasks]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise ProgressError(f"{source}: duplicate task id(s) {dupes}")
    return tasks


def dump_progress(tasks: list[Task], redact: Redactor | None = None) -> str:
    data = [t.model_dump(mode="json") for t in tasks]
    if redact is not None:
        data = redact_obj(data, redact)
    return json.dumps(data, indent=2, ensure_ascii=False) + "\n"


async def read_progress(store: FileStore, path: str) -> list[Task] | None:
    """The task list, or ``None`` when the file does not exist yet."""
    text = await store.read_text(path)
    return None if text is None else parse_progress(text, store.describe(path))


async def detect_first_session(store: FileStore, path: str = "agent-progress.json") -> bool:
    """Seed 004: the first session is the one that finds no progress file."""
    return await store.read_text(path) is None


def select_next_task(tasks: list[Task]) -> Task | None:
    """Resume an interrupted (``in_progress``) task first, else the first ``todo`` one."""
    for status in ("in_progress", "todo"):
        for t in tasks:
            if t.status == status:
                return t
    return None


async def set_task_status(store: FileStore, path: str, task_id: str, status: str,
                          redact: Redactor | None = None) -> Task:
    """Change one task's status and write the file atomically. ``done`` stamps ``completed_at``."""
    if status not in TASK_STATUSES:
        raise ValueError(f"status must be one of {list(TASK_STATUSES)}, not {status!r}")
    tasks = await read_progress(store, path)
    if tasks is None:
        raise ProgressError(f"{store.describe(path)} does not exist: add tasks first")
    task = next((t for t in tasks if t.id == task_id), None)
    if task is None:
        raise ProgressError(f"no task {task_id!r} in {store.describe(path)}; "
                            f"ids: {[t.id for t in tasks]}")
    task.status = status  # type: ignore[assignment]
    task.completed_at = _now() if status == "done" else None
    await store.write_text(path, dump_progress(tasks, redact), atomic=True)
    return task


async def add_task(store: FileStore, path: str, task: Task,
                   redact: Redactor | None = None) -> list[Task]:
    """Append a task (creating the file on the first call: the initializer's job)."""
    tasks = await read_progress(store, path) or []
    if any(t.id == task.id for t in tasks):
        raise ProgressError(f"task id {task.id!r} already exists in {store.describe(path)}")
    tasks.append(task)
    await store.write_text(path, dump_progress(tasks, redact), atomic=True)
    return tasks


async def append_note(store: FileStore, path: str, text: str,
                      redact: Redactor | None = None) -> None:
    """Append a dated entry to the notes (append-only: earlier entries are never rewritten)."""
    old = await store.read_text(path) or ""
    sep = "" if not old or old.endswith("\n\n") else ("\n" if old.endswith("\n") else "\n\n")
    entry = f"## {_now()}\n\n{text.strip()}\n"
    if redact is not None:
        entry = redact(entry)
    await store.write_text(path, old + sep + entry, atomic=True)


def read_tail(text: str, max_chars: int) -> str:
    """The last ``max_chars`` characters, starting at a line boundary when one is near."""
    if len(text) <= max_chars:
        return text
    tail = text[-max_chars:]
    nl = tail.find("\n")
    return tail[nl + 1:] if 0 <= nl < 200 else tail


def _criteria(value: str | list[str]) -> str:
    if isinstance(value, list):
        return "\n".join(f"- {c}" for c in value) or "- (none given)"
    return value or "(none given)"


async def build_session_bootstrap_prompt(store: FileStore, config: ProgressConfig) -> str:
    """The text injected at session start (templates in ``harness/prompts/session_*.md``)."""
    names = {"progress_file": config.progress_file, "notes_file": config.notes_file}
    try:
        tasks = await read_progress(store, config.progress_file)
    except ProgressError as e:
        return load_prompt("session_progress_invalid.md").format(error=str(e), **names)
    if tasks is None:
        return load_prompt("session_initializer.md").format(**names)
    current = select_next_task(tasks)
    if current is None:
        current_text = load_prompt("session_all_done.md")
    else:
        current_text = load_prompt("session_task.md").format(
            title=current.title, id=current.id, status=current.status,
            description=current.description or "(none given)",
            acceptance_criteria=_criteria(current.acceptance_criteria),
        )
    notes = await store.read_text(config.notes_file) or ""
    notes_tail = read_tail(notes, config.notes_tail_chars).strip() or "(no notes yet)"
    return load_prompt("session_state.md").format(
        done=sum(1 for t in tasks if t.status == "done"), total=len(tasks),
        current_task=current_text, notes_tail=notes_tail, **names,
    )
