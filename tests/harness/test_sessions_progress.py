"""Long-running sessions: progress file, notes, tools, and the state injected at session start."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from harness.config import HarnessConfig, ProgressConfig
from harness.loop import Agent
from harness.sessions.bootstrap import BOOTSTRAP_ORIGIN
from harness.sessions.files import WorkspaceStore
from harness.sessions.progress import (
    TASK_STATUSES,
    ProgressError,
    Task,
    append_note,
    build_session_bootstrap_prompt,
    detect_first_session,
    read_progress,
    select_next_task,
    set_task_status,
)
from harness.sessions.session import Session
from harness.testing import call, scripted
from harness.tools.base import tool_spec
from harness.workspace import LocalWorkspace

TOOLS = ["bash", "read_file", "write_file", "progress_add_task", "progress_update", "notes_append"]
TASKS = [
    {"id": "T1", "title": "Parser", "description": "Parse input", "acceptance_criteria": ["p"],
     "status": "done", "completed_at": "2025-01-01T00:00:00+00:00"},
    {"id": "T2", "title": "Server", "description": "Serve it", "acceptance_criteria": ["curl ok"],
     "status": "todo"},
    {"id": "T3", "title": "Docs", "description": "Write docs", "status": "in_progress"},
]


def _seed(root: Path, tasks: list[dict] = TASKS, notes: str = "") -> WorkspaceStore:
    (root / "agent-progress.json").write_text(json.dumps(tasks))
    if notes:
        (root / "agent-notes.md").write_text(notes)
    return WorkspaceStore(LocalWorkspace(root))


def test_select_next_task_resumes_in_progress_first() -> None:
    tasks = [Task.model_validate(t) for t in TASKS]
    assert select_next_task(tasks).id == "T3"  # type: ignore[union-attr]
    tasks[2].status = "done"
    assert select_next_task(tasks).id == "T2"  # type: ignore[union-attr]
    tasks[1].status = "done"
    assert select_next_task(tasks) is None


def test_first_session_is_the_one_without_a_progress_file(tmp_path: Path) -> None:
    store = WorkspaceStore(LocalWorkspace(tmp_path))
    assert asyncio.run(detect_first_session(store))
    _seed(tmp_path)
    assert not asyncio.run(detect_first_session(store))


def test_set_task_status_rewrites_the_file_atomically(tmp_path: Path) -> None:
    store = _seed(tmp_path)
    task = asyncio.run(set_task_status(store, "agent-progress.json", "T2", "done"))
    assert task.status == "done" and task.completed_at
    data = json.loads((tmp_path / "agent-progress.json").read_text())
    assert [t["status"] for t in data] == ["done", "done", "in_progress"]
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []  # no temp left
    with pytest.raises(ProgressError, match="no task 'T9'.*'T1', 'T2', 'T3'"):
        asyncio.run(set_task_status(store, "agent-progress.json", "T9", "done"))


def test_bad_progress_files_are_named_in_the_error(tmp_path: Path) -> None:
    store = WorkspaceStore(LocalWorkspace(tmp_path))
    (tmp_path / "agent-progress.json").write_text('[{"id": "T1"}]')
    with pytest.raises(ProgressError, match=r"agent-progress.json: task \[0\] field 'title'"):
        asyncio.run(read_progress(store, "agent-progress.json"))
    (tmp_path / "agent-progress.json").write_text("- [ ] markdown list")
    with pytest.raises(ProgressError, match="agent-progress.json: not valid JSON"):
        asyncio.run(read_progress(store, "agent-progress.json"))


def test_bootstrap_prompt_shows_progress_current_task_and_notes_tail(tmp_path: Path) -> None:
    store = _seed(tmp_path, notes="old stuff\n" * 2000 + "## latest\nserver half done\n")
    text = asyncio.run(build_session_bootstrap_prompt(store, ProgressConfig(notes_tail_chars=300)))
    assert "Progress: 1/3 tasks complete." in text
    assert "**Docs** (ID: T3, status: in_progress)" in text
    assert "server half done" in text and text.count("old stuff") < 40


def test_first_session_gets_the_initializer_instructions(tmp_path: Path) -> None:
    store = WorkspaceStore(LocalWorkspace(tmp_path))
    text = asyncio.run(build_session_bootstrap_prompt(store, ProgressConfig()))
    assert "First Session" in text and "progress_add_task" in text


def test_notes_are_append_only(tmp_path: Path) -> None:
    store = WorkspaceStore(LocalWorkspace(tmp_path))
    asyncio.run(append_note(store, "agent-notes.md", "first entry"))
    asyncio.run(append_note(store, "agent-notes.md", "second entry"))
    text = (tmp_path / "agent-notes.md").read_text()
    assert text.index("first entry") < text.index("second entry")
    assert text.count("## ") == 2


def test_the_model_keeps_the_progress_file_with_tools(tmp_path: Path) -> None:
    cfg = HarnessConfig(tools=TOOLS)
    model = scripted(
        [call("progress_add_task", id="T1", title="Build", acceptance_criteria=["make ok"])],
        [call("progress_update", task_id="T1", status="in_progress")],
        [call("progress_update", task_id="T1", status="done")],
        [call("progress_update", task_id="nope", status="done")],
        [call("notes_append", text="Built it; next: docs.")],
        "done",
    )
    result = asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("work"))
    data = json.loads((tmp_path / "agent-progress.json").read_text())
    assert data[0]["status"] == "done" and data[0]["completed_at"]
    assert "next: docs" in (tmp_path / "agent-notes.md").read_text()
    errors = [m.content for m in result.messages if m.role == "tool" and m.is_error]
    assert errors == ["no task 'nope' in " + str(tmp_path / "agent-progress.json") + "; ids: ['T1']"]


def test_progress_tools_redact_when_on(tmp_path: Path) -> None:
    secret = "sk-" + "z" * 40
    cfg = HarnessConfig(tools=TOOLS, progress={"redact": True})
    model = scripted([call("notes_append", text=f"token {secret}")], "done")
    asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("work"))
    assert secret not in (tmp_path / "agent-notes.md").read_text()


def _first_input(cfg: HarnessConfig, root: Path) -> list:
    model = scripted("ok")
    asyncio.run(Agent(cfg, model, LocalWorkspace(root)).run("continue the work"))
    return model.inputs[0]


def test_session_state_is_injected_before_the_task_when_on(tmp_path: Path) -> None:
    _seed(tmp_path)
    sent = _first_input(HarnessConfig(progress={"enabled": True}), tmp_path)
    assert [m.role for m in sent] == ["system", "user", "user"]
    assert sent[1].origin == BOOTSTRAP_ORIGIN and "Progress: 1/3" in sent[1].content
    assert sent[2].content == "continue the work"
    assert "Progress:" not in sent[0].content  # the system prompt stays byte-stable


def test_no_session_state_when_off(tmp_path: Path) -> None:
    _seed(tmp_path)
    sent = _first_input(HarnessConfig(), tmp_path)
    assert [m.role for m in sent] == ["system", "user"]
    assert not any("Progress:" in m.content for m in sent)


def test_injected_once_per_session_also_across_a_resume(tmp_path: Path) -> None:
    _seed(tmp_path)
    cfg = HarnessConfig(progress={"enabled": True}, transcript={"enabled": True})
    ws = LocalWorkspace(tmp_path)

    def count(session: Session) -> int:
        return sum(1 for m in session.history or [] if m.origin == BOOTSTRAP_ORIGIN)

    async def go() -> tuple[int, int, str]:
        s = Session("long", cfg, scripted("a", "b"), ws)
        await s.send("first")
        await s.send("second")
        resumed = Session("long", cfg, scripted("c"), ws)
        await resumed.send("third")
        text = (tmp_path / ".looplab/sessions/long.jsonl").read_text()
        return count(s), count(resumed), text

    in_first, in_resumed, text = asyncio.run(go())
    assert in_first == 1 and in_resumed == 1
    assert text.count("session:state:injected") == 1


def test_the_progress_update_tool_offers_every_task_status() -> None:
    assert tool_spec("progress_update")["parameters"]["properties"]["status"]["enum"] == list(TASK_STATUSES)
