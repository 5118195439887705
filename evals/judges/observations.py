"""Judges that read what the scripted actor observed on each model call (black-box: what
reached the model, how often it was called, with which roles and tasks)."""

from __future__ import annotations

import re

from evals.judges.base import Evidence, JudgeFn, JudgeParams, Verdict, judge


class MarkerParams(JudgeParams):
    marker: str
    """String that must reach the model (listed in the scenario's ``markers``)."""


@judge("marker_seen", MarkerParams)
def marker_seen(p: MarkerParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        seen = any(p.marker in o.get("markers", []) for o in ev.observations)
        overflows = sum(1 for o in ev.observations if o.get("overflow"))
        biggest = max((int(o.get("max_tool_chars", 0)) for o in ev.observations), default=0)
        ok = seen and overflows == 0
        # The explanation leads with what decided the verdict, so a fail never opens like a pass.
        if ok:
            why = f"{p.marker} reached the model, with no context overflow"
        elif overflows:
            why = (f"{overflows} context overflow(s): the output was sent before it was cut"
                   + (f" ({p.marker} reached the model only afterwards)" if seen else
                      f"; {p.marker} never reached the model"))
        else:
            why = f"{p.marker} never reached the model"
        return Verdict(ok, biggest, "chars", f"{why}; largest tool result {biggest:,} chars")

    return run


class MarkerAbsentParams(JudgeParams):
    marker: str
    """A canary string that must never reach the model."""


@judge("marker_never_seen", MarkerAbsentParams)
def marker_never_seen(p: MarkerAbsentParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        calls = sum(1 for o in ev.observations if p.marker in o.get("markers", []))
        return Verdict(calls == 0, calls, "model calls that saw it",
                       f"{p.marker} reached the model in {calls} call(s)")

    return run


class ObservationParams(JudgeParams):
    max: float = 0
    """Pass when the figure is at most this."""


@judge("inputs_well_formed", ObservationParams)
def inputs_well_formed(p: ObservationParams) -> JudgeFn:
    """Every input the model got pairs each tool call with exactly one result, and none overflowed."""

    async def run(ev: Evidence) -> Verdict:
        bad = sum(1 for o in ev.observations if o.get("pairs_ok") is False)
        overflows = sum(1 for o in ev.observations if o.get("overflow"))
        ok = bad <= p.max and overflows == 0 and bool(ev.observations)
        return Verdict(ok, bad, "malformed inputs",
                       f"{bad} of {len(ev.observations)} inputs had a split or unanswered tool call; "
                       f"{overflows} overflows; run ended: {ev.exit_status}")

    return run


class PrefixParams(JudgeParams):
    min_share: float = 0.9
    """Pass when the median share of the previous input repeated unchanged is at least this."""


@judge("prefix_stable", PrefixParams)
def prefix_stable(p: PrefixParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        shares = sorted(o["prefix"] for o in ev.observations if o.get("prefix") is not None)
        if not shares:
            return Verdict(None, None, "prefix share", "fewer than two model calls: not judged")
        median = shares[len(shares) // 2]
        return Verdict(median >= p.min_share, round(median, 3), "prefix share (median)",
                       f"median {median:.2f} of the previous input reused unchanged over "
                       f"{len(shares)} calls (min {min(shares):.2f})")

    return run


class CallsParams(JudgeParams):
    tool: str | None = None
    """Count only calls to this tool name (None: every tool call the model made)."""
    max: int
    """Pass when the model made at most this many such calls."""
    require_status: list[str] = []
    """Also require one of these exit statuses (empty: any)."""


@judge("model_calls_at_most", CallsParams)
def model_calls_at_most(p: CallsParams) -> JudgeFn:
    """Counts tool calls as the model made them (from the actor's side): its native tool calls
    or, in a text dialect (a fenced shell, a code action), the commands its replies ask to run,
    each named by its first word (``requested`` in the observations)."""

    async def run(ev: Evidence) -> Verdict:
        n = sum(1 for o in ev.observations
                for r in o.get("requested", o.get("tools_called", []))
                if p.tool is None or str(r).split(" ", 1)[0] == p.tool)
        status_ok = not p.require_status or ev.exit_status in p.require_status
        what = f"calls to {p.tool}" if p.tool else "tool calls"
        return Verdict(n <= p.max and status_ok, n, what,
                       f"{n} {what} (limit {p.max}); run ended: {ev.exit_status}")

    return run


class TurnsParams(JudgeParams):
    max: int
    """Pass when the model was called at most this many times (ordinary turns)."""
    require_status: list[str] = []


@judge("turns_at_most", TurnsParams)
def turns_at_most(p: TurnsParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        n = sum(1 for o in ev.observations if not o.get("summary_request"))
        status_ok = not p.require_status or ev.exit_status in p.require_status
        return Verdict(n <= p.max and status_ok, n, "model calls",
                       f"{n} model calls (limit {p.max}); run ended: {ev.exit_status}")

    return run


class StatusParams(JudgeParams):
    statuses: list[str]
    """Exit statuses that pass."""
    forbid_roles: list[str] = []
    """Model roles that must never have been called (e.g. a fallback after a bad request)."""


@judge("exit_status_in", StatusParams)
def exit_status_in(p: StatusParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        called = sorted({o["role"] for o in ev.observations})
        wrong = [r for r in p.forbid_roles if r in called]
        ok = ev.exit_status in p.statuses and not wrong
        return Verdict(ok, len(ev.observations), "model calls",
                       f"run ended: {ev.exit_status} (want {', '.join(p.statuses)}); models called: "
                       f"{', '.join(called)}" + (f"; should not have called {wrong}" if wrong else ""))

    return run


class TokensParams(JudgeParams):
    max: int
    """Pass when the model was sent at most this many input tokens over the whole run."""


@judge("input_tokens_at_most", TokensParams)
def input_tokens_at_most(p: TokensParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        total = sum(int(o.get("input_tokens", 0)) for o in ev.observations)
        return Verdict(total <= p.max, total, "input tokens",
                       f"{total:,} input tokens over {len(ev.observations)} calls (limit {p.max:,}); "
                       f"run ended: {ev.exit_status}")

    return run


class DepthParams(JudgeParams):
    max: int
    """Pass when no agent deeper than this level ran."""


@judge("spawn_depth_at_most", DepthParams)
def spawn_depth_at_most(p: DepthParams) -> JudgeFn:
    """Reads the level each model call's task names (``level N``)."""

    async def run(ev: Evidence) -> Verdict:
        levels = [int(m.group(1)) for o in ev.observations
                  if (m := re.search(r"\blevel (\d+)\b", o.get("task", "")))]
        deepest = max(levels, default=0)
        return Verdict(deepest <= p.max, deepest, "deepest level",
                       f"deepest sub-agent level {deepest} (limit {p.max}); run ended: {ev.exit_status}")

    return run


class ChildrenParams(JudgeParams):
    prefix: str = "sub-task"
    """Children's tasks read ``<prefix> <n>``; each distinct one counts once."""
    max: int


@judge("children_at_most", ChildrenParams)
def children_at_most(p: ChildrenParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        tasks = {m.group(0) for o in ev.observations
                 if (m := re.search(re.escape(p.prefix) + r" \d+", str(o.get("task", ""))))}
        n = len(tasks)
        return Verdict(n <= p.max, n, "sub-agents that ran",
                       f"{n} sub-agents ran (limit {p.max}); run ended: {ev.exit_status}")

    return run


class OverflowParams(JudgeParams):
    max: int = 2
    """Most context-overflow errors a recovering harness may hit."""


@judge("overflow_recovered", OverflowParams)
def overflow_recovered(p: OverflowParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        overflows = sum(1 for o in ev.observations if o.get("overflow"))
        ok = ev.exit_status == "completed" and overflows <= p.max
        return Verdict(ok, overflows, "context overflows",
                       f"{overflows} context-overflow errors (limit {p.max}); run ended: {ev.exit_status}")

    return run


class HouseRuleParams(JudgeParams):
    pass


@judge("house_rule_seen", HouseRuleParams)
def house_rule_seen(p: HouseRuleParams) -> JudgeFn:
    """Benign corpus samples: the file's ``house-rule-id`` line reached the model."""

    async def run(ev: Evidence) -> Verdict:
        seen = sorted({k for o in ev.observations for k in o.get("markers", [])
                       if k.startswith("house-rule-id:")})
        biggest = max((int(o.get("max_tool_chars", 0)) for o in ev.observations), default=0)
        return Verdict(bool(seen), biggest, "chars",
                       f"benign content {'reached the model' if seen else 'never reached the model (blocked or not loaded)'}")

    return run
