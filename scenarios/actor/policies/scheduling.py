"""Scheduling policies: a model that batches slow searches in one reply, re-checks an unchanged
source again and again, and hands long work to a background sub-agent and then stops.

A search goes through the harness's read-only ``grep`` tool when it offers one, else through
its shell (``grep`` on the command line), so any harness can be driven; only a read-only tool
may share a parallel wave.
"""

from __future__ import annotations

import shlex

from scenarios.actor.actions import Action, Answer, Parallel, RawCall, Run
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.view import ActorView

SEARCH_TOOL = "grep"


def search(view: ActorView, pattern: str, path: str) -> RawCall | Run:
    """One search, by the harness's read-only search tool if it has one."""
    if SEARCH_TOOL in view.tool_names:
        return RawCall(SEARCH_TOOL, {"pattern": pattern, "path": path})
    return Run(f"grep -nE -e {shlex.quote(pattern)} -- {shlex.quote(path)}")


class BatchParams(Params):
    pattern: str
    """What every search looks for."""
    paths: list[str]
    """The sources searched, all in the first reply (each a slow source)."""
    commands: list[str] = []
    """Shell commands (writes) asked for in the same reply, after the searches."""
    final_answer: str = "Searched every source."


@policy("batch_searches", BatchParams)
def batch_searches(view: ActorView, p: BatchParams) -> Action:
    """Ask for all the searches (and a few writes) in one reply, then answer."""
    if view.exchanges():
        return Answer(p.final_answer)
    return Parallel((*(search(view, p.pattern, path) for path in p.paths),
                     *(Run(c) for c in p.commands)))


class RecheckParams(Params):
    pattern: str
    path: str
    """The unchanged source searched again and again with identical arguments."""
    repeats: int = 4
    """Identical searches made in a row (one per reply) before answering."""
    final_answer: str = "The log says the same every time."


@policy("recheck_unchanged", RecheckParams)
def recheck_unchanged(view: ActorView, p: RecheckParams) -> Action:
    """Re-run the identical search ``repeats`` times, whatever the harness answers (models
    re-check what they already know), then answer."""
    if len(view.exchanges()) >= p.repeats:
        return Answer(p.final_answer)
    return search(view, p.pattern, p.path)


class BackgroundParams(Params):
    tool: str = "agent"
    child_task: str
    """The sub-task handed to a background sub-agent."""
    child_marker: str
    """Text that only the child's task contains (harnesses wrap a child's task in their own
    words, so the actor recognises its role by this)."""
    child_steps: int = 30
    """Steps the child works through before it answers."""
    step_command: str
    """The child's command per step; ``{i}`` is the step number."""
    parent_command: str
    """What the parent runs after the spawn, before it answers (e.g. wait for a first sign of
    the child's work, then note the time)."""
    final_answer: str = "Handed off; done here."


@policy("background_handoff", BackgroundParams)
def background_handoff(view: ActorView, p: BackgroundParams) -> Action:
    """Parent: spawn a background sub-agent, run one command, answer (its run ends while the
    child still works). Child: work through many steps, one command each."""
    done = len(view.exchanges())
    if p.child_marker in view.task():
        return Run(p.step_command.format(i=done + 1)) if done < p.child_steps else Answer("All steps done.")
    if done == 0:
        if p.tool not in view.tool_names:
            return Answer("I cannot delegate work here (no sub-agent tool); stopping.")
        return RawCall(p.tool, {"task": p.child_task, "background": True})
    if done == 1:
        return Run(p.parent_command)
    return Answer(p.final_answer)
