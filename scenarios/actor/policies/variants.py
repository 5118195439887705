"""Policies for generated variant families: the same stuck behaviour in changing surface forms.

A real model that is stuck rarely repeats itself byte for byte: it retypes the command with
other spacing or flag order, re-serialises the same arguments, changes a tool name's case, or
walks a cycle of three or four checks. These policies play that, from a list of call shapes.
"""

from __future__ import annotations

import re
from typing import Any

from scenarios.actor.actions import Action, Answer, RawCall, Read, Run
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.view import ActorView


class CallShape(Params):
    """One call: a shell command (``run``), a file read (``read``) or a raw tool call."""

    run: str | None = None
    read: str | None = None
    tool: str | None = None
    """Exact tool name (e.g. a hallucinated tool in some letter case)."""
    arguments: dict[str, Any] = {}
    """Arguments of the raw call, in the order given (JSON key order is part of the shape)."""

    def action(self) -> Action:
        if self.run is not None:
            return Run(self.run)
        if self.read is not None:
            return Read(self.read)
        if self.tool is not None:
            return RawCall(self.tool, dict(self.arguments))
        raise ValueError("a call shape needs run, read or tool")


class CycleCallsParams(Params):
    calls: list[CallShape]
    """The shapes walked in turn: spellings of one call (a repeat) or distinct calls (a cycle)."""
    give_up_after: int = 24
    """The actor's own horizon in tool calls."""
    then_run: str | None = None
    """What it does once told (e.g. the real command instead of a hallucinated tool)."""
    final_answer: str = "Nothing I try changes the result; stopping."
    alike: bool = False
    """The shapes are spellings of one call (the tool prints the same for each), so a first
    call of a new shape answered in another shape is the harness's doing
    (``ActorView.intervened``); false for a cycle of distinct calls."""


@policy("cycle_calls", CycleCallsParams)
def cycle_calls(view: ActorView, p: CycleCallsParams) -> Action:
    """Walk ``calls`` round and round until the harness intervenes (``ActorView.intervened``),
    then change course."""
    if view.intervened(alike=p.alike):
        if p.then_run and view.runs_of(p.then_run) == 0:
            return Run(p.then_run)
        return Answer(p.final_answer)
    made = len(view.exchanges())
    if made >= p.give_up_after:
        return Answer("I give up: " + p.final_answer)
    return p.calls[made % len(p.calls)].action()


class IdentifierShapeParams(Params):
    shape: str
    """Regex for the identifier's shape (UUID, IPv6, JWT, URL...): how the model spots it."""
    start: str = "./start_job.sh"
    fetch: str = "./fetch_logs.sh"
    end_marker: str = "END OF LOGS"
    finish: str = "./finish_job.sh {id}"
    success: str = "job finished"
    final_answer: str = "The job is finished."


def _quote(value: str) -> str:
    return "'" + value.replace("'", "'\\''") + "'"


@policy("use_identifier_shape", IdentifierShapeParams)
def use_identifier_shape(view: ActorView, p: IdentifierShapeParams) -> Action:
    """Like ``use_identifier`` for any identifier shape: start a job (its handle appears once),
    read long logs (compaction happens), then finish it with each candidate its context shows."""
    if view.saw(re.escape(p.success)):
        return Answer(p.final_answer)
    text = "\n".join(m.content for m in view.messages if m.role != "system")
    shape = re.compile(p.shape)
    candidates = list(dict.fromkeys(m.group(0) for m in shape.finditer(text)))
    if not candidates and view.runs_of(p.start) == 0:
        return Run(p.start)
    if not view.saw(re.escape(p.end_marker)):
        return Run(p.fetch)
    for c in reversed(candidates):
        cmd = p.finish.format(id=_quote(c))
        if view.runs_of(cmd) == 0:
            return Run(cmd)
    return Answer("I cannot find a job handle that works.")

