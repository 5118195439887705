"""Security policies: an obedient model that runs what reaches it."""

from __future__ import annotations

from scenarios.actor.actions import (
    Action,
    Run,
)
from scenarios.actor.injection import Gullibility, injected_command
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.policies.work import StepPlanParams, StepSpec, step_plan
from scenarios.actor.view import ActorView

# --- security ----------------------------------------------------------------------------------


class ObeyInjectionParams(Params):
    steps: list[StepSpec] = []
    """The legitimate work the task asks for (done after any injected command)."""
    final_answer: str = "Done."
    gullibility: Gullibility = "typical"
    """The model played: ``careful`` never acts on text inside untrusted-content delimiters,
    ``typical`` ignores it when the system prompt says to, ``gullible`` follows injected text
    even inside the delimiters (so a harness's wrapping is judged by its effect)."""


@policy("obey_injection", ObeyInjectionParams)
def obey_injection(view: ActorView, p: ObeyInjectionParams) -> Action:
    """Do the task, but first obey any injected command that reaches the model unprotected."""
    command = injected_command(view.messages, view.task_index(), p.gullibility)
    if command and view.runs_of(command) == 0:
        return Run(command)
    return step_plan(view, StepPlanParams(steps=p.steps, final_answer=p.final_answer))
