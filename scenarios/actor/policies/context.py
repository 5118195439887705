"""Context policies: huge outputs, long tasks, identifiers that must survive compaction."""

from __future__ import annotations

import re

from scenarios.actor.actions import (
    Action,
    Answer,
    Run,
)
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.summarise import PROGRESS, UUID
from scenarios.actor.view import ActorView

# --- context ---------------------------------------------------------------------------------


class FindInOutputParams(Params):
    command: str
    """Command whose (huge) output holds the answer."""
    marker: str
    """The string the actor must find (e.g. an error id at the very end of the output)."""
    answer: str = "The failure is {marker}."
    """Final answer when found (``{marker}`` is replaced)."""
    not_found_answer: str = "I could not find the cause in the output."
    grep: str | None = None
    """When the output was saved to a file (offload), grep it for this."""


@policy("find_in_output", FindInOutputParams)
def find_in_output(view: ActorView, p: FindInOutputParams) -> Action:
    """Run a command once and answer from what its output showed (looks for ``marker``)."""
    if view.saw(re.escape(p.marker)):
        return Answer(p.answer.format(marker=p.marker))
    if view.runs_of(p.command) == 0:
        return Run(p.command)
    if p.grep:
        for text in reversed(view.feedback_texts()):
            m = SAVED_PATH.search(text)
            if m:
                cmd = f"grep -n -m 5 {p.grep!r} {m.group(1)}"
                if view.runs_of(cmd) == 0:
                    return Run(cmd)
    return Answer(p.not_found_answer)


SAVED_PATH = re.compile(
    r"(?:saved (?:to|in|at)|stored (?:at|in)|written to)"
    r"\s*[`'\"]?((?:/|\.)?[\w./-]*[\w-]\.(?:txt|log|out))", re.I)




class BatchParams(Params):
    items: int
    """Number of items (item-01 ... item-NN)."""
    command: str = "./process.sh {item}"
    give_up_after: int = 90
    final_answer: str = "All items are processed."
    interlude: str | None = None
    """A paged command read in the middle of the batch (after ``interlude_after`` items) until
    ``interlude_end`` appears: it pushes the batch's history out of the recent messages, so
    after compaction only the summary can say how far the batch got."""
    interlude_after: int = 0
    interlude_end: str = "END OF SPEC"


def _item(i: int) -> str:
    return f"item-{i:02d}"


@policy("batch_process", BatchParams)
def batch_process(view: ActorView, p: BatchParams) -> Action:
    """Process items in order, saying "processed N of M" as it goes; after compaction it resumes
    from what its context says — so a summary that loses the count makes it start over."""
    done: set[int] = set()
    for i in range(1, p.items + 1):
        if view.runs_of(p.command.format(item=_item(i))) > 0:
            done.add(i)
    for text in (m.content for m in view.messages if m.role != "system"):
        for n, total in PROGRESS.findall(text):
            if int(total) == p.items:
                done |= set(range(1, int(n) + 1))
    nxt = next((i for i in range(1, p.items + 1) if i not in done), None)
    if nxt is None:
        return Answer(p.final_answer)
    if view.call_index > p.give_up_after:
        return Answer("Stopping: I lost track of the batch.")
    if p.interlude and len(done) >= p.interlude_after and not view.saw(re.escape(p.interlude_end)):
        # Say the count once, when turning to the spec: later pages do not repeat it, so after a
        # compaction only the summary can carry it.
        first = view.runs_of(p.interlude) == 0
        note = f"Processed {len(done)} of {p.items} items; reading the spec first." if first else "Next page."
        return Run(p.interlude, note=note)
    return Run(p.command.format(item=_item(nxt)), note=f"Processed {len(done)} of {p.items} items; next {_item(nxt)}.")


class IdentifierParams(Params):
    start: str = "./start_job.sh"
    fetch: str = "./fetch_logs.sh"
    end_marker: str = "END OF LOGS"
    finish: str = "./finish_job.sh {id}"
    success: str = "job finished"
    final_answer: str = "The job is finished."


@policy("use_identifier", IdentifierParams)
def use_identifier(view: ActorView, p: IdentifierParams) -> Action:
    """Start a job (its UUID appears once), read long logs (compaction happens), then finish the
    job with the UUID as its context now shows it — trying each candidate once."""
    if view.saw(re.escape(p.success)):
        return Answer(p.final_answer)
    candidates = list(dict.fromkeys(UUID.findall("\n".join(m.content for m in view.messages))))
    if not candidates and view.runs_of(p.start) == 0:
        return Run(p.start)
    if not view.saw(re.escape(p.end_marker)):
        return Run(p.fetch)
    for c in reversed(candidates):
        cmd = p.finish.format(id=c)
        if view.runs_of(cmd) == 0:
            return Run(cmd)
    return Answer("I cannot find a job id that works.")
