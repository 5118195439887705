"""Ordinary multi-step work: the task the scenario is really about, derived from the transcript."""

from __future__ import annotations

from typing import Any

from scenarios.actor.actions import (
    Action,
    Answer,
    Empty,
    Parallel,
    RawCall,
    Read,
    Run,
    ThoughtOnly,
    Write,
)
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.view import ActorView

# --- multi-step work (used by provider-fault scenarios) ----------------------------------------


class StepSpec(Params):
    write: str | None = None
    """Write this file (path) ..."""
    content: str = ""
    """... with this content."""
    run: str | None = None
    """Or run this command."""
    read: str | None = None
    """Or read this file."""
    call: str | None = None
    """Or call this tool by name (with ``arguments``), offered or not."""
    arguments: dict[str, Any] = {}


class StepPlanParams(Params):
    steps: list[StepSpec]
    """Steps done in order; the actor resumes from the transcript (handoffs keep progress)."""
    final_answer: str = "All steps are done."
    lead_in: int = 0
    """Reply empty (``empty``) or with thoughts only (``thought``) on this many first calls."""
    lead_in_kind: str = "empty"
    max_attempts: int = 3
    """Attempts at one step before the model gives up (a denied or failing step)."""


@policy("step_plan", StepPlanParams)
def step_plan(view: ActorView, p: StepPlanParams) -> Action:
    """Carry out a fixed plan step by step, deriving progress from successful tool results."""
    if view.call_index <= p.lead_in:
        return Empty() if p.lead_in_kind == "empty" else ThoughtOnly("Let me think about the plan...")
    done = steps_done(view, p.steps)
    if done >= len(p.steps):
        return Answer(p.final_answer)
    failed = sum(1 for e in view.exchanges() if e.is_error and _matches(e.call.arguments, p.steps[done]))
    if failed >= p.max_attempts:
        return Answer(f"I could not complete step {done + 1}; stopping here.")
    return step_action(p.steps[done])


def steps_done(view: ActorView, steps: list[StepSpec], allow_errors: bool = False) -> int:
    """How many leading steps have a matching (successful) exchange, in order."""
    done = 0
    for e in view.exchanges():
        if done < len(steps) and (allow_errors or not e.is_error) and _matches(e.call.arguments, steps[done]):
            done += 1
    return done


def step_action(step: StepSpec) -> Action:
    if step.write is not None:
        return Write(step.write, step.content)
    if step.read is not None:
        return Read(step.read)
    if step.call is not None:
        return RawCall(step.call, dict(step.arguments))
    return Run(step.run or "true")


def _matches(arguments: dict[str, Any], step: StepSpec) -> bool:
    text = " ".join(str(v) for v in arguments.values())
    if step.write is not None:
        return step.write in text
    if step.read is not None:
        return step.read in text
    if step.call is not None:
        return all(str(v) in text for v in step.arguments.values())
    return step.run is not None and step.run in text


class ParallelParams(Params):
    calls: list[StepSpec]
    """Tool actions requested together in the first reply."""
    final_answer: str = "Done."


@policy("parallel_then_answer", ParallelParams)
def parallel_then_answer(view: ActorView, p: ParallelParams) -> Action:
    """One reply with several tool calls (some may fail), then an answer."""
    if view.exchanges():
        return Answer(p.final_answer)
    return Parallel(tuple(step_action(s) for s in p.calls))  # type: ignore[misc]


class FixOnFeedbackParams(Params):
    first: list[StepSpec]
    """The first (flawed) actions."""
    feedback: str
    """Regex recognising corrective feedback from the harness (lint errors, a blocked commit)."""
    fix: StepSpec
    """What the model does once told."""
    then: StepSpec | None = None
    """An action to repeat after the fix (e.g. the commit)."""
    final_answer: str = "Done."


@policy("fix_on_feedback", FixOnFeedbackParams)
def fix_on_feedback(view: ActorView, p: FixOnFeedbackParams) -> Action:
    """Act, and correct course only if the harness reports a problem (it never checks itself)."""
    plan = list(p.first)
    if view.saw(p.feedback):
        plan += [p.fix] + ([p.then] if p.then else [])
    done = steps_done(view, plan, allow_errors=True)
    return step_action(plan[done]) if done < len(plan) else Answer(p.final_answer)
