"""Runtime policies: a model serving one session that receives several messages or triggers.

The actor works on whichever known task the latest matching user message asks for, so a
harness that serialises a session's messages, triages triggers, or interrupts a run changes
what the actor sees and does next.
"""

from __future__ import annotations

import re

from scenarios.actor.actions import Action, Answer
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.policies.work import StepSpec, _matches, step_action
from scenarios.actor.view import ActorView


class SessionTask(Params):
    pattern: str
    """Regex that recognises the task in a user message (a harness may frame a trigger's payload
    in its own words: only the pattern has to survive)."""
    steps: list[StepSpec]
    """Steps done in order for this task."""
    final_answer: str
    """The answer once the steps are done (judges look for it in the transcript)."""


class SessionTasksParams(Params):
    tasks: list[SessionTask]
    """Known tasks; the first whose pattern matches the latest matching user message is worked."""
    unknown_answer: str = "I do not know what to do with that message."


@policy("session_tasks", SessionTasksParams)
def session_tasks(view: ActorView, p: SessionTasksParams) -> Action:
    """Work on the task named by the latest user message that names one, step by step."""
    found = _latest_task(view, p.tasks)
    if found is None:
        return Answer(p.unknown_answer)
    index, task = found
    done = 0
    results = {m.tool_call_id for m in view.messages[index:] if m.role == "tool" and not m.is_error}
    for m in view.messages[index:]:
        for call in m.tool_calls if m.role == "assistant" else []:
            if done < len(task.steps) and call.id in results and _matches(call.arguments,
                                                                          task.steps[done]):
                done += 1
    if done >= len(task.steps):
        return Answer(task.final_answer)
    return step_action(task.steps[done])


def _latest_task(view: ActorView, tasks: list[SessionTask]) -> tuple[int, SessionTask] | None:
    for i in range(len(view.messages) - 1, -1, -1):
        m = view.messages[i]
        if m.role != "user":
            continue
        for task in tasks:
            if re.search(task.pattern, m.content):
                return i, task
    return None
