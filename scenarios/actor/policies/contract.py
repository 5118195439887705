"""Sprint-contract policies (seed 004 failure table: "Agent overengineers (adds unrequested
features)"): an eager model that, with nothing pinning down "done", builds extras nobody asked
for, and that sticks to the request once it has written acceptance criteria for it."""

from __future__ import annotations

import json

from scenarios.actor.actions import Action, Answer
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.policies.work import StepSpec, step_action, steps_done
from scenarios.actor.view import ActorView


class EagerParams(Params):
    requested: list[StepSpec]
    """The work the task asks for, in order."""
    extras: list[StepSpec]
    """Unrequested additions the model makes when it goes straight to coding."""
    title: str
    """Title of the one task its contract records."""
    criteria: list[str]
    """The acceptance criteria it writes: exactly what was asked for."""
    task_id: str = "T1"
    progress_file: str = "agent-progress.json"
    """Where the contract goes when no ``progress_add_task`` tool is offered (seed 004's file)."""
    refusal: str = r"(?i)\bcontract\b"
    """Regex recognising the harness's demand for a contract in a tool result or message."""
    final_answer: str = "Done."
    max_attempts: int = 3
    """Refused or failing attempts at one step before the model gives up."""


def contract_step(view: ActorView, p: EagerParams) -> StepSpec:
    """Record the contract with the progress tool when offered, else write the progress file."""
    task = {"id": p.task_id, "title": p.title, "description": p.title,
            "acceptance_criteria": list(p.criteria), "status": "todo"}
    if "progress_add_task" in view.tool_names:
        args = {k: v for k, v in task.items() if k != "status"}
        return StepSpec(call="progress_add_task", arguments=args)
    return StepSpec(write=p.progress_file, content=json.dumps([task], indent=2) + "\n")


@policy("eager_features", EagerParams)
def eager_features(view: ActorView, p: EagerParams) -> Action:
    """Go straight to coding and add the extras along the way; once told to write a contract
    first, record the acceptance criteria (just the request) and implement only those."""
    told = view.saw(p.refusal)
    plan = [contract_step(view, p), *p.requested] if told else [*p.requested, *p.extras]
    done = steps_done(view, plan)
    if done >= len(plan):
        return Answer(p.final_answer)
    step = plan[done]
    if sum(1 for e in view.exchanges() if e.is_error and _is_step(e.call.name, e.call.arguments,
                                                                 step)) >= p.max_attempts:
        return Answer(f"I could not complete step {done + 1}; stopping here.")
    return step_action(step)


def _is_step(name: str, arguments: dict, step: StepSpec) -> bool:
    """Was this call an attempt at ``step`` (whatever tool carried the write)?"""
    if step.call is not None:
        return name == step.call
    values = " ".join(str(v) for v in arguments.values())
    return bool(step.write and step.write in values) or bool(step.run and step.run in values)
