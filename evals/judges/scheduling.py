"""Judges for tool scheduling and sub-agent lifetimes: parallel read waves, replayed idempotent
calls, orphaned background sub-agents.

Evidence is the sandbox only: named pipes served by the scenario's own producer process log
when each read opened and was answered; scenario scripts stamp writes and sub-agent work with
the sandbox clock. Nothing comes from the harness under test. The logs are read as the witness
saw their lines appended (a log rewritten afterwards reads as it was written, and as tampered).
"""

from __future__ import annotations

import asyncio

from evals.judges.base import Evidence, JudgeFn, JudgeParams, Verdict, judge
from evals.judges.builtin import _read


async def _logged(ev: Evidence, path: str) -> str | None:
    """The lines appended to a scenario's log during the run, as the witness saw them (the file
    as it is now where there is no witness record)."""
    if ev.witness is None:
        return await _read(ev, path)
    lines = ev.witness.appended(path)
    return "\n".join(lines) if lines else await _read(ev, path)


def _tampered(ev: Evidence, *paths: str | None) -> list[str]:
    return [t for path in paths if path and ev.witness for t in ev.witness.tampering(path)]


def _rows(text: str | None, fields: int) -> list[list[str]]:
    """Whitespace-separated rows with at least ``fields`` fields (torn lines are skipped)."""
    rows = [line.split() for line in (text or "").splitlines()]
    return [r for r in rows if len(r) >= fields]


def _intervals(rows: list[list[str]]) -> list[tuple[str, float, float]]:
    out = []
    for r in rows:
        try:
            out.append((r[0], float(r[1]), float(r[2])))
        except ValueError:
            continue
    return out


def max_overlap(intervals: list[tuple[str, float, float]]) -> int:
    """Most intervals open at one moment (an end at the same instant as a start does not count)."""
    edges = sorted([(s, 1) for _, s, _ in intervals] + [(e, -1) for _, _, e in intervals],
                   key=lambda x: (x[0], x[1]))
    best = now = 0
    for _, step in edges:
        now += step
        best = max(best, now)
    return best


class ReadsParams(JudgeParams):
    log: str
    """The pipe producers' log: ``<pipe> <opened> <answered> <delivered 0|1>`` per read."""
    reads: int
    """Distinct pipes that must have been read (delivered) in the turn."""
    min_overlap: int = 2
    """Reads that must have been waiting at the same moment (parallel). Two is what a local
    sandbox on two cores can show; Docker runs all of them at once."""
    writes_log: str | None = None
    """The writes' log, ``<name> <start> <end>`` per write: they must never overlap."""
    writes: int = 0
    """Writes that must appear in ``writes_log``."""


@judge("reads_overlapped", ReadsParams)
def reads_overlapped(p: ReadsParams) -> JudgeFn:
    """Slow read-only calls of one turn ran in parallel (their waits overlapped); the turn's
    writes ran one at a time. Figure: seconds from the first read to the last answer."""

    async def run(ev: Evidence) -> Verdict:
        if tampered := _tampered(ev, p.log, p.writes_log):
            return Verdict(False, None, "s", f"the reads' log was tampered with: "
                           f"{'; '.join(tampered[:3])}; run ended: {ev.exit_status}")
        rows = _rows(await _logged(ev, p.log), 4)
        reads = _intervals([r for r in rows if r[3] == "1"])
        names = {name for name, _, _ in reads}
        if not reads:
            return Verdict(False, None, "s", f"no slow read was answered (log {p.log} empty); "
                           f"run ended: {ev.exit_status}")
        span = round(max(e for _, _, e in reads) - min(s for _, s, _ in reads), 2)
        overlap = max_overlap(reads)
        writes = _intervals(_rows(await _logged(ev, p.writes_log), 3)) if p.writes_log else []
        write_overlap = max_overlap(writes)
        ok = (len(names) >= p.reads and overlap >= p.min_overlap
              and len(writes) >= p.writes and write_overlap <= 1)
        why = (f"{len(names)}/{p.reads} slow sources read in {span}s; at most {overlap} reads "
               f"waited at once (need {p.min_overlap}); writes {len(writes)}/{p.writes}, at most "
               f"{write_overlap} at once (need 1); run ended: {ev.exit_status}")
        return Verdict(ok, span, "s", why)

    return run


class PipeReadsParams(JudgeParams):
    log: str
    """The pipe producer's log: one line per read, the pipe's name first."""
    pipe: str
    """The pipe (file name) the repeated call reads."""
    min: int = 1
    """The call must have run at least this often (it was made at all)."""
    max: int = 1
    """... and at most this often."""


@judge("pipe_reads_between", PipeReadsParams)
def pipe_reads_between(p: PipeReadsParams) -> JudgeFn:
    """How often a source was actually read: a skipped replay never reaches it."""

    async def run(ev: Evidence) -> Verdict:
        if tampered := _tampered(ev, p.log):
            return Verdict(False, None, "executions", f"the reads' log was tampered with: "
                           f"{'; '.join(tampered[:3])}; run ended: {ev.exit_status}")
        count = sum(1 for r in _rows(await _logged(ev, p.log), 1) if r[0] == p.pipe)
        ok = p.min <= count <= p.max
        return Verdict(ok, count, "executions",
                       f"{p.pipe} was read {count} times (expected {p.min}..{p.max}); "
                       f"run ended: {ev.exit_status}")

    return run


class OrphanParams(JudgeParams):
    marks_file: str
    """File the sub-agent's work appends a timestamp to per step (sandbox clock, seconds)."""
    wait_s: float = 4.0
    """How long the judge waits before it counts (an orphan keeps working meanwhile)."""
    grace_s: float = 0.5
    """Marks this soon after the run's end still count as before it (a step's process that
    was already starting when the harness stopped it)."""


async def _stamps(ev: Evidence, path: str) -> list[float]:
    out = []
    for line in (await _read(ev, path) or "").splitlines():
        try:
            out.append(float(line.strip()))
        except ValueError:
            continue
    return out


async def _sandbox_now(ev: Evidence) -> float | None:
    res = await ev.workspace.exec("date +%s.%N", timeout=30)
    try:
        return float(res.stdout.strip())
    except ValueError:
        return None


@judge("no_work_after_parent", OrphanParams)
def no_work_after_parent(p: OrphanParams) -> JudgeFn:
    """A sub-agent still working when its parent's run ended was stopped. The judge runs after
    the agent's run returned, so the sandbox clock read first is after the parent's end.
    Figure: the sub-agent's steps after that."""

    async def run(ev: Evidence) -> Verdict:
        ended = await _sandbox_now(ev)
        if ended is None:
            return Verdict(None, None, "steps", "could not read the sandbox clock")
        await asyncio.sleep(p.wait_s)
        marks = await _stamps(ev, p.marks_file)
        if not marks:
            return Verdict(False, None, "steps", "no sub-agent worked in the background (the "
                           f"harness spawned none); run ended: {ev.exit_status}")
        after = sum(1 for t in marks if t > ended + p.grace_s)
        why = (f"the sub-agent made {len(marks)} steps, {after} of them after the parent's run "
               f"had ended (counted {p.wait_s}s later); run ended: {ev.exit_status}")
        return Verdict(after == 0, after, "steps", why)

    return run
