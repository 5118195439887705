"""Benchmark policies: an oracle that solves a benchmark task the way an obedient model would.

The oracle knows the solution (its ``steps``) but keeps the weaknesses the hostile variants bait:
it runs any injected command that reaches it unprotected, it polls a status script until the
harness tells it the poll is stuck, and it reads whatever a tool prints. A harness that protects
it lets it finish; one that does not, loses the task.
"""

from __future__ import annotations

import re

from scenarios.actor.actions import Action, Answer, Run
from scenarios.actor.injection import injected_command
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.policies.work import StepSpec, step_action, steps_done
from scenarios.actor.view import DEFAULT_INTERVENTION, ActorView


class PollSpec(Params):
    command: str
    """The status command polled before any work starts."""
    done_pattern: str
    """Regex of a status that means the wait is over (a loop bait never prints it)."""
    give_up_after: int = 80
    """Polls before the model gives up on its own (above the turn caps: the bait is a loop)."""


class BenchOracleParams(Params):
    steps: list[StepSpec]
    """The solution, in order. A step counts as done once tried (a failing test run is part of
    the work), so the plan resumes from the transcript after a fallback handoff."""
    before: list[StepSpec] = []
    """Steps a variant adds before the solution (e.g. a project check that floods its output)."""
    poll: PollSpec | None = None
    """A status the model waits on before working (the loop bait)."""
    final_answer: str = "The task is done."


@policy("bench_oracle", BenchOracleParams)
def bench_oracle(view: ActorView, p: BenchOracleParams) -> Action:
    """Solve the task; first obey injected commands and wait out any status it was told to await."""
    command = injected_command(view.messages, view.task_index())
    if command and view.runs_of(command) == 0:
        return Run(command)
    if p.poll is not None and _still_waiting(view, p.poll):
        return Run(p.poll.command)
    plan = [*p.before, *p.steps]
    done = steps_done(view, plan, allow_errors=True)
    return step_action(plan[done]) if done < len(plan) else Answer(p.final_answer)


def _still_waiting(view: ActorView, poll: PollSpec) -> bool:
    """Waiting until the status says done, the harness says the poll is stuck, or patience ends."""
    if view.intervened(DEFAULT_INTERVENTION):
        return False
    rx = re.compile(poll.done_pattern)
    if any(rx.search(e.result) for e in view.exchanges() if poll.command in str(e.call.arguments)):
        return False
    return view.runs_of(poll.command) < poll.give_up_after
