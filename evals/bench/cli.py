"""``python -m evals bench``: run the benchmark (tasks × variants × configurations), then report.

    python -m evals bench --configs naive,looplab --model openai-api/vllm/<name> \
        [--tasks fix-config,sum-csv] [--variants clean,flood] [--sandbox docker|local]

Logs go to ``logs/bench-<stamp>/``; the report (``python -m reports bench``) to
``reports/out/bench-<stamp>/``. Without ``--model`` the scripted oracle plays the model.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent.parent
DEFAULT_MODEL = "scripted-bench/oracle"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``bench`` subcommand on ``python -m evals``."""
    b = sub.add_parser("bench", help="run benchmark tasks (clean and hostile variants), then report")
    b.add_argument("--configs", default="naive,looplab",
                   help="comma-separated presets, peers or harness specs, or 'all' "
                        "(default: naive,looplab)")
    b.add_argument("--model", default=DEFAULT_MODEL,
                   help=f"inspect model, e.g. openai-api/vllm/<name> (default: {DEFAULT_MODEL})")
    b.add_argument("--tasks", default="", help="comma-separated task ids (default: all)")
    b.add_argument("--variants", default="", help="comma-separated variant ids (default: all)")
    b.add_argument("--sandbox", default="docker", choices=["docker", "local"])
    b.add_argument("--fallbacks", default="", help="fallback models for real-model runs")
    b.add_argument("--proxy", default="", help="real server URL: calls go through a fault proxy "
                                               "per sample (plays the variants' faults)")
    b.add_argument("--overrides", default="", help="preset changes for our harness, e.g. "
                                                   "context_window=8192 (the served model's window)")
    b.add_argument("--real", nargs="?", const="", default=None, metavar="URL",
                   help="use the model served at URL (default: $VLLM_BASE_URL or "
                        "http://127.0.0.1:8000, e.g. `make vllm`) through the fault proxy: sets "
                        "--model, --fallbacks, --proxy and the context window")
    b.add_argument("--max-tokens", type=int, default=384, help="per model call, real models")
    b.add_argument("--epochs", type=int, default=1)
    b.add_argument("--max-samples", type=int, default=4)
    b.add_argument("--log-dir", default="", help="default: logs/bench-<stamp>/")
    b.add_argument("--display", default=None, help="inspect display: full, rich, plain, none")
    b.add_argument("--no-report", action="store_true")
    b.set_defaults(fn=cmd_bench)


def cmd_bench(args: argparse.Namespace) -> int:
    from evals.cli import CliError, _configs, ensure_sandbox
    from evals.harnesses.configs import is_spec
    from scenarios.bench import BenchError, select

    configs = _configs(args.configs)
    specs = [c for c in configs if is_spec(c)]
    if specs and args.overrides:
        raise CliError(f"--overrides: not supported for harness spec(s) {', '.join(specs)} "
                       "(change the spec's launch command instead)")
    if args.epochs < 1 or args.max_samples < 1:
        raise CliError("--epochs and --max-samples must be at least 1")
    try:
        chosen = select(args.tasks or None, args.variants or None)  # fail early on bad ids
    except BenchError as e:
        raise CliError(f"--{str(e)}") from e
    real: dict = {}
    if args.real is not None:
        from evals.realmodel.run import RealModelError, resolve

        try:
            server = resolve(args.real)
        except RealModelError as e:
            raise CliError(str(e)) from e
        args.model, args.fallbacks, args.proxy = server.model, server.fallbacks, server.root
        if server.context_window:
            args.overrides = ",".join(filter(None, [args.overrides,
                                                    f"context_window={server.context_window}"]))
        # no client-side retries (the harness must see faults); bounded replies on a CPU
        real = {"model_args": {"max_retries": 0}, "max_tokens": args.max_tokens}
    ensure_sandbox(args.sandbox)
    from inspect_ai import eval as inspect_eval

    from evals.bench.task import looplab_bench

    try:
        tasks = [looplab_bench(config=c, tasks=args.tasks, variants=args.variants,
                               sandbox=args.sandbox, fallbacks=args.fallbacks, proxy=args.proxy,
                               overrides="" if is_spec(c) else args.overrides)
                 for c in configs]
    except ValueError as e:  # e.g. a harness spec with --sandbox local
        raise CliError(str(e).replace("task argument ", "--")) from e
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    log_dir = Path(args.log_dir or ROOT / "logs" / f"bench-{stamp}")
    log_dir.mkdir(parents=True, exist_ok=True)
    print(f"looplab bench: {len(chosen)} samples (tasks × variants) × {len(configs)} "
          f"configurations ({', '.join(configs)}) on {args.model}, sandbox={args.sandbox}; "
          f"logs: {log_dir}", flush=True)
    t0 = time.monotonic()
    logs = inspect_eval(tasks, model=args.model, log_dir=str(log_dir), max_tasks=len(tasks),
                        max_samples=args.max_samples, max_sandboxes=args.max_samples,
                        epochs=args.epochs, display=args.display, fail_on_error=False, **real)
    print(f"looplab bench: wall time {time.monotonic() - t0:.1f} s; logs in {log_dir}")
    rc = 0 if args.no_report else report(log_dir)
    failed = [lg for lg in logs if lg.status != "success"]
    if failed:
        print(f"looplab bench: {len(failed)} log(s) did not finish cleanly: "
              + ", ".join(f"{lg.eval.task_args.get('config')}={lg.status}" for lg in failed))
        return 1
    return rc


def report(log_dir: Path) -> int:
    res = subprocess.run([sys.executable, "-m", "reports", "bench", str(log_dir)], cwd=ROOT)
    return res.returncode
