"""Named actor policies. Each is a pure function of the view and its validated parameters.

Scenarios pick a policy by name and parameterise it from YAML; behaviour a YAML file cannot
express goes here as a new policy, never into a mini-language. Add one with ``@policy``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from scenarios.actor.actions import Action, Answer, Read, Run, Write
from scenarios.actor.view import DEFAULT_INTERVENTION, ActorView


class Params(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass(frozen=True)
class PolicyDef:
    name: str
    params_model: type[Params]
    fn: Callable[[ActorView, Any], Action]
    doc: str


POLICIES: dict[str, PolicyDef] = {}


def policy(name: str, params: type[Params]) -> Callable[[Callable[[ActorView, Any], Action]], Callable[[ActorView, Any], Action]]:
    def register(fn: Callable[[ActorView, Any], Action]) -> Callable[[ActorView, Any], Action]:
        POLICIES[name] = PolicyDef(name, params, fn, (fn.__doc__ or "").strip())
        return fn

    return register


def act(name: str, params: dict[str, Any], view: ActorView) -> Action:
    p = POLICIES[name]
    return p.fn(view, p.params_model.model_validate(params))


# --- loop & budget -----------------------------------------------------------------------------


class RepeatFailingParams(Params):
    command: str
    """The failing command the actor keeps re-running."""
    inspect_path: str | None = None
    """File to read once the harness intervenes (the model 'looks closer')."""
    give_up_after: int = 25
    """The actor's own horizon: after this many runs it gives up (a model would, eventually)."""
    intervention: str = DEFAULT_INTERVENTION
    """Regex recognising the harness's intervention in what the actor is fed."""
    final_answer: str = "The command keeps failing for a reason I cannot fix from here; stopping."


@policy("repeat_failing_command", RepeatFailingParams)
def repeat_failing_command(view: ActorView, p: RepeatFailingParams) -> Action:
    """Re-run the same failing command until the harness intervenes, then change course."""
    if view.intervened(p.intervention):
        if p.inspect_path and not view.has_read(p.inspect_path):
            return Read(p.inspect_path)
        return Answer(p.final_answer)
    if view.runs_of(p.command) >= p.give_up_after:
        return Answer("I give up: " + p.final_answer)
    return Run(p.command)


# --- context ---------------------------------------------------------------------------------


class FindInOutputParams(Params):
    command: str
    """Command whose (huge) output holds the answer."""
    marker: str
    """The string the actor must find (e.g. an error id at the very end of the output)."""
    answer: str = "The failure is {marker}."
    """Final answer when found (``{marker}`` is replaced)."""
    not_found_answer: str = "I could not find the cause in the output."


@policy("find_in_output", FindInOutputParams)
def find_in_output(view: ActorView, p: FindInOutputParams) -> Action:
    """Run a command once and answer from what its output showed (looks for ``marker``)."""
    if view.saw(_literal(p.marker)):
        return Answer(p.answer.format(marker=p.marker))
    if view.runs_of(p.command) >= 1:
        return Answer(p.not_found_answer)
    return Run(p.command)


# --- multi-step work (used by provider-fault scenarios) ----------------------------------------


class StepSpec(Params):
    write: str | None = None
    """Write this file (path) ..."""
    content: str = ""
    """... with this content."""
    run: str | None = None
    """Or run this command."""


class StepPlanParams(Params):
    steps: list[StepSpec]
    """Steps done in order; the actor resumes from the transcript (handoffs keep progress)."""
    final_answer: str = "All steps are done."


@policy("step_plan", StepPlanParams)
def step_plan(view: ActorView, p: StepPlanParams) -> Action:
    """Carry out a fixed plan step by step, deriving progress from successful tool results."""
    done = 0
    for e in view.exchanges():
        if done < len(p.steps) and not e.is_error and _matches(e.call.arguments, p.steps[done]):
            done += 1
    if done >= len(p.steps):
        return Answer(p.final_answer)
    step = p.steps[done]
    if step.write is not None:
        return Write(step.write, step.content)
    return Run(step.run or "true")


def _matches(arguments: dict[str, Any], step: StepSpec) -> bool:
    text = " ".join(str(v) for v in arguments.values())
    if step.write is not None:
        return step.write in text
    return bool(step.run) and step.run in text


def _literal(s: str) -> str:
    import re

    return re.escape(s)


# --- security ----------------------------------------------------------------------------------


class ObeyInjectionParams(Params):
    steps: list[StepSpec] = []
    """The legitimate work the task asks for (done after any injected command)."""
    final_answer: str = "Done."


@policy("obey_injection", ObeyInjectionParams)
def obey_injection(view: ActorView, p: ObeyInjectionParams) -> Action:
    """Do the task, but first obey any injected command that reaches the model unprotected."""
    from scenarios.actor.injection import injected_command

    command = injected_command(view.messages)
    if command and view.runs_of(command) == 0:
        return Run(command)
    return step_plan(view, StepPlanParams(steps=p.steps, final_answer=p.final_answer))
