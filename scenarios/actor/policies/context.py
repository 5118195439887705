"""Context policies: huge outputs, long tasks, identifiers that must survive compaction."""

from __future__ import annotations

import re

from scenarios.actor.actions import (
    Action,
    Answer,
    Run,
)
from scenarios.actor.policies.base import Params, policy
from scenarios.actor.summarise import UUID
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
    """Number of items."""
    item_name: str = "item-{n:02d}"
    """The n-th item's name (``str.format`` with ``n`` from 1): the scenario's naming."""
    command: str = "./process.sh {item}"
    give_up_after: int = 90
    final_answer: str = "All items are processed."
    interlude: str | None = None
    """A paged command read in the middle of the batch (after ``interlude_after`` items) until
    ``interlude_end`` appears: it pushes the batch's history out of the recent messages, so
    after compaction only the summary can say how far the batch got."""
    interlude_after: int = 0
    interlude_end: str = "END OF SPEC"


COUNT = re.compile(r"\b(\d+)\s*(?:of|/|out of)\s*(\d+)\b", re.I)
"""A count of the batch as any summary may give it (``7 of 14``, ``7/14``, ``7 out of 14``):
the numbers are read, whatever words are around them."""


@policy("batch_process", BatchParams)
def batch_process(view: ActorView, p: BatchParams) -> Action:
    """Process items in order, saying "processed N of M" as it goes; after compaction it resumes
    from what its context says — so a summary that loses the count makes it start over."""
    def _item(i: int) -> str:
        return p.item_name.format(n=i)

    done: set[int] = set()
    for i in range(1, p.items + 1):
        if view.runs_of(p.command.format(item=_item(i))) > 0:
            done.add(i)
    for text in (m.content for m in view.messages if m.role != "system"):
        for n, total in COUNT.findall(text):
            if int(total) == p.items and int(n) <= p.items:
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
    shape: str = UUID.pattern
    """Regex of the identifier's shape (a UUID by default; any shape a scenario names)."""
    start: str = "./start_job.sh"
    fetch: str = "./fetch_logs.sh"
    end_marker: str = "END OF LOGS"
    finish: str = "./finish_job.sh {id}"
    success: str = "job finished"
    final_answer: str = "The job is finished."


@policy("use_identifier", IdentifierParams)
def use_identifier(view: ActorView, p: IdentifierParams) -> Action:
    """Start a job (its id appears once), read long logs (compaction happens), then finish the
    job with the id as its context now shows it — trying each candidate once."""
    if view.saw(re.escape(p.success)):
        return Answer(p.final_answer)
    shape = re.compile(p.shape)
    text = "\n".join(m.content for m in view.messages)
    candidates = list(dict.fromkeys(m.group(0) for m in shape.finditer(text)))
    if not candidates and view.runs_of(p.start) == 0:
        return Run(p.start)
    if not view.saw(re.escape(p.end_marker)):
        return Run(p.fetch)
    for c in reversed(candidates):
        cmd = p.finish.format(id=c)
        if view.runs_of(cmd) == 0:
            return Run(cmd)
    return Answer("I cannot find a job id that works.")
