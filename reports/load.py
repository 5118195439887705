"""Logs → DataFrames: read a looplab run through ``inspect_ai.analysis``.

Only the looplab log contract is read (task ``looplab_suite``, task arg ``config``, scorer
``checklist``); see ``tests/reports/logbuilder.py`` for a writer of that contract. The result is
tidy: one row per sample (``RunData.samples``) and one row per probed item of a sample
(``RunData.items``); errored, cancelled and never-run samples are rows too, never gaps.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd
from inspect_ai.analysis import SampleColumn, SampleScores, SampleSummary, evals_df, samples_df

from reports.logdir import ReportError, log_files, run_name
from reports.observations import config_labels, item_rows, missing_rows, sample_rows

TASK_NAME = "looplab_suite"


def _item_values(scores: object) -> dict:
    checklist = scores.get("checklist") if isinstance(scores, dict) else None
    value = checklist.get("value") if isinstance(checklist, dict) else None
    return dict(value) if isinstance(value, dict) else {}


def item_columns() -> list:
    """``samples_df`` columns for looplab logs: one ``item_<id>`` column per checklist item
    (1.0 pass, 0.0 fail, NA not judged) next to ``metadata_config`` (the configuration)::

        samples_df("logs/latest", columns=SampleSummary + item_columns())
    """
    return [SampleColumn("item_*", path="scores", value=_item_values)]
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
    damaged: list[str] = field(default_factory=list)
    """Logs that could not be read (``name: why``): the run is incomplete and nothing is ranked."""


def read_task_logs(logdir: Path, task_name: str, what: str,
                   hints: dict[str, str] | None = None) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The logs of ``task_name`` under ``logdir`` (labelled by configuration) and their samples,
    as DataFrames. Raises ``ReportError`` naming the directory when they cannot be read or there
    are none (``what``: how to call them; ``hints``: other task name → what to run instead)."""
    skipped: list[str] = []
    evals = _read_each(lambda paths: evals_df(paths, quiet=True), [str(logdir)],
                       [str(p) for p in log_files(logdir)], skipped, logdir)
    if evals.empty:
        raise ReportError(f"log directory {logdir} holds no readable inspect logs"
                          + (f" ({'; '.join(skipped)})" if skipped else ""))
    tasks = sorted(set(evals["task_name"].astype(str)))
    # One log per configuration, named ``<task_name>`` or ``<task_name>_<configuration>``.
    names = evals["task_name"].astype(str)
    evals = evals[(names == task_name) | names.str.startswith(f"{task_name}_")]
    if evals.empty:
        hint = "".join(f"; {h}" for t, h in (hints or {}).items() if t in tasks)
        raise ReportError(f"log directory {logdir} holds no {what} (task {task_name}); "
                          f"found tasks: {', '.join(tasks)}{hint}")
    evals = config_labels(evals)
    logs = list(evals["log"])
    raw = _read_each(lambda paths: samples_df(paths, columns=SampleSummary + SampleScores,
                                              full=True, quiet=True, exclude_fields=_SKIP_FIELDS),
                     logs, logs, skipped, logdir)
    if skipped:
        bad = {s.split(":", 1)[0] for s in skipped}
        evals = evals[~evals["log"].map(lambda lg: _short(lg) in bad)]
    evals.attrs["skipped"] = skipped
    return evals, raw


def _read_each(read, together: list[str], each: list[str], skipped: list[str],
               logdir: Path) -> pd.DataFrame:
    """``read(together)``; when inspect cannot read that (a damaged log), read ``each`` log on
    its own and skip, with a warning naming it, those it cannot read."""
    try:
        return read(together)
    except Exception:
        pass
    frames = []
    for path in each:
        try:
            frames.append(read([path]))
        except Exception as e:  # inspect raises many kinds on a damaged log
            note = f"{_short(path)}: skipped, cannot be read ({_one_line(e)})"
            if note not in skipped:
                skipped.append(note)
                print(f"warning: {logdir}/{note}", file=sys.stderr)
    frames = [f for f in frames if not f.empty]
    return pd.concat(frames, ignore_index=True) if frames else pd.DataFrame()


def _short(path: object) -> str:
    return str(path).rsplit("/", 1)[-1]


def load_run(logdir: Path) -> RunData:
    """Read every looplab log under ``logdir`` (already resolved by ``resolve_logdir``)."""
    evals, raw = read_task_logs(logdir, TASK_NAME, "looplab logs", {
        "looplab_bench": "for a benchmark run use: python -m reports bench LOGDIR"})
    samples, notes = sample_rows(raw, evals)
    damaged = list(evals.attrs.get("skipped", []))
    notes = [f"damaged log {n}" for n in damaged] + notes
    samples = missing_rows(samples, evals)
    items = item_rows(samples)
    configs = list(evals.sort_values("order")["config"].drop_duplicates())
    return RunData(logdir=logdir, name=run_name(logdir), evals=evals, samples=samples,
                   items=items, configs=configs, notes=notes, damaged=damaged)


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
        configs=[config], notes=run.notes, damaged=run.damaged,
    )


def common_part(run: RunData) -> RunData:
    """The part of ``run`` every configuration ran: the (scenario, epoch) pairs that have a
    result (scored, or errored while running) under each configuration. For a run stopped
    early: its configurations compared on the same scenarios. A note says how much was left."""
    ran = run.samples[run.samples["exit_status"] != "not_run"]
    keys = None
    for config in run.configs:
        mine = set(zip(*(ran.loc[ran["config"] == config, k] for k in ("scenario_id", "epoch")),
                       strict=True))
        keys = mine if keys is None else keys & mine
    keys = keys or set()

    def keep(frame: pd.DataFrame) -> pd.DataFrame:
        pairs = zip(frame["scenario_id"], frame["epoch"], strict=True)
        return frame[[pair in keys for pair in pairs]]

    samples = keep(run.samples)
    n_scenarios = len({k[0] for k in keys})
    note = (f"only the {n_scenarios} scenario(s) every configuration ran are counted "
            f"(--common): {len(run.samples) - len(samples)} of {len(run.samples)} sample rows "
            "left out")
    return RunData(logdir=run.logdir, name=run.name, evals=run.evals, samples=samples,
                   items=keep(run.items), configs=run.configs, notes=[note, *run.notes],
                   damaged=run.damaged)


def _one_line(e: BaseException) -> str:
    text = str(e).strip().splitlines()
    return f"{type(e).__name__}: {text[0] if text else ''}"
