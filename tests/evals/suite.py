"""Helpers for running the suite in-process in tests (real inspect eval, scripted actor)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from evals.task import looplab_suite


def run_suite(tmp_path: Path, config: str, *, sandbox: str = "local", scenarios: str = "",
              overrides: str = "") -> EvalLog:
    task = looplab_suite(config=config, scenarios=scenarios, sandbox=sandbox, overrides=overrides)
    [log] = inspect_eval(task, model="scripted/suite", log_dir=str(tmp_path / "logs"),
                         display="none", max_samples=4)
    assert log.status == "success", log.error
    return log


def verdicts(log: EvalLog) -> dict[str, dict[str, Any]]:
    """scenario id → {item id: metadata entry} for every sample."""
    out: dict[str, dict[str, Any]] = {}
    for s in log.samples or []:
        assert s.error is None, f"{s.id}: {s.error}"
        score = s.scores["checklist"]
        out[str(s.id)] = score.metadata["items"]
    return out
