"""``python -m evals bench``: run the benchmark (tasks × variants × configurations), then report.

    python -m evals bench --configs naive,looplab --model openai-api/vllm/<name> \
        [--tasks fix-config,sum-csv] [--variants clean,flood] [--sandbox docker|local]

Logs go to ``logs/bench-<stamp>/``; the report (``python -m reports bench``) to
``reports/out/bench-<stamp>/``. Without ``--model`` the scripted oracle plays the model.
This module parses arguments; ``evals.runs.run_bench`` runs and reports.
"""

from __future__ import annotations

import argparse

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
    b.set_defaults(run="run_bench")
