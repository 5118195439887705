"""``python -m evals`` (also the ``looplab`` command): run the suite, reproduce one scenario.

    python -m evals run [--configs naive,looplab] [--sandbox docker|local] [--model scripted/suite]
    python -m evals run --ray auto|HOST:PORT|ray://HOST:PORT ...   (a Ray cluster: docs/cluster.md)
    python -m evals repro SCENARIO [--config looplab] [--overrides key=value,...]
    python -m evals list

``run`` writes inspect logs to ``logs/<timestamp>/`` (or ``--log-dir``), then the scorecard
beside them in ``<log dir>/report/``, and prints the wall time; ``logs/latest`` points at the
last *complete* run under ``logs/``. One run at a time writes into a log directory (a second one
is refused). SIGTERM and SIGHUP stop a run the way Ctrl-C does: every process of the run stops
and removes its sandboxes (``evals.stopping``). Exit codes (``evals.flags.EXIT_CODES``, also in
``--help`` and the README): 0 complete, 1 incomplete (a sample errored, a log did not finish or is
damaged: named on stderr), 2 bad input (nothing written), 3 ``repro``: a probed item failed,
129 SIGHUP, 130 interrupted (SIGINT), 143 SIGTERM.

This module parses arguments (``evals.bench.cli`` and ``evals.realmodel.run`` add theirs; the
values every flag takes are checked in ``evals.flags``); each subcommand names the function of
``evals.runs`` that runs and reports it.
"""

from __future__ import annotations

import argparse
import os
import sys

from evals import stopping
from evals.bench.cli import add_parser as add_bench_parser
from evals.cluster.shards import MIN_SHARD
from evals.flags import DISPLAYS, EXIT_CODES, FAMILIES, SANDBOXES, NonEmptyList, positive_int
from evals.harnesses.spec import SpecError, with_spec_folders
from evals.realmodel.run import add_parser as add_real_parser
from evals.sandbox_check import start_check
from scenarios.profiles import load_profile, profile_names

EXIT_BAD_INPUT = 2


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="looplab", description="looplab: evaluate agent harnesses.",
                                epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)

    r = sub.add_parser("run", help="run scenarios × configurations, then write the scorecard",
                       epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    r.add_argument("--configs", default=os.environ.get("CONFIGS") or "naive,looplab",
                   action=NonEmptyList, help="comma-separated presets, peers or harness specs, "
                                             "or all (default: naive,looplab)")
    r.add_argument("--sandbox", default="docker", choices=SANDBOXES)
    r.add_argument("--model", default="scripted/suite")
    r.add_argument("--scenarios", default="", action=NonEmptyList,
                   help="comma-separated scenario ids (default: all)")
    r.add_argument("--family", default="", choices=FAMILIES,
                   help="only this checklist family (default: all)")
    r.add_argument("--fallbacks", default="", action=NonEmptyList,
                   help="fallback models for real-model runs")
    r.add_argument("--suite", default="all", choices=["all", "library", "families"],
                   help="library: the scenario files with their corpus expansions; families: "
                        "the generated variants; all (default): both")
    r.add_argument("--profile", default="", choices=profile_names(),
                   help="a named scenario selection (scenarios/profiles/): core, one scenario per "
                        "checklist item with every family covered, to iterate on a harness "
                        "before the whole library; not with --scenarios")
    r.add_argument("--epochs", type=positive_int, default=1)
    # Samples mostly wait on sandboxes, not CPU: 16 at once keeps a 2-core machine busy without
    # sandbox round trips queueing behind each other (8 left it idle; 32 gained nothing).
    r.add_argument("--processes", type=positive_int, default=2,
                   help="split the configurations over this many eval processes (default 2; with "
                        "--ray the shards are the processes)")
    r.add_argument("--no-setup", action="store_true", help=argparse.SUPPRESS)
    r.add_argument("--split-child", action="store_true", help=argparse.SUPPRESS)
    r.add_argument("--max-samples", type=positive_int, default=16,
                   help="samples (and sandboxes) at once, over all configurations (with --ray: "
                        "within each shard)")
    r.add_argument("--log-dir", default="", help="default: logs/<timestamp>/ (one run at a time)")
    r.add_argument("--display", default=None, choices=DISPLAYS, help="inspect's display")
    r.add_argument("--no-report", action="store_true")
    r.add_argument("--ray", default="", metavar="ADDRESS",
                   help="spread the run over a Ray cluster: auto (the one `ray start` started "
                        "here), HOST:PORT (from a node of it) or ray://HOST:PORT (Ray Client); "
                        "needs the ray extra (docs/cluster.md)")
    r.add_argument("--shard-size", type=positive_int, default=None, metavar="N",
                   help="with --ray: scenarios per shard (default: two shards per CPU of the "
                        f"cluster over all configurations, at least {MIN_SHARD} scenarios each)")
    r.add_argument("--model-base-url", default="", metavar="URL[,URL...]",
                   help="the model's server (e.g. a vLLM server's http://host:8000/v1); with "
                        "--ray several, shared among the shards round-robin")
    r.add_argument("--proxy", default="", metavar="URL[,URL...]",
                   help="a real server's root URL: each sample's model calls go through its own "
                        "fault proxy (on the machine that runs the sample); with --ray several")
    r.set_defaults(run="run_suite")

    rp = sub.add_parser("repro", help="run one scenario and print a readable transcript",
                        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    rp.add_argument("scenario")
    rp.add_argument("--config", default="looplab")
    rp.add_argument("--sandbox", default="docker", choices=SANDBOXES)
    rp.add_argument("--model", default="scripted/suite")
    rp.add_argument("--log-dir", default="")
    rp.add_argument("--overrides", default="", action=NonEmptyList, help="changes to the preset, "
                    "e.g. loop_detection.ping_pong=false: watch the failure its control prevents")
    rp.set_defaults(run="run_repro")

    add_real_parser(sub)
    add_bench_parser(sub)

    ch = sub.add_parser("check-harness", help="build a harness spec's image and check that the "
                        "harness reaches the model (seconds; its own error when it does not)",
                        epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    ch.add_argument("harness", help="a harness spec id, or a folder holding harness.yaml")
    ch.add_argument("--timeout", type=positive_int, default=None, metavar="S",
                    help="stop the harness after S seconds (default: its finish.timeout_s plus "
                         "its start-up allowance at this machine's load)")
    ch.set_defaults(run="check_harness")

    ls = sub.add_parser("list", help="list configurations and scenarios")
    ls.set_defaults(run="run_list")

    args = p.parse_args(argv)
    if getattr(args, "profile", ""):
        if args.scenarios:
            r.error("--profile and --scenarios: give one of them")
        args.scenarios = ",".join(load_profile(args.profile).ids)
    try:  # a spec given as a folder: its folder joins the search path, its id is used
        if getattr(args, "configs", None):
            args.configs = with_spec_folders(args.configs)
        if getattr(args, "config", None):
            args.config = with_spec_folders(args.config)
    except SpecError as e:
        print(f"looplab: error: {e}", file=sys.stderr)
        return EXIT_BAD_INPUT
    if args.run == "check_harness":  # no eval stack: the check answers in seconds
        from evals.harnesses.check import main as check_main  # the Docker SDK: only for it

        return check_main(args.harness, args.timeout)
    # The sandbox's readiness is checked while the eval stack is imported (read-only: a bad
    # argument found later has changed nothing).
    if not getattr(args, "no_setup", False):
        args.sandbox_check = start_check(getattr(args, "sandbox", None))
    with stopping.stop_on_signals(split_child=getattr(args, "split_child", False)) as stop:
        try:
            # evals.runs imports inspect and the eval stack (seconds): once the arguments parsed
            from evals import runs

            rc = int(getattr(runs, args.run)(args))
        except KeyboardInterrupt:
            print("\nlooplab: interrupted; logs written so far are kept, logs/latest was not "
                  "moved.", file=sys.stderr)
            return stop.exit_code()
        except ValueError as e:  # evals.runs.RunError, bad scenario ids, presets, scenario files,
            print(f"looplab: error: {e}", file=sys.stderr)  # an unusable server
            return EXIT_BAD_INPUT
    # inspect may end a cancelled eval itself (cancelled logs) rather than raise
    return stop.exit_code() if rc == stopping.EXIT_INTERRUPTED else rc


if __name__ == "__main__":
    sys.exit(main())
