"""inspect's ``eval`` as every looplab run calls it: on this machine (``evals.runs``) and in each
shard of a cluster run (``evals.cluster.node``), so both run the evals the same way."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.util import DisplayType

from sandboxes.docker_slots import SLOTS


def run_evals(tasks: Any, *, model: str, log_dir: Path, max_samples: int, display: DisplayType | None,
              **options: Any) -> list:
    """inspect's ``eval`` over ``tasks`` (all at once, one sandbox per running sample), errors
    kept in the logs rather than raised; ``options`` go to inspect as they are."""
    listed = tasks if isinstance(tasks, list) else [tasks]
    # One sandbox per running sample, over all tasks. On looplab-docker the bound is ours
    # (sandboxes/docker_slots.py): inspect's `max_sandboxes` would sleep every sample a random
    # 0-1 s first. Other sandboxes keep inspect's bound.
    docker = all(getattr(getattr(t, "sandbox", None), "type", None) == "looplab-docker" for t in listed)
    SLOTS.limit(max_samples if docker else None)
    # No control server: nothing here uses inspect's live control channel, and it costs a web
    # server's start and stop in every run.
    try:
        return inspect_eval(tasks, model=model, log_dir=str(log_dir), max_tasks=len(listed),
                            max_samples=max_samples, max_sandboxes=None if docker else max_samples,
                            display=display, fail_on_error=False, ctl_server=False, **options)
    finally:
        SLOTS.limit(None)


SUITE_OPTIONS: dict[str, Any] = {"log_realtime": False, "score_display": False}
"""The scenario suite's eval options. The eval process is CPU-bound on a small machine: inspect's
realtime sample log and its running score display cost a third of it and show nothing the
scorecard does not."""
