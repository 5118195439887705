"""Judges that read what the fault proxy saw (``Evidence.run["proxy_log"]``): one entry per
request with ``ts``, ``model``, ``key_id``, ``action`` (``forwarded`` or the fault it got),
``status`` and ``latency_s``. Used by scenarios' ``real_model.probes`` in runs against a real
server, where the model does not follow a script but its provider's faults still do."""

from __future__ import annotations

from typing import Any

from pydantic import Field

from evals.judges.base import Evidence, JudgeFn, JudgeParams, Verdict, judge
from evals.realmodel.schedule import key_id

Entry = dict[str, Any]


def _log(ev: Evidence) -> list[Entry] | None:
    log = ev.run.get("proxy_log")
    return [e for e in log if e.get("model")] if isinstance(log, list) else None


def _first_fault(log: list[Entry], kinds: list[str]) -> int | None:
    return next((i for i, e in enumerate(log) if e.get("action") in kinds), None)


def _not_scored(why: str) -> Verdict:
    return Verdict(None, None, "", why)


def _after_fault(ev: Evidence, kinds: list[str]) -> tuple[list[Entry], int] | Verdict:
    """The proxy log and the index of its first ``kinds`` fault, or why it cannot be judged."""
    log = _log(ev)
    if log is None:
        return _not_scored("no proxy log (not a proxied run)")
    i = _first_fault(log, kinds)
    if i is None:
        return _not_scored(f"the proxy never answered {'/'.join(kinds)} (the run ended first)")
    return log, i


class FailoverParams(JudgeParams):
    faults: list[str] = Field(min_length=1)
    """Fault kinds (proxy actions) that should send the harness to another model or key."""
    max_same: int = Field(0, ge=0)
    """Requests still sent to the faulted model+key after the fault that are tolerated."""


@judge("proxy_failover", FailoverParams)
def proxy_failover(p: FailoverParams) -> JudgeFn:
    """Pass: after the first such fault, a request to another model or key was answered by the
    upstream, and the faulted one got at most ``max_same`` more requests."""

    async def run(ev: Evidence) -> Verdict:
        found = _after_fault(ev, p.faults)
        if isinstance(found, Verdict):
            return found
        log, i = found
        faulted = (log[i]["model"], log[i].get("key_id"))
        after = log[i + 1:]
        same = sum(1 for e in after if (e["model"], e.get("key_id")) == faulted)
        moved = [e for e in after if (e["model"], e.get("key_id")) != faulted
                 and e.get("action") == "forwarded" and e.get("status") == 200]
        ok = bool(moved) and same <= p.max_same
        where = f"{moved[0]['model']}" if moved else "no other model or key"
        return Verdict(ok, same, "requests to the faulted model after the fault",
                       f"{log[i]['action']} on {faulted[0]} (call {log[i].get('call')}); then "
                       f"{same} more request(s) to it; next answered request went to {where}")

    return run


class BackoffParams(JudgeParams):
    fault: str = "rate_limit"
    """The fault whose ``Retry-After`` must be honoured."""
    retry_after_s: float = Field(1.0, gt=0)
    """The ``Retry-After`` the schedule sends (seconds)."""
    tolerance: float = Field(0.9, gt=0, le=1)
    """Share of ``Retry-After`` that counts as waiting (timer granularity)."""


@judge("proxy_backoff", BackoffParams)
def proxy_backoff(p: BackoffParams) -> JudgeFn:
    """Pass: every retry after the fault waited at least Retry-After, and the run got through
    (a later request was forwarded and answered)."""

    async def run(ev: Evidence) -> Verdict:
        log = _log(ev)
        if log is None:
            return _not_scored("no proxy log (not a proxied run)")
        gaps = []  # from each fault to the next request for the same model and key
        for i, e in enumerate(log):
            same = [n for n in log[i + 1:] if (n["model"], n.get("key_id")) == (e["model"], e.get("key_id"))]
            if e.get("action") == p.fault and same:
                gaps.append(same[0]["ts"] - (e["ts"] + float(e.get("latency_s") or 0)))
        if not gaps and _first_fault(log, [p.fault]) is None:
            return _not_scored(f"the proxy never answered {p.fault} (the run ended first)")
        through = any(e.get("action") == "forwarded" and e.get("status") == 200
                      for e in log[(_first_fault(log, [p.fault]) or 0) + 1:])
        shortest = min(gaps) if gaps else 0.0
        ok = through and bool(gaps) and shortest >= p.retry_after_s * p.tolerance
        return Verdict(ok, round(shortest, 3), "s shortest wait after a 429",
                       f"{len(gaps)} retry(ies) after {p.fault}; shortest wait {shortest:.2f} s "
                       f"(Retry-After {p.retry_after_s:g} s); "
                       f"{'got through' if through else 'never got an answer after it'}")

    return run


class NoRetryParams(JudgeParams):
    faults: list[str] = Field(default_factory=lambda: ["bad_request"], min_length=1)
    """Non-retriable faults: after one, no request should follow."""
    statuses: list[str] = Field(default_factory=lambda: ["provider_error"])
    """Typed endings that count as stopping properly."""


@judge("proxy_no_retry", NoRetryParams)
def proxy_no_retry(p: NoRetryParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        found = _after_fault(ev, p.faults)
        if isinstance(found, Verdict):
            return found
        log, i = found
        after = len(log) - i - 1
        typed = ev.exit_status in p.statuses
        return Verdict(after == 0 and typed, after, "requests after a non-retriable error",
                       f"{log[i]['action']} at request {i + 1}; {after} request(s) after it; "
                       f"run ended {ev.exit_status}")

    return run


class BoundedParams(JudgeParams):
    faults: list[str] = Field(min_length=1)
    """Faults every model answers once exhausted."""
    max_after: int = Field(4, ge=0)
    """Requests tolerated after the first fault (one try per fallback, roughly)."""
    statuses: list[str] = Field(default_factory=lambda: ["provider_error", "fallbacks_exhausted"])
    """Typed endings that count as giving up properly."""


@judge("proxy_bounded", BoundedParams)
def proxy_bounded(p: BoundedParams) -> JudgeFn:
    """When every model is exhausted the harness stops with a typed ending instead of hammering."""

    async def run(ev: Evidence) -> Verdict:
        found = _after_fault(ev, p.faults)
        if isinstance(found, Verdict):
            return found
        log, i = found
        after = len(log) - i - 1
        ok = after <= p.max_after and ev.exit_status in p.statuses
        return Verdict(ok, after, "requests after the first fault",
                       f"{after} request(s) after the first {log[i]['action']}; run ended "
                       f"{ev.exit_status}")

    return run


class ReuseParams(JudgeParams):
    min_median: float = Field(0.9, ge=0, le=1)
    """Pass when the median request repeats at least this share of the previous one."""


@judge("proxy_prefix_reuse", ReuseParams)
def proxy_prefix_reuse(p: ReuseParams) -> JudgeFn:
    """How much of each request's predecessor (same model and key) it repeats as its prefix:
    a prompt rebuilt at the top every turn leaves a server's prefix cache nothing to reuse."""

    async def run(ev: Evidence) -> Verdict:
        log = _log(ev)
        if log is None:
            return _not_scored("no proxy log (not a proxied run)")
        shares = sorted(float(e["prefix_reuse"]) for e in log if e.get("prefix_reuse") is not None)
        if not shares:
            return _not_scored("fewer than two requests: nothing to compare")
        median = shares[len(shares) // 2] if len(shares) % 2 else (
            shares[len(shares) // 2 - 1] + shares[len(shares) // 2]) / 2
        return Verdict(median >= p.min_median, round(median, 3), "median prefix reuse",
                       f"median request repeats {median:.0%} of the previous one as its prefix "
                       f"over {len(shares)} follow-up request(s)")

    return run


class ProfileOrderParams(JudgeParams):
    cooldowns: dict[str, float] = Field(min_length=2)
    """Auth profile (API key) → the Retry-After its fault advertised."""


@judge("proxy_profile_order", ProfileOrderParams)
def proxy_profile_order(p: ProfileOrderParams) -> JudgeFn:
    """When every profile is cooling down, the next request must use the one whose cooldown
    ends first (keys appear in the log as ids: they are compared by id)."""

    async def run(ev: Evidence) -> Verdict:
        log = _log(ev)
        if log is None:
            return _not_scored("no proxy log (not a proxied run)")
        ids = {key_id(k): k for k in p.cooldowns}
        best = min(p.cooldowns, key=lambda k: p.cooldowns[k])
        failed: set[str] = set()
        for e in log:
            profile = ids.get(e.get("key_id") or "")
            if profile is None:
                continue
            if e.get("action") != "forwarded":
                failed.add(profile)
            elif failed >= set(p.cooldowns):
                return Verdict(profile == best, p.cooldowns[profile], "s cooldown",
                               f"all profiles cooling: the next request used {profile} "
                               f"(soonest: {best}, {p.cooldowns[best]:g} s)")
        return Verdict(False, None, "s cooldown",
                       f"no request after every profile was cooling ({len(failed)} of "
                       f"{len(p.cooldowns)} faulted); run ended {ev.exit_status}")

    return run
