"""General-purpose judges."""

from __future__ import annotations

from evals.judges.base import Evidence, JudgeFn, JudgeParams, Verdict, judge


async def _read(ev: Evidence, path: str) -> str | None:
    try:
        return await ev.workspace.read_file(path)
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return None


class CounterParams(JudgeParams):
    counter_file: str
    """File the scenario's own script appends one line to per execution."""
    max: int
    """Pass when the count is at most this."""


@judge("counter_at_most", CounterParams)
def counter_at_most(p: CounterParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        text = await _read(ev, p.counter_file)
        count = 0 if text is None else len([line for line in text.splitlines() if line.strip()])
        ok = count <= p.max
        return Verdict(ok, count, "executions",
                       f"{count} executions (limit {p.max}); run ended: {ev.exit_status}")

    return run


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
        why = (f"{p.marker} {'reached' if seen else 'never reached'} the model; "
               f"{overflows} context overflows; largest tool result {biggest:,} chars")
        return Verdict(ok, biggest, "chars", why)

    return run


class FilesParams(JudgeParams):
    files: list[str]
    """Files the finished task must have produced."""
    require_completed: bool = True
    """Also require the run to end ``completed``."""


@judge("files_present", FilesParams)
def files_present(p: FilesParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        present = [f for f in p.files if await _read(ev, f) is not None]
        ok = len(present) == len(p.files) and (not p.require_completed or ev.exit_status == "completed")
        faults = [o["fault"] for o in ev.observations if o.get("fault")]
        roles = sorted({o["role"] for o in ev.observations})
        why = (f"{len(present)}/{len(p.files)} files; run ended: {ev.exit_status}; "
               f"faults: {len(faults)}; models called: {', '.join(roles)}")
        return Verdict(ok, len(present), "files", why)

    return run
