"""Session policies: a model that resumes long work only from what its context tells it."""

from __future__ import annotations

import re

from scenarios.actor.actions import Action, Answer, RawCall
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.policies.work import StepSpec, step_action, steps_done
from scenarios.actor.view import ActorView

CURRENT_TASK = re.compile(r"Current task:.*?\(ID:\s*([\w.-]+)")


class SessionStateParams(Params):
    tasks: dict[str, list[StepSpec]]
    """Task id → the steps that complete it."""
    lost_answer: str = "I have no record of earlier work; which task should I continue?"


@policy("follow_session_state", SessionStateParams)
def follow_session_state(view: ActorView, p: SessionStateParams) -> Action:
    """Continue the task the session state names; without it, ask what to do."""
    text = "\n".join(m.content for m in view.messages if m.role in ("system", "user"))
    m = CURRENT_TASK.search(text)
    if not m or m.group(1) not in p.tasks:
        return Answer(p.lost_answer)
    task_id, steps = m.group(1), p.tasks[m.group(1)]
    done = steps_done(view, steps)
    if done < len(steps):
        return step_action(steps[done])
    marked = any(e.call.name == "progress_update" for e in view.exchanges())
    if "progress_update" in view.tool_names and not marked:
        return RawCall("progress_update", {"task_id": task_id, "status": "done"})
    return Answer(f"Task {task_id} is done.")
