"""What spreading a run over Ray costs, measured on this machine with loopback clusters
(``evals.cluster.local``) sharing its Docker engine.

    python benchmarks/cluster_overhead.py [--repeat N]

The same small matrix (naive, looplab × 6 scripted scenarios, Docker sandboxes) runs
  (a) on this machine without Ray (``looplab run``, its defaults: 2 processes),
  (b) on a Ray cluster of 1 node offering 4 CPUs,
  (c) on a Ray cluster of 3 nodes offering 2 + 1 + 1 CPUs,
(b) and (c) with the same 4 shards (2 per configuration), all running at once. Printed: the
evals' wall time of each (``suite wall time`` of the run), the ratio (c) / (b), and per shard what
Ray adds: its round trip (submission to its log handed back) minus its eval's own time, and of
that the part before the task body starts (Ray's scheduling, a fresh worker process, importing
looplab and inspect in it). On one machine three nodes share the same cores: the ratio shows
what distribution costs, not a speed-up, which only more machines give.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from evals.cluster.driver import manifest  # noqa: E402  (imports Ray)
from evals.cluster.local import DRIVER_ENV, local_cluster  # noqa: E402

CONFIGS = "naive,looplab"
SCENARIOS = ("loop-repeat-failing-command", "loop-ping-pong", "context-huge-output-tail-error",
             "destructive-spellings--find-delete", "context-offload-middle-value",
             "destructive-mentions--grep-rl-rm-rf")
SHARD_SIZE = 3
SETUPS = {"1 node x 4 CPUs": (4,), "3 nodes, 2+1+1 CPUs": (2, 1, 1)}


def looplab(log_dir: Path, *extra: str) -> float:
    """Run the matrix; the evals' wall time it reports."""
    cmd = [sys.executable, "-m", "evals", "run", "--configs", CONFIGS, "--scenarios",
           ",".join(SCENARIOS), "--log-dir", str(log_dir), "--display", "none", "--no-setup",
           "--no-report", *extra]
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True,
                         env={**os.environ, **DRIVER_ENV}, timeout=3600)
    if res.returncode != 0:
        raise SystemExit(f"{' '.join(cmd)} exited {res.returncode}:\n{res.stdout}\n{res.stderr}")
    found = re.search(r"suite wall time ([\d.]+) s", res.stdout)
    if not found:
        raise SystemExit(f"no wall time in the output of {' '.join(cmd)}:\n{res.stdout}")
    return float(found.group(1))


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--repeat", type=int, default=1, help="runs of each setup (default 1)")
    args = p.parse_args()
    walls: dict[str, list[float]] = {"no Ray (2 processes)": []}
    shards: dict[str, list[dict]] = {}
    with tempfile.TemporaryDirectory(prefix="looplab-cluster-bench-") as tmp:
        for i in range(args.repeat):
            walls["no Ray (2 processes)"].append(looplab(Path(tmp) / f"single-{i}"))
        for name, cpus in SETUPS.items():
            with local_cluster(cpus) as cluster:
                for i in range(args.repeat):
                    log_dir = Path(tmp) / f"{len(cpus)}-{i}"
                    walls.setdefault(name, []).append(
                        looplab(log_dir, "--ray", cluster.address, "--shard-size", str(SHARD_SIZE)))
                    shards.setdefault(name, []).extend(manifest(log_dir))
    print(f"matrix: {CONFIGS} x {len(SCENARIOS)} scenarios, Docker sandboxes; "
          f"{os.cpu_count()} CPUs; load average {os.getloadavg()[0]:.1f} at the end")
    print(f"{'setup':24s} {'eval wall s':>12s} {'shards':>7s} {'round trip s':>13s} "
          f"{'eval s':>8s} {'Ray adds s':>11s} {'before body s':>14s}")
    for name, values in walls.items():
        lines = shards.get(name, [])
        row = f"{name:24s} {statistics.median(values):12.1f}"
        if lines:
            trip = statistics.mean(ln["round_trip_s"] for ln in lines)
            ev = statistics.mean(ln["eval_s"] for ln in lines)
            before = statistics.mean(ln["started_at"] - ln["submitted_at"] for ln in lines)
            row += (f" {len(lines) // args.repeat:7d} {trip:13.1f} {ev:8.1f} {trip - ev:11.1f}"
                    f" {before:14.1f}")
        print(row)
    one, three = (statistics.median(walls[n]) for n in SETUPS)
    print(f"ratio 3 nodes / 1 node: {three / one:.2f} (same cores: the cost of distribution, "
          "not a speed-up)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
