"""``python -m evals bench``: run the benchmark (tasks × variants × configurations), then report.

    python -m evals bench --configs naive,looplab --model openai-api/vllm/<name> \
        [--tasks fix-config,sum-csv] [--variants clean,flood] [--sandbox docker|local]

Logs go to ``logs/bench-<stamp>/``; the report (``python -m reports bench``) beside them, to
``logs/bench-<stamp>/report/``. Without ``--model`` the scripted oracle plays the model.
This module parses arguments; ``evals.runs.run_bench`` runs and reports.
"""

from __future__ import annotations

import argparse

from evals.flags import DISPLAYS, EXIT_CODES, NonEmptyList, positive_int

DEFAULT_MODEL = "scripted-bench/oracle"


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``bench`` subcommand on ``python -m evals``."""
    b = sub.add_parser("bench", help="run benchmark tasks (clean and hostile variants), then report",
                       epilog=EXIT_CODES, formatter_class=argparse.RawDescriptionHelpFormatter)
    b.add_argument("--configs", default="naive,looplab", action=NonEmptyList,
                   help="comma-separated presets, peers or harness specs, or 'all' "
                        "(default: naive,looplab)")
    b.add_argument("--model", default=DEFAULT_MODEL,
                   help=f"inspect model, e.g. openai-api/vllm/<name> (default: {DEFAULT_MODEL})")
    b.add_argument("--tasks", default="", action=NonEmptyList, help="comma-separated task ids (default: all)")
    b.add_argument("--variants", default="", action=NonEmptyList, help="comma-separated variant ids (default: all)")
    b.add_argument("--sandbox", default="docker", choices=["docker", "local"])
    b.add_argument("--fallbacks", default="", action=NonEmptyList, help="fallback models for real-model runs")
    b.add_argument("--proxy", default="", help="real server URL: calls go through a fault proxy "
                                               "per sample (plays the variants' faults)")
    b.add_argument("--overrides", default="", action=NonEmptyList, help="preset changes for our harness, e.g. "
                                                   "context_window=8192 (the served model's window)")
    b.add_argument("--real", nargs="?", const="", default=None, metavar="URL",
                   help="use the model served at URL (default: $VLLM_BASE_URL or "
                        "http://127.0.0.1:8000, e.g. `make vllm`) through the fault proxy: sets "
                        "--model, --fallbacks, --proxy and the context window")
    b.add_argument("--max-tokens", type=positive_int, default=384, help="per model call, real models")
    b.add_argument("--epochs", type=positive_int, default=1)
    b.add_argument("--max-samples", type=positive_int, default=4)
    b.add_argument("--log-dir", default="", help="default: logs/bench-<stamp>/ (one run at a time)")
    b.add_argument("--display", default=None, choices=DISPLAYS, help="inspect's display")
    b.add_argument("--no-report", action="store_true")
    b.set_defaults(run="run_bench")
