"""Sprint contract first (seed 004 failure table: "Agent overengineers (adds unrequested features)").

With vague done conditions a model keeps adding what nobody asked for. The seed's answer is a
sprint contract written before coding begins, with explicit acceptance criteria in the task
objects. Here: on a sprint task (``ContractFirstConfig.task_pattern``) every call that changes
something is refused, as a tool result the model reads, until the progress file's current task
has acceptance criteria; the call that records them gets the criteria back, so the model works
against them. Reading is never refused: a contract is written after looking at the code.

Source: seed 004 failure table, "Agent overengineers (adds unrequested features)".
"""

from __future__ import annotations

import posixpath
import re

from harness.controls.base import Control
from harness.discipline_config import ContractFirstConfig
from harness.messages import ToolCall
from harness.prompts import load_prompt
from harness.sessions.files import WorkspaceStore
from harness.sessions.progress import ProgressError, Task, read_progress, select_next_task
from harness.state import RunState
from harness.tools.base import ToolOutcome


def criteria_of(task: Task) -> list[str]:
    """The task's acceptance criteria as a list of non-blank checks."""
    value = task.acceptance_criteria
    items = value if isinstance(value, list) else [value]
    return [str(c).strip() for c in items if str(c).strip()]


def run_task(run: RunState) -> str:
    """The user's message that started this run: the last user message no control wrote."""
    for m in reversed(run.messages):
        if m.role == "user" and m.origin is None:
            return m.content
    return ""


class ContractFirst(Control):
    name = "contract_first"

    def __init__(self, config: ContractFirstConfig) -> None:
        self.config = config
        self._pattern = re.compile(config.task_pattern) if config.task_pattern else None
        self._applies = False
        self._satisfied = False
        self._problem = ""

    async def on_run_start(self, run: RunState) -> None:
        # One control serves every run of its agent; the task and the contract are per run.
        self._satisfied, self._problem = False, ""
        self._applies = self._pattern is None or bool(self._pattern.search(run_task(run)))

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        if not self._applies or self._satisfied or not self._modifies(run, call):
            return None
        if self._writes_contract(run, call) or await self._current_task(run) is not None:
            return None
        run.emit("contract.missing", tool=call.name, problem=self._problem or None)
        problem = f"\n\nThe progress file is not a contract yet: {self._problem}" if self._problem else ""
        text = load_prompt("contract_first_denied.md").format(
            tool=call.name, progress_file=run.config.progress.progress_file, problem=problem,
        )
        return ToolOutcome("denied", text, {"contract_missing": True})

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        if (not self._applies or self._satisfied or outcome.is_error
                or not self._writes_contract(run, call)):
            return outcome
        task = await self._current_task(run)
        if task is None:
            return outcome
        run.emit("contract.recorded", task_id=task.id, criteria=len(criteria_of(task)))
        text = load_prompt("contract_first_recorded.md").format(
            progress_file=run.config.progress.progress_file, title=task.title, id=task.id,
            acceptance_criteria="\n".join(f"- {c}" for c in criteria_of(task)),
        )
        return outcome.with_content(f"{outcome.content.rstrip()}\n\n{text}")

    def _modifies(self, run: RunState, call: ToolCall) -> bool:
        tool = next((t for t in run.tools if t.name == call.name), None)
        # An unknown tool changes nothing: the executor answers it with the available tools.
        return tool is not None and tool.effect != "read_only"

    def _writes_contract(self, run: RunState, call: ToolCall) -> bool:
        """A call that records the contract or the plan (allowed before the contract exists)."""
        if call.name in self.config.allow_tools:
            return True
        path = call.arguments.get("path")
        if not isinstance(path, str) or not path.strip():
            return False
        root = run.workspace.root.rstrip("/") + "/"
        rel = posixpath.normpath(path[len(root):] if path.startswith(root) else path)
        progress = run.config.progress
        return rel in (posixpath.normpath(progress.progress_file),
                       posixpath.normpath(progress.notes_file))

    async def _current_task(self, run: RunState) -> Task | None:
        """The current task when it has acceptance criteria (the contract exists), else None;
        remembers for the rest of the run that the contract exists."""
        try:
            tasks = await read_progress(WorkspaceStore(run.workspace),
                                        run.config.progress.progress_file)
        except ProgressError as e:
            self._problem = str(e)
            return None
        current = select_next_task(tasks or [])
        if current is None or not criteria_of(current):
            self._problem = ("the current task has no acceptance criteria" if current is not None
                             else "" if tasks is None else "it holds no open task")
            return None
        self._satisfied, self._problem = True, ""
        return current
