"""Where a run's time went, per configuration, from its logs (reads logs, runs nothing).

    python benchmarks/matrix_time.py LOGDIR [--scale N]

For each configuration: its samples, the sum of their times, and for harness specs how much of
it was the harness starting up (launch to first model request), the model calls, and samples
that ran into the spec's wall-clock limit. ``--scale N`` multiplies the sums (a run over one
N-th of a suite, to estimate the whole). The run's own wall time is the logs' first start to
last end. Sample times overlap (samples run at once), so their sums say where the work is,
not how long the run took.
"""

from __future__ import annotations

import argparse
import glob
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def summarise(log_dir: str) -> tuple[dict[str, dict[str, float]], float]:
    from inspect_ai.log import read_eval_log

    from evals.state import HarnessRun, RunRecord, in_log

    rows: dict[str, dict[str, float]] = defaultdict(lambda: defaultdict(float))
    first, last = float("inf"), 0.0
    for path in sorted(glob.glob(f"{log_dir}/*.eval")):
        log = read_eval_log(path)
        config = str((log.eval.metadata or {}).get("label") or log.eval.task)
        if log.stats.started_at and log.stats.completed_at:
            from datetime import datetime

            first = min(first, datetime.fromisoformat(log.stats.started_at).timestamp())
            last = max(last, datetime.fromisoformat(log.stats.completed_at).timestamp())
        for sample in log.samples or []:
            row = rows[config]
            row["samples"] += 1
            row["errors"] += sample.error is not None
            row["seconds"] += sample.total_time or 0.0
            run = in_log(HarnessRun, sample)
            if run.launched is not None and run.exited is not None:
                first_request = run.requests[0][0] if run.requests else run.exited
                row["start-up"] += first_request - run.launched
                row["calls"] += sum(r[1] - r[0] for r in run.requests)
                row["timeouts"] += in_log(RunRecord, sample).exit_status == "timeout"
    return rows, (last - first) if last else 0.0


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("log_dir")
    p.add_argument("--scale", type=float, default=1.0, help="multiply the sums by this")
    args = p.parse_args(argv)
    rows, wall = summarise(args.log_dir)
    k = args.scale
    print(f"{'configuration':22} {'samples':>8} {'errors':>6} {'sample s':>9} {'start-up s':>10} "
          f"{'calls s':>8} {'timeouts':>8}" + (f"   (sums x {k:g})" if k != 1 else ""))
    for config, row in sorted(rows.items(), key=lambda kv: -kv[1]["seconds"]):
        print(f"{config:22} {row['samples'] * k:8.0f} {row['errors'] * k:6.0f} {row['seconds'] * k:9.0f} "
              f"{row['start-up'] * k:10.0f} {row['calls'] * k:8.0f} {row['timeouts'] * k:8.0f}")
    total = sum(r["seconds"] for r in rows.values()) * k
    print(f"{'all':22} {sum(r['samples'] for r in rows.values()) * k:8.0f} "
          f"{sum(r['errors'] for r in rows.values()) * k:6.0f} {total:9.0f}")
    print(f"the run: {wall:.0f} s wall from the first log's start to the last one's end")
    return 0


if __name__ == "__main__":
    sys.exit(main())
