"""Logs → DataFrames: read a looplab run through ``inspect_ai.analysis``.

Only the looplab log contract is read (task ``looplab_suite``, task arg ``config``, scorer
``checklist``); see ``tests/reports/logbuilder.py`` for a writer of that contract. The result is
tidy: one row per sample (``RunData.samples``) and one row per probed item of a sample
(``RunData.items``); errored, cancelled and never-run samples are rows too, never gaps.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from reports.logdir import ReportError, run_name
from reports.observations import config_labels, item_rows, missing_rows, sample_rows

if TYPE_CHECKING:
    import pandas as pd

TASK_NAME = "looplab_suite"
# Bulky fields the reports never read: skipping them keeps loading big runs fast.
_SKIP_FIELDS = {"messages", "events", "store", "attachments"}


@dataclass
class RunData:
    """One run, as tidy DataFrames."""

    logdir: Path
    """Resolved log directory."""
    name: str
    """Run name (the log directory's base name)."""
    evals: pd.DataFrame
    """One row per looplab log: ``eval_id, config, config_name, model, status, log, ...``."""
    samples: pd.DataFrame
    """One row per (configuration, scenario, epoch), scored or not (``status``: scored|error)."""
    items: pd.DataFrame
    """One row per probed item of a sample; ``state``: pass|fail|unjudged|error."""
    configs: list[str]
    """Configuration labels in report order."""
    notes: list[str]
    """Things the reader should know (duplicate logs, unreadable logs...)."""


def read_task_logs(logdir: Path, task_name: str, what: str,
                   hints: dict[str, str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The logs of ``task_name`` under ``logdir`` (labelled by configuration) and their samples,
    as DataFrames. Raises ``ReportError`` naming the directory when they cannot be read or there
    are none (``what``: how to call them; ``hints``: other task name → what to run instead)."""
    from inspect_ai.analysis import SampleScores, SampleSummary, evals_df, samples_df

    try:
        evals = evals_df(str(logdir), quiet=True)
    except Exception as e:  # inspect raises many kinds on a damaged log; name the directory
        raise ReportError(f"log directory {logdir}: cannot read logs: {_one_line(e)}") from e
    if evals.empty:
        raise ReportError(f"log directory {logdir} holds no inspect logs")
    tasks = sorted(set(evals["task_name"].astype(str)))
    # One log per configuration, named ``<task_name>`` or ``<task_name>_<configuration>``.
    names = evals["task_name"].astype(str)
    evals = evals[(names == task_name) | names.str.startswith(f"{task_name}_")]
    if evals.empty:
        hint = "".join(f"; {h}" for t, h in (hints or {}).items() if t in tasks)
        raise ReportError(f"log directory {logdir} holds no {what} (task {task_name}); "
                          f"found tasks: {', '.join(tasks)}{hint}")
    evals = config_labels(evals)
    try:
        raw = samples_df(list(evals["log"]), columns=SampleSummary + SampleScores, full=True,
                         quiet=True, exclude_fields=_SKIP_FIELDS)
    except Exception as e:
        raise ReportError(f"log directory {logdir}: cannot read samples: {_one_line(e)}") from e
    return evals, raw


def load_run(logdir: Path) -> RunData:
    """Read every looplab log under ``logdir`` (already resolved by ``resolve_logdir``)."""
    evals, raw = read_task_logs(logdir, TASK_NAME, "looplab logs", {
        "looplab_bench": "for a benchmark run use: python -m reports bench LOGDIR"})
    samples, notes = sample_rows(raw, evals)
    samples = missing_rows(samples, evals)
    items = item_rows(samples)
    configs = list(evals.sort_values("order")["config"].drop_duplicates())
    return RunData(logdir=logdir, name=run_name(logdir), evals=evals, samples=samples,
                   items=items, configs=configs, notes=notes)


def select_config(run: RunData, config: str) -> RunData:
    """The part of ``run`` that belongs to one configuration label."""
    if config not in run.configs:
        raise ReportError(f"configuration {config!r} is not in {run.logdir}; "
                          f"found: {', '.join(run.configs)}")
    return RunData(
        logdir=run.logdir, name=run.name,
        evals=run.evals[run.evals["config"] == config],
        samples=run.samples[run.samples["config"] == config],
        items=run.items[run.items["config"] == config],
        configs=[config], notes=run.notes,
    )


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"
