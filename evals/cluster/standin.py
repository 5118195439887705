"""The log of a shard that handed none back (cancelled before it started, lost with its node more
often than Ray retries, or failed in our code before inspect wrote one).

It is an inspect log like the one a single-machine eval leaves when it is cancelled or stops on
an error: the shard's task, arguments and planned samples, no samples, its status and why. The
reports then show every planned sample of the shard as an error with that reason (never as pass
or fail) and mark the run incomplete, exactly as for a one-machine run."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Literal

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalResults,
    EvalSpec,
    EvalStats,
    read_eval_log,
    write_eval_log,
)

from evals.cluster.shards import Shard, ShardRun
from evals.task import config_label, task_name


def write_standin(shard: Shard, run: ShardRun, status: Literal["cancelled", "error"], why: str,
                  log_dir: Path) -> EvalLog:
    """Write the stand-in log of ``shard`` into ``log_dir`` and return it as read back."""
    now = datetime.now(UTC).isoformat()
    task = task_name(shard.config)
    spec = EvalSpec(
        created=now, task=task, task_id=uuid.uuid4().hex[:22], eval_id=uuid.uuid4().hex[:22],
        run_id=uuid.uuid4().hex[:22],
        task_args={"config": shard.config, "scenarios": ",".join(shard.scenarios),
                   "sandbox": run.sandbox, "fallbacks": run.fallbacks, "overrides": "",
                   "proxy": shard.proxy},
        dataset=EvalDataset(name="looplab-scenarios", samples=len(shard.scenarios),
                            sample_ids=list(shard.scenarios)),
        model=run.model, model_base_url=shard.base_url or None,
        config=EvalConfig(epochs=run.epochs), tags=["looplab", shard.config],
        metadata={"config": shard.config, "overrides": "", "label": config_label(shard.config)},
    )
    log = EvalLog(
        status=status, eval=spec,
        results=EvalResults(total_samples=len(shard.scenarios) * run.epochs, completed_samples=0),
        stats=EvalStats(started_at=now, completed_at=now),
        error=EvalError(message=why, traceback=why, traceback_ansi=why),
    )
    stamp = datetime.now(UTC).strftime("%Y-%m-%dT%H-%M-%S+00-00")
    path = log_dir / f"{stamp}_{task.replace('_', '-')}_shard-{shard.index:03d}-{status}.eval"
    write_eval_log(log, str(path))
    return read_eval_log(str(path))
