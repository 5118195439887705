"""Session policies: a model that resumes long work only from what its context tells it."""

from __future__ import annotations

import re

from scenarios.actor.actions import Action, Answer, RawCall
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.policies.work import StepSpec, step_action, steps_done
from scenarios.actor.view import ActorView

CURRENT_TASK = re.compile(r"Current task:.*?\(ID:\s*([\w.-]+)")
IN_PROGRESS = re.compile(r"in[ _-]progress|\bcurrent\b|\bactive\b|\bstarted\b|\bdoing\b|\bwip\b", re.I)
"""How a task's state reads as under way, in a progress file (``"status": "in_progress"``) or a
harness's own summary of it."""


def task_in_progress(text: str, task_ids: list[str]) -> str | None:
    """The task the context shows under way, in whatever form the harness put its session
    state: looplab's ``Current task: ... (ID: X)``, the progress file's JSON as loaded, or a line
    that names the task and says it is under way."""
    if (m := CURRENT_TASK.search(text)) and m.group(1) in task_ids:
        return m.group(1)
    ids = "|".join(re.escape(t) for t in task_ids)
    # JSON objects (a progress file loaded as it is), then lines.
    for chunk in [*re.findall(r"\{[^{}]*\}", text), *text.splitlines()]:
        named = re.findall(rf"(?<![\w.-])({ids})(?![\w.-])", chunk)
        if len(set(named)) == 1 and IN_PROGRESS.search(chunk):
            return named[0]
    return None


class SessionStateParams(Params):
    tasks: dict[str, list[StepSpec]]
    """Task id → the steps that complete it."""
    lost_answer: str = "I have no record of earlier work; which task should I continue?"


@policy("follow_session_state", SessionStateParams)
def follow_session_state(view: ActorView, p: SessionStateParams) -> Action:
    """Continue the task the session state shows under way (in whatever form the harness gave
    it: ``task_in_progress``); without it, ask what to do."""
    text = "\n".join(m.content for m in view.messages if m.role in ("system", "user"))
    task_id = task_in_progress(text, list(p.tasks))
    if task_id is None:
        return Answer(p.lost_answer)
    steps = p.tasks[task_id]
    done = steps_done(view, steps)
    if done < len(steps):
        return step_action(steps[done])
    marked = any(e.call.name == "progress_update" for e in view.exchanges())
    if "progress_update" in view.tool_names and not marked:
        return RawCall("progress_update", {"task_id": task_id, "status": "done"})
    return Answer(f"Task {task_id} is done.")
