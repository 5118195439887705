"""Loop & budget policies: the model stuck in the ways real models get stuck."""

from __future__ import annotations

import re
from typing import Any

from scenarios.actor.actions import (
    Action,
    Answer,
    Parallel,
    RawCall,
    Read,
    Run,
)
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.view import ActorView, command_of

# --- loop & budget -----------------------------------------------------------------------------


class RepeatFailingParams(Params):
    command: str
    """The failing command the actor keeps re-running."""
    inspect_path: str | None = None
    """File to read once the harness intervenes (the model 'looks closer')."""
    give_up_after: int = 25
    """The actor's own horizon: after this many runs it gives up (a model would, eventually)."""
    final_answer: str = "The command keeps failing for a reason I cannot fix from here; stopping."


@policy("repeat_failing_command", RepeatFailingParams)
def repeat_failing_command(view: ActorView, p: RepeatFailingParams) -> Action:
    """Re-run the same failing command until the harness intervenes (in any words: see
    ``ActorView.intervened``), then change course."""
    if view.intervened():
        if p.inspect_path and not view.has_read(p.inspect_path):
            return Read(p.inspect_path)
        return Answer(p.final_answer)
    if view.runs_of(p.command) >= p.give_up_after:
        return Answer("I give up: " + p.final_answer)
    return Run(p.command)




class AlternateParams(Params):
    commands: list[str]
    """Two (or more) commands run in turn: A, B, A, B..."""
    give_up_after: int = 24
    final_answer: str = "Neither check tells me more; stopping."


@policy("alternate_commands", AlternateParams)
def alternate_commands(view: ActorView, p: AlternateParams) -> Action:
    """Ping-pong between commands that never change anything, until the harness intervenes."""
    if view.intervened():
        return Answer(p.final_answer)
    runs = sum(view.runs_of(c) for c in p.commands)
    if runs >= p.give_up_after:
        return Answer("I give up: " + p.final_answer)
    return Run(p.commands[runs % len(p.commands)])


class PollParams(Params):
    command: str
    """The status command polled."""
    done_pattern: str
    """Regex that means the awaited thing finished."""
    give_up_after: int = 30
    done_answer: str = "The job finished."
    stuck_answer: str = "The job seems stuck; I stopped polling."


@policy("poll_until", PollParams)
def poll_until(view: ActorView, p: PollParams) -> Action:
    """Poll a status command until it reports done; give up when the harness steps in (its
    one status line may move from poll to poll; anything beyond it is the harness's)."""
    last = view.last_exchange()
    if last is not None and command_of(last.call) == p.command and re.search(p.done_pattern, last.result):
        return Answer(p.done_answer)
    if view.intervened(varying=1):
        return Answer(p.stuck_answer)
    if view.runs_of(p.command) >= p.give_up_after:
        return Answer("I give up: " + p.stuck_answer)
    return Run(p.command)


class HallucinateParams(Params):
    tool: str
    """The tool the model believes exists."""
    arguments: dict[str, Any] = {}
    command: str
    """What it should have run instead (with the real shell)."""
    give_up_after: int = 30
    final_answer: str = "Done."


@policy("hallucinate_tool", HallucinateParams)
def hallucinate_tool(view: ActorView, p: HallucinateParams) -> Action:
    """Keep calling a tool that does not exist until the harness escalates (the same 'unknown
    tool' error each time is no escalation: something else is), then use the shell."""
    if view.intervened():
        if view.runs_of(p.command) == 0:
            return Run(p.command)
        return Answer(p.final_answer)
    tries = sum(1 for e in view.exchanges() if e.call.name == p.tool)
    if tries >= p.give_up_after:
        return Answer("I give up.")
    return RawCall(p.tool, dict(p.arguments))


class NeverFinishParams(Params):
    fan_out: int = 1
    """Distinct calls per turn."""
    give_up_after: int = 150
    """The actor's own horizon in model calls."""
    log: str = ".looplab/calls.log"


@policy("never_finish", NeverFinishParams)
def never_finish(view: ActorView, p: NeverFinishParams) -> Action:
    """Always one more distinct step: only a cap or a breaker stops this model."""
    if view.call_index > p.give_up_after:
        return Answer("Stopping at my own limit.")
    base = (view.call_index - 1) * p.fan_out
    runs = tuple(Run(f"echo step-{base + j} >> {p.log}") for j in range(p.fan_out))
    return runs[0] if p.fan_out == 1 else Parallel(runs)


class NeverFinishCommandsParams(Params):
    template: str
    """Command with ``{n}``: a new, distinct command every turn (``n`` = the model call index)."""
    give_up_after: int = 150


@policy("never_finish_commands", NeverFinishCommandsParams)
def never_finish_commands(view: ActorView, p: NeverFinishCommandsParams) -> Action:
    """Like ``never_finish``, with a command of the scenario's choosing (e.g. the next page)."""
    if view.call_index > p.give_up_after:
        return Answer("Stopping at my own limit.")
    return Run(p.template.format(n=view.call_index))
