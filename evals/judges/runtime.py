"""Judges for runtime controls: interrupts, serialised sessions, trigger triage, bootstrap text,
auth-profile order. Evidence is black-box: the sandbox, what the actor observed, and what the
eval's driver delivered (``run["driver"]``: a harness that accepts no user stop or trigger is
judged as it ran)."""

from __future__ import annotations

import json
import re
from typing import Any

from evals.judges.base import Evidence, JudgeFn, JudgeParams, Verdict, judge
from evals.judges.builtin import _read


def _driver(ev: Evidence) -> dict[str, Any]:
    return dict(ev.run.get("driver") or {})


class StopParams(JudgeParams):
    max_s: float
    """Pass when the run ended at most this many seconds after the user stop."""
    finished_marker: str | None = None
    """File the long command writes when it completes: present means it was not stopped."""


@judge("stopped_after_interrupt", StopParams)
def stopped_after_interrupt(p: StopParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        d = _driver(ev)
        if "interrupted_at_s" not in d or "first_ended_at_s" not in d:
            return Verdict(False, None, "s", "no user stop reached the run (it ended first, or the "
                           f"harness takes none); run ended: {ev.exit_status}")
        took = round(d["first_ended_at_s"] - d["interrupted_at_s"], 2)
        finished = p.finished_marker is not None and await _read(ev, p.finished_marker) is not None
        ok = took <= p.max_s and not finished
        why = (f"run ended {took}s after the user stop (limit {p.max_s}s); the long command "
               f"{'ran to completion' if finished else 'did not complete'}; run ended: {ev.exit_status}")
        return Verdict(ok, took, "s", why)

    return run


class SerialisedParams(JudgeParams):
    transcript_glob: str = ".looplab/sessions/*.jsonl"
    """Where the harness persists the session transcript (JSONL, one message per line)."""
    tasks: list[str]
    """Regex per message sent to the session: each must appear as a user message."""
    answers: list[str]
    """Final answer per message (same order): each must appear in an assistant message."""


def _pairing_problems(messages: list[dict[str, Any]]) -> int:
    """Assistant tool calls not answered by the messages right after them (interleaved work)."""
    problems, pending = 0, set()
    for m in messages:
        if m.get("role") == "tool":
            if m.get("tool_call_id") in pending:
                pending.discard(m.get("tool_call_id"))
            else:
                problems += 1  # an answer to a call that is not the one in progress
            continue
        problems += len(pending)  # calls left unanswered when something else came in between
        pending = {c.get("id") for c in m.get("tool_calls") or []} if m.get("role") == "assistant" else set()
    return problems + len(pending)


def _overlap_problems(messages: list[dict[str, Any]], tasks: list[str], answers: list[str]) -> int:
    """Another message's task arriving between a task and its final answer (interleaved runs)."""
    problems, open_task = 0, None
    for m in messages:
        text = str(m.get("content") or "")
        if m.get("role") == "user":
            hit = next((i for i, t in enumerate(tasks) if re.search(t, text)), None)
            if hit is not None:
                problems += open_task is not None and open_task != hit
                open_task = hit
        elif m.get("role") == "assistant" and open_task is not None and answers[open_task] in text:
            open_task = None
    return problems


@judge("transcript_serialised", SerialisedParams)
def transcript_serialised(p: SerialisedParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        res = await ev.workspace.exec(f"cat -- {p.transcript_glob} 2>/dev/null", timeout=60)
        lines = [line for line in res.stdout.splitlines() if line.strip()]
        if not lines:
            return Verdict(False, None, "problems", f"no transcript at {p.transcript_glob}; "
                           f"run ended: {ev.exit_status}")
        torn, records = 0, []
        for line in lines:
            try:
                records.append(json.loads(line))
            except json.JSONDecodeError:
                torn += 1
        messages = [r for r in records if isinstance(r, dict) and "role" in r]
        texts = {r: [str(m.get("content") or "") for m in messages if m.get("role") == r]
                 for r in ("user", "assistant")}
        missing = sum(not any(re.search(t, x) for x in texts["user"]) for t in p.tasks)
        missing += sum(not any(a in x for x in texts["assistant"]) for a in p.answers)
        pairing = _pairing_problems(messages)
        overlap = _overlap_problems(messages, p.tasks, p.answers)
        problems = torn + missing + pairing + overlap
        why = (f"{len(messages)} messages; torn lines {torn}, missing tasks/answers {missing}, "
               f"calls interrupted by other work {pairing}, runs interleaved {overlap}; "
               f"runs: {_driver(ev).get('runs', 'none')}")
        return Verdict(problems == 0, problems, "problems", why)

    return run


class TriageParams(JudgeParams):
    trigger: str
    """The trigger type the driver delivered (e.g. ``heartbeat``)."""
    counter_file: str
    """File the trigger's work appends a line to per execution."""
    max: int = 0
    """Executions of the trigger's work that pass (0: noise never starts a run)."""
    required_files: list[str] = []
    """Files the user's own task must still produce (triage never drops a human's message)."""


@judge("triggers_triaged", TriageParams)
def triggers_triaged(p: TriageParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        delivered = _driver(ev).get("delivered", [])
        if p.trigger not in delivered:
            return Verdict(False, None, "executions",
                           f"no {p.trigger} trigger was delivered (the harness takes none)")
        text = await _read(ev, p.counter_file)
        count = 0 if text is None else len([x for x in text.splitlines() if x.strip()])
        present = [f for f in p.required_files if await _read(ev, f) is not None]
        ok = count <= p.max and len(present) == len(p.required_files)
        why = (f"{p.trigger} work ran {count} times (limit {p.max}); user task files "
               f"{len(present)}/{len(p.required_files)}; runs: {_driver(ev).get('runs')}")
        return Verdict(ok, count, "executions", why)

    return run


class MarkerCallsParams(JudgeParams):
    marker: str
    """A string of the scenario's ``markers`` (e.g. a token inside BOOTSTRAP.md)."""
    min: int = 1
    """It must reach the model at least this often (it was delivered at all)."""
    max: int = 1
    """... and at most this often (not re-injected on every call)."""


@judge("marker_calls_between", MarkerCallsParams)
def marker_calls_between(p: MarkerCallsParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        calls = [o for o in ev.observations if not o.get("summary_request") and "markers" in o]
        count = sum(1 for o in calls if p.marker in o["markers"])
        ok = p.min <= count <= p.max
        why = (f"{p.marker!r} reached the model on {count} of {len(calls)} calls "
               f"(expected {p.min}..{p.max}); run ended: {ev.exit_status}")
        return Verdict(ok, count, "calls", why)

    return run


class ProfileOrderParams(JudgeParams):
    role: str
    """The model role whose auth profiles rotate (``backup`` for ``scripted/backup@<key>``)."""
    cooldowns: dict[str, float]
    """Profile key -> the cooldown its scheduled fault asks for (``retry_after``)."""


@judge("profile_after_cooldowns", ProfileOrderParams)
def profile_after_cooldowns(p: ProfileOrderParams) -> JudgeFn:
    """When every profile is cooling, the next call must use the one whose cooldown ends first."""

    async def run(ev: Evidence) -> Verdict:
        calls = [o for o in ev.observations if o.get("role") == p.role and o.get("profile")]
        failed: set[str] = set()
        for o in calls:
            if o.get("fault"):
                failed.add(o["profile"])
                continue
            if failed >= set(p.cooldowns):
                chosen = o["profile"]
                best = min(p.cooldowns, key=lambda k: p.cooldowns[k])
                wait = p.cooldowns.get(chosen)
                return Verdict(chosen == best, wait, "s cooldown",
                               f"all profiles cooling: the next call used {chosen} (cooldown "
                               f"{wait}s; soonest: {best}, {p.cooldowns[best]}s); "
                               f"run ended: {ev.exit_status}")
        order = [f"{o['profile']}{'!' if o.get('fault') else ''}" for o in calls]
        return Verdict(False, None, "s cooldown",
                       f"no call after every profile was cooling (calls: {order or 'none'}); "
                       f"run ended: {ev.exit_status}")

    return run


class UserFirstParams(JudgeParams):
    user_task: str
    """Regex on the text of the user's message that arrives while the session is busy."""
    background: list[str] = ["cron", "heartbeat"]
    """Triggers that count as background work (no human waiting)."""


@judge("user_before_background", UserFirstParams)
def user_before_background(p: UserFirstParams) -> JudgeFn:
    """Pass when no background run finished ahead of the waiting user's run (a background
    trigger answered without a run, e.g. dropped by triage, does not count)."""

    async def run(ev: Evidence) -> Verdict:
        runs = _driver(ev).get("runs", [])
        user = next((i for i, r in enumerate(runs) if r["trigger"] == "user"
                     and re.search(p.user_task, r.get("message", ""))), None)
        if user is None:
            return Verdict(False, None, "runs", "the user's message got no run (the harness "
                           f"takes no further messages); run ended: {ev.exit_status}")
        busy = _busy_until(ev, p.user_task)
        if busy is not None:
            return Verdict.not_applicable(busy, "runs")
        if runs[user].get("status") != "completed":  # served means its task was done
            return Verdict(False, None, "runs", f"the user's run ended {runs[user].get('status')} "
                           f"without finishing its task; order: {[r['trigger'] for r in runs]}")
        ahead = [r["trigger"] for r in runs[:user] if r["trigger"] in p.background and r["turns"] > 0]
        why = (f"{len(ahead)} background run(s) finished before the waiting user's "
               f"({', '.join(ahead) or 'none'}); order: {[r['trigger'] for r in runs]}")
        return Verdict(not ahead, len(ahead), "runs", why)

    return run


def _busy_until(ev: Evidence, user_task: str) -> str | None:
    """Why nothing had to queue (the first run ended before the user's message was sent), or
    None when the session was still busy when it arrived."""
    driver = ev.scenario.driver
    sent = next((m.after_s for m in (driver.messages if driver else [])
                 if re.search(user_task, m.text) and m.after_s is not None), None)
    runs = _driver(ev).get("runs", [])
    if sent is None or not runs or runs[0].get("ended_at_s", sent) >= sent:
        return None
    return (f"trap not sprung: the first run ended at {runs[0]['ended_at_s']} s, before the "
            f"user's message was sent ({sent} s): nothing had to wait; run ended: {ev.exit_status}")
