"""``python -m evals`` (also the ``looplab`` command): run the suite, reproduce one scenario.

    python -m evals run [--configs naive,looplab] [--sandbox docker|local] [--model scripted/suite]
    python -m evals repro SCENARIO [--config looplab] [--overrides key=value,...]
    python -m evals list

``run`` writes inspect logs to ``logs/<timestamp>/``, then the scorecard to
``reports/out/<timestamp>/``, and prints the wall time; ``logs/latest`` points at the last
*complete* run. Exit codes: 0 complete, 1 a sample errored (infrastructure: named on stderr),
2 bad input, 130 interrupted; ``repro`` exits 3 when a probed item failed.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SETUP = ROOT / "sandboxes" / "setup.sh"


class CliError(Exception):
    pass


def ensure_sandbox(kind: str) -> None:
    """Bring up the Docker engine and image (idempotent); say clearly when that is impossible."""
    if kind == "k8s":
        from sandboxes.k8s_values import missing_prerequisites

        missing = missing_prerequisites()
        if missing:
            raise CliError("sandbox=k8s needs " + "; ".join(missing)
                           + ". Step by step: sandboxes/README.md (Kubernetes).")
        print("looplab: sandbox=k8s: sandboxes are pods on the current kubeconfig context.",
              flush=True)
        return
    if kind != "docker":
        print(f"looplab: sandbox={kind}: commands run directly on this machine, without isolation.",
              file=sys.stderr)
        return
    print("looplab: checking the Docker engine and sandbox image (sandboxes/setup.sh)...", flush=True)
    res = subprocess.run(["bash", str(SETUP)], cwd=ROOT)
    if res.returncode != 0:
        raise CliError("no usable Docker engine or sandbox image (see above). Without Docker, run "
                       "the scripted suite unisolated with: make eval SANDBOX=local")


def _configs(text: str) -> list[str]:
    from evals.task import configurations

    if text.strip() == "all":
        return configurations()
    names = [c.strip() for c in text.split(",") if c.strip()]
    unknown = [c for c in names if c not in configurations()]
    if unknown or not names:
        raise CliError(f"--configs: unknown configuration(s) {unknown}; valid: {', '.join(configurations())}")
    return names


def cmd_run(args: argparse.Namespace) -> int:
    configs = _configs(args.configs)
    from evals.library import select

    chosen = select(args.scenarios or None, args.family or None)  # fail early on bad ids
    if not args.no_setup:
        ensure_sandbox(args.sandbox)
    if args.processes > 1 and len(configs) > 1:
        return run_split(args, configs, len(chosen))
    from inspect_ai import eval as inspect_eval

    from evals.task import looplab_suite

    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    log_dir = Path(args.log_dir or ROOT / "logs" / stamp)
    log_dir.mkdir(parents=True, exist_ok=True)
    tasks = [looplab_suite(config=c, scenarios=args.scenarios, family=args.family,
                           sandbox=args.sandbox, fallbacks=args.fallbacks) for c in configs]
    print(f"looplab: {len(chosen)} scenarios × {len(configs)} configurations "
          f"({', '.join(configs)}) on {args.model}, sandbox={args.sandbox}; logs: {log_dir}", flush=True)
    t0 = time.monotonic()
    # The eval process is CPU-bound on a small machine: inspect's realtime sample log and its
    # running score display cost a third of it and show nothing the scorecard does not.
    logs = inspect_eval(tasks, model=args.model, log_dir=str(log_dir), max_tasks=len(tasks),
                        max_samples=args.max_samples, max_sandboxes=args.max_samples,
                        epochs=args.epochs, display=args.display, fail_on_error=False,
                        log_realtime=False, score_display=False)
    wall = time.monotonic() - t0
    rc = run_outcome(logs, len(tasks))
    if not args.no_report and logs:  # an incomplete run gets a scorecard too, marked as such
        report_rc = _report(log_dir)
        rc = rc or report_rc
    if args.split_child:  # one process of a split run: its parent prints the totals
        print(f"looplab: {', '.join(configs)} finished in {wall:.1f} s", flush=True)
    else:
        print(f"looplab: suite wall time {wall:.1f} s ({len(chosen)} scenarios × {len(configs)} "
              f"configurations × {args.epochs} epoch(s)); logs in {log_dir}")
        _finish(log_dir, rc)
    return rc


EXIT_INTERRUPTED = 130
EXIT_ERRORED = 1
SHOW_ERRORS = 10


def run_outcome(logs: list, expected: int) -> int:
    """0 when every log finished and no sample errored; 130 when the run was interrupted
    (inspect hands back fewer logs than tasks, or cancelled ones); 1 otherwise. Says which
    logs and samples did not finish, on stderr."""
    if len(logs) < expected:
        print(f"looplab: interrupted: {expected - len(logs)} of {expected} configuration(s) "
              "returned no log", file=sys.stderr)
        return EXIT_INTERRUPTED
    unfinished = [lg for lg in logs if lg.status != "success"]
    errored = [(lg, s) for lg in logs for s in (lg.samples or []) if s.error is not None]
    for lg in unfinished:
        why = f": {lg.error.message.splitlines()[0]}" if lg.error and lg.error.message else ""
        print(f"looplab: {lg.eval.task} ended {lg.status}{why} ({lg.location})", file=sys.stderr)
    for lg, sample in errored[:SHOW_ERRORS]:
        first = (sample.error.message.strip().splitlines() or ["error"])[0][:200]
        print(f"looplab: errored sample {lg.eval.task} / {sample.id} epoch {sample.epoch}: {first}",
              file=sys.stderr)
    if len(errored) > SHOW_ERRORS:
        print(f"looplab: ... and {len(errored) - SHOW_ERRORS} more errored sample(s)", file=sys.stderr)
    if errored:
        print(f"looplab: {len(errored)} sample(s) errored: they are not counted as pass or fail",
              file=sys.stderr)
    if any(lg.status == "cancelled" for lg in unfinished):
        return EXIT_INTERRUPTED
    return EXIT_ERRORED if unfinished or errored else 0


def _finish(log_dir: Path, rc: int) -> None:
    """``logs/latest`` names the last *complete* run only."""
    if rc == 0:
        _point_latest(log_dir)
    else:
        print(f"looplab: the run is incomplete (exit {rc}); logs/latest was left where it was",
              file=sys.stderr)


def cost_weight(config: str) -> int:
    """Relative eval cost of a configuration: a fixed part per sample plus one per enabled
    control (fitted to one full-matrix run: about 12 : 1). Peers count as five controls."""
    from evals.task import PEERS
    from harness.presets import get_preset

    if config in PEERS:
        return 12 + 5
    from evals.harnesses.configs import is_spec

    if is_spec(config):  # a harness process and the model bridge in each container
        return 40
    dump = get_preset(config).model_dump()
    return 12 + sum(1 for v in dump.values() if isinstance(v, dict) and v.get("enabled"))


def balanced_groups(configs: list[str], n: int) -> list[list[str]]:
    """Split ``configs`` over ``n`` processes, heaviest first onto the lightest process."""
    groups: list[list[str]] = [[] for _ in range(n)]
    loads = [0] * n
    for config in sorted(configs, key=cost_weight, reverse=True):
        i = loads.index(min(loads))
        groups[i].append(config)
        loads[i] += cost_weight(config)
    return [g for g in groups if g]


def run_split(args: argparse.Namespace, configs: list[str], n_scenarios: int) -> int:
    """Run the configurations in ``args.processes`` processes writing to one log directory
    (inspect's eval loop uses one core; a second process uses the second), then one report.
    The first process shows inspect's display; the others run quietly and say when done."""
    n = min(args.processes, len(configs))
    groups = balanced_groups(configs, n)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    log_dir = Path(args.log_dir or ROOT / "logs" / stamp)
    log_dir.mkdir(parents=True, exist_ok=True)
    print(f"looplab: {n_scenarios} scenarios × {len(configs)} configurations "
          f"({', '.join(configs)}) on {args.model}, sandbox={args.sandbox}, in {n} processes "
          f"({' | '.join(','.join(g) for g in groups)}); logs: {log_dir}", flush=True)
    common = ["--sandbox", args.sandbox, "--model", args.model, "--scenarios", args.scenarios,
              "--family", args.family, "--fallbacks", args.fallbacks, "--epochs", str(args.epochs),
              "--max-samples", str(max(1, args.max_samples // n)), "--log-dir", str(log_dir),
              "--processes", "1", "--no-report", "--no-setup", "--split-child"]
    t0 = time.monotonic()
    procs = []
    for i, group in enumerate(groups):
        display = (args.display or "full") if i == 0 else "none"
        procs.append(subprocess.Popen([sys.executable, "-m", "evals", "run", "--configs",
                                       ",".join(group), "--display", display, *common], cwd=ROOT))
    try:
        codes = [p.wait() for p in procs]
    except KeyboardInterrupt:
        # The children got the same SIGINT: let them clean up their sandboxes and keep logs.
        for p in procs:
            try:
                p.wait(timeout=60)
            except subprocess.TimeoutExpired:
                p.terminate()
        raise
    wall = time.monotonic() - t0
    report_rc = 0 if args.no_report else _report(log_dir)
    print(f"looplab: suite wall time {wall:.1f} s ({n_scenarios} scenarios × {len(configs)} "
          f"configurations × {args.epochs} epoch(s), {n} processes); logs in {log_dir}")
    rc = split_outcome(codes) or report_rc
    if any(codes):
        print(f"looplab: {sum(1 for c in codes if c)} of {n} processes did not finish cleanly "
              f"(exit codes {', '.join(map(str, codes))})", file=sys.stderr)
    _finish(log_dir, rc)
    return rc


def split_outcome(codes: list[int]) -> int:
    """One exit code for a split run: an interrupt wins (130, also when a child died of
    SIGINT), then any other failure (1)."""
    if any(c in (EXIT_INTERRUPTED, -2) for c in codes):
        return EXIT_INTERRUPTED
    return EXIT_ERRORED if any(codes) else 0


def _report(log_dir: Path) -> int:
    res = subprocess.run([sys.executable, "-m", "reports", "scorecard", str(log_dir)], cwd=ROOT)
    return res.returncode


def _point_latest(log_dir: Path) -> None:
    latest = log_dir.parent / "latest"
    try:
        if latest.is_symlink() or latest.exists():
            latest.unlink()
        latest.symlink_to(log_dir.name)
    except OSError:
        pass  # a convenience only


def cmd_repro(args: argparse.Namespace) -> int:
    from evals.repro import repro

    _configs(args.config)
    if args.overrides:  # a bad key or value is an error before the engine is even checked
        from evals.task import agent_for

        agent_for(args.config, [], args.overrides)
    if args.sandbox in ("docker", "k8s"):
        ensure_sandbox(args.sandbox)
    return repro(args.scenario, args.config, sandbox=args.sandbox, model=args.model,
                 log_dir=args.log_dir or str(ROOT / "logs" / "repro"), overrides=args.overrides)


def cmd_list(args: argparse.Namespace) -> int:
    from evals.task import configurations
    from evals.library import load_library

    print("configurations:", ", ".join(configurations()))
    for s in load_library().values():
        print(f"{s.id:45s} {s.family:14s} {', '.join(s.probes)}")
    return 0


def positive_int(text: str) -> int:
    """A count flag: 0 or less would hang the run or do nothing, so it is refused up front."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="looplab", description="looplab: evaluate agent harnesses.")
    sub = p.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="run scenarios × configurations, then write the scorecard")
    r.add_argument("--configs", default=os.environ.get("CONFIGS", "naive,looplab"))
    r.add_argument("--sandbox", default="docker", choices=["docker", "k8s", "local"])
    r.add_argument("--model", default="scripted/suite")
    r.add_argument("--scenarios", default="", help="comma-separated scenario ids (default: all)")
    r.add_argument("--family", default="")
    r.add_argument("--fallbacks", default="", help="fallback models for real-model runs")
    r.add_argument("--epochs", type=positive_int, default=1)
    # Samples mostly wait on sandboxes, not CPU: 16 at once keeps a 2-core machine busy without
    # sandbox round trips queueing behind each other (8 left it idle; 32 gained nothing).
    r.add_argument("--processes", type=positive_int, default=2,
                   help="split the configurations over this many eval processes (default 2)")
    r.add_argument("--no-setup", action="store_true", help=argparse.SUPPRESS)
    r.add_argument("--split-child", action="store_true", help=argparse.SUPPRESS)
    r.add_argument("--max-samples", type=positive_int, default=16,
                   help="samples (and sandboxes) at once, over all configurations")
    r.add_argument("--log-dir", default="")
    r.add_argument("--display", default=None, help="inspect display: full, rich, plain, none")
    r.add_argument("--no-report", action="store_true")
    r.set_defaults(fn=cmd_run)

    rp = sub.add_parser("repro", help="run one scenario and print a readable transcript")
    rp.add_argument("scenario")
    rp.add_argument("--config", default="looplab")
    rp.add_argument("--sandbox", default="docker", choices=["docker", "k8s", "local"])
    rp.add_argument("--model", default="scripted/suite")
    rp.add_argument("--log-dir", default="")
    rp.add_argument("--overrides", default="", help="changes to the preset, e.g. "
                    "loop_detection.ping_pong=false: watch the failure its control prevents")
    rp.set_defaults(fn=cmd_repro)

    from evals.realmodel.run import add_parser as add_real_parser

    add_real_parser(sub)
    from evals.bench.cli import add_parser as add_bench_parser

    add_bench_parser(sub)

    ls = sub.add_parser("list", help="list configurations and scenarios")
    ls.set_defaults(fn=cmd_list)

    args = p.parse_args(argv)
    try:
        return int(args.fn(args))
    except KeyboardInterrupt:
        print("\nlooplab: interrupted; logs written so far are kept, logs/latest was not moved.",
              file=sys.stderr)
        return EXIT_INTERRUPTED
    except CliError as e:
        print(f"looplab: error: {e}", file=sys.stderr)
        return 2
    except ValueError as e:  # bad scenario ids, presets, scenario files
        print(f"looplab: error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
