"""``python -m evals`` (also the ``looplab`` command): run the suite, reproduce one scenario.

    python -m evals run [--configs naive,looplab] [--sandbox docker|local] [--model scripted/suite]
    python -m evals repro SCENARIO [--config looplab] [--overrides key=value,...]
    python -m evals list

``run`` writes inspect logs to ``logs/<timestamp>/``, then the scorecard to
``reports/out/<timestamp>/``, and prints the wall time; ``logs/latest`` points at the last
*complete* run. Exit codes: 0 complete, 1 a sample errored (infrastructure: named on stderr),
2 bad input, 130 interrupted; ``repro`` exits 3 when a probed item failed.

This module parses arguments (``evals.bench.cli`` and ``evals.realmodel.run`` add theirs); each
subcommand names the function of ``evals.runs`` that runs and reports it.
"""

from __future__ import annotations

import argparse
import os
import sys

from evals.bench.cli import add_parser as add_bench_parser
from evals.realmodel.run import add_parser as add_real_parser
from evals.sandbox_check import start_check


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
    r.add_argument("--suite", default="all", choices=["all", "library", "families"],
                   help="library: the scenario files with their corpus expansions; families: "
                        "the generated variants; all (default): both")
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
    r.set_defaults(run="run_suite")

    rp = sub.add_parser("repro", help="run one scenario and print a readable transcript")
    rp.add_argument("scenario")
    rp.add_argument("--config", default="looplab")
    rp.add_argument("--sandbox", default="docker", choices=["docker", "k8s", "local"])
    rp.add_argument("--model", default="scripted/suite")
    rp.add_argument("--log-dir", default="")
    rp.add_argument("--overrides", default="", help="changes to the preset, e.g. "
                    "loop_detection.ping_pong=false: watch the failure its control prevents")
    rp.set_defaults(run="run_repro")

    add_real_parser(sub)
    add_bench_parser(sub)

    ls = sub.add_parser("list", help="list configurations and scenarios")
    ls.set_defaults(run="run_list")

    args = p.parse_args(argv)
    # The sandbox's readiness is checked while the eval stack is imported (read-only: a bad
    # argument found later has changed nothing).
    if not getattr(args, "no_setup", False):
        args.sandbox_check = start_check(getattr(args, "sandbox", None))
    # evals.runs imports inspect and the eval stack (seconds): only once the arguments parsed
    from evals import runs

    try:
        return int(getattr(runs, args.run)(args))
    except KeyboardInterrupt:
        print("\nlooplab: interrupted; logs written so far are kept, logs/latest was not moved.",
              file=sys.stderr)
        return runs.EXIT_INTERRUPTED
    except (runs.RunError, ValueError) as e:  # ValueError: bad scenario ids, presets, scenario
        print(f"looplab: error: {e}", file=sys.stderr)  # files, an unusable server
        return runs.EXIT_BAD_INPUT


if __name__ == "__main__":
    sys.exit(main())
