"""Time bounds the checklist states (``bound_s``, ``bound``), measured from black-box evidence.

A promise with a bound ("waited out", "stops within seconds", "compaction does not hang") is
judged with it: a verdict that passed on its own terms fails when the measured time is over
the bound. Times come from the actor's observations (``t``: the wall clock when each model call
arrived) and from what the eval's driver recorded; nothing comes from the harness under test.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from evals.judges.evidence import Evidence
from scenarios.schema import Scenario

RETRIABLE = ("rate_limit", "overloaded")
TOLERANCE = 0.9
"""Share of a Retry-After that counts as having waited it out (timer granularity)."""

Measure = tuple[float | None, str]
"""(seconds or None when nothing was measured, what was measured / why it fails)."""


def _next_call(obs: list[dict[str, Any]], i: int, same_role: bool = True) -> dict[str, Any] | None:
    return next((o for o in obs[i + 1:] if "t" in o
                 and (not same_role or o.get("role") == obs[i].get("role"))), None)


def backoff(ev: Evidence, retry_after: dict[str, float]) -> Measure:
    """Longest wait from a retriable fault to the model's next call; a wait shorter than the
    fault's Retry-After is reported as a violation (it was not waited out)."""
    obs = ev.observations
    waits = []
    for i, o in enumerate(obs):
        nxt = _next_call(obs, i)
        if o.get("fault") in RETRIABLE and "t" in o and nxt is not None:
            wait = float(nxt["t"]) - float(o["t"])
            floor = retry_after.get(o["fault"], 0.0) * TOLERANCE
            if wait < floor:
                return None, f"retried {wait:.2f} s after a {o['fault']} that asked for {floor / TOLERANCE:g} s"
            waits.append(wait)
    if not waits:
        return None, "no retry after a rate limit"
    return max(waits), f"longest wait after a {'/'.join(RETRIABLE)} fault"


def give_up(ev: Evidence, retry_after: dict[str, float]) -> Measure:
    """From the first provider fault to the model's last call (when the harness gave up)."""
    timed = [o for o in ev.observations if "t" in o]
    first = next((o for o in timed if o.get("fault")), None)
    if first is None:
        return None, "no provider fault"
    return float(timed[-1]["t"]) - float(first["t"]), "from the first fault to the last model call"


def interrupt(ev: Evidence, retry_after: dict[str, float]) -> Measure:
    """From the user stop to the end of the interrupted run (the driver's record)."""
    d = ev.run.get("driver") or {}
    if "interrupted_at_s" not in d or "first_ended_at_s" not in d:
        return None, "no user stop reached the run"
    return float(d["first_ended_at_s"]) - float(d["interrupted_at_s"]), "from the user stop to the run's end"


def compaction(ev: Evidence, retry_after: dict[str, float]) -> Measure:
    """Longest time from a summary request to the next ordinary model call (the compaction,
    including a summariser that fails and the fallback after it)."""
    obs = ev.observations
    spans = []
    for i, o in enumerate(obs):
        if not o.get("summary_request") or "t" not in o or (i > 0 and obs[i - 1].get("summary_request")):
            continue  # time a compaction from its first summary request
        nxt = next((n for n in obs[i + 1:] if not n.get("summary_request") and "t" in n), None)
        if nxt is not None:
            spans.append(float(nxt["t"]) - float(o["t"]))
    if not spans:
        return None, "no compaction followed by a model call"
    return max(spans), "longest compaction (summary request to the next model call)"


MEASURES: dict[str, Callable[[Evidence, dict[str, float]], Measure]] = {
    "backoff": backoff, "give_up": give_up, "interrupt": interrupt, "compaction": compaction,
}
"""What ``ChecklistItem.bound`` names: the time its ``bound_s`` limits."""


def retry_afters(scenario: Scenario) -> dict[str, float]:
    """Fault kind -> the Retry-After the scenario's schedule advertises (the largest)."""
    out: dict[str, float] = {}
    for f in scenario.faults:
        if f.retry_after is not None:
            out[f.kind] = max(out.get(f.kind, 0.0), f.retry_after)
    return out
