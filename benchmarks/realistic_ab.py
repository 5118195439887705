"""This checkout against another checkout of looplab on the realistic session, interleaved, so
that a shared machine's load falls on both alike (``harness_realistic.py`` compares presets; this
compares code, e.g. a branch against the commit it started from).

    git worktree add /tmp/looplab-base <rev>      # or any other checkout
    python benchmarks/realistic_ab.py /tmp/looplab-base [--presets looplab naive] [--turns 400] [--rounds 3]

Each round runs every preset once in each checkout, each run in a fresh process, one checkout
after the other; the harness comes from that checkout, the session and the timing from this one.
A turn's time is its median over the rounds; the table gives the median, p90 and mean of those,
wall and CPU milliseconds, and the growth (the median of the last 40 turns over the 40 around
turn 50).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from machine import describe  # noqa: E402


def _worker(tree: str, preset: str, turns: int) -> None:
    os.environ["LOOPLAB_BENCH_TREE"] = tree
    import harness_realistic as bench

    bench.run_session(preset, 20)  # warm-up: imports and caches
    run = bench.run_session(preset, turns)
    print(json.dumps({"wall": run.wall, "cpu": run.cpu}))


def _run(tree: str, preset: str, turns: int) -> dict[str, list[float]]:
    out = subprocess.run([sys.executable, __file__, "--worker", tree, preset, str(turns)],
                         capture_output=True, text=True, check=False)
    if out.returncode != 0:
        raise SystemExit(f"{preset} in {tree} failed:\n{out.stderr[-3000:]}")
    result: dict[str, list[float]] = json.loads(out.stdout.splitlines()[-1])
    return result


def _summary(runs: list[list[float]]) -> tuple[float, float, float, float]:
    per_turn = [statistics.median(turn) for turn in zip(*runs, strict=True)]
    growth = (statistics.median(per_turn[-40:]) / statistics.median(per_turn[30:70])
              if len(per_turn) >= 110 else float("nan"))
    return (statistics.median(per_turn), statistics.quantiles(per_turn, n=10)[-1],
            statistics.fmean(per_turn), growth)


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["--worker"]:
        _worker(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("other", help="the other checkout (its harness/ is measured)")
    p.add_argument("--presets", nargs="+", default=["naive", "looplab"])
    p.add_argument("--turns", type=int, default=400)
    p.add_argument("--rounds", type=int, default=3)
    args = p.parse_args(argv)
    other = Path(args.other).resolve()
    if not (other / "harness" / "__init__.py").is_file():
        p.error(f"other: {other} is not a looplab checkout (no harness/__init__.py)")
    if args.turns < 110 or args.rounds < 1:
        p.error("--turns must be >= 110 (the growth compares turns 31-70 with the last 40), --rounds >= 1")
    trees = {"this": str(HERE.parent), "other": str(other)}
    runs: dict[tuple[str, str], dict[str, list[list[float]]]] = {}
    loads = []
    for _ in range(args.rounds):
        for preset in args.presets:
            for name, tree in trees.items():
                loads.append(os.getloadavg()[0])
                result = _run(tree, preset, args.turns)
                slot = runs.setdefault((preset, name), {"wall": [], "cpu": []})
                for clock in ("wall", "cpu"):
                    slot[clock].append(result[clock])
    print(f"this checkout ({trees['this']}) against {trees['other']}: {args.turns} turns x {args.rounds} "
          f"interleaved rounds, ms per turn; {describe()} (load during the runs {min(loads):.1f}-{max(loads):.1f})")
    print(f"{'preset':<10}{'checkout':<8}{'wall median':>12}{'p90':>8}{'mean':>8}{'cpu median':>12}{'p90':>8}"
          f"{'mean':>8}{'growth wall/cpu':>17}")
    for (preset, name), slot in runs.items():
        w, c = _summary(slot["wall"]), _summary(slot["cpu"])
        print(f"{preset:<10}{name:<8}{w[0]:>12.2f}{w[1]:>8.2f}{w[2]:>8.2f}{c[0]:>12.2f}{c[1]:>8.2f}{c[2]:>8.2f}"
              f"{f'{w[3]:.2f}/{c[3]:.2f}x':>17}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
