"""``python -m evals real``: scenarios against a real OpenAI-compatible server (vLLM), each
sample's calls through its own fault proxy, one configuration at a time so the server's
prefix-cache counters can be read before and after each one.

This module parses arguments; ``evals.runs.run_real`` runs and reports, and
``evals.realmodel.server`` finds the server and reads its figures.
"""

from __future__ import annotations

import argparse
import os

from evals.realmodel.server import DEFAULT_BASE

DEFAULT_SCENARIOS = ("provider-quota-fallback,provider-overloaded-fallback,provider-auth-fallback,"
                     "provider-rate-limit-backoff,provider-bad-request-stops,provider-all-exhausted,"
                     "provider-profile-cooldown-order,prompt-prefix-stability")


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register the ``real`` subcommand on ``python -m evals``."""
    r = sub.add_parser("real", help="run scenarios against a real server (vLLM) through the fault "
                                    "proxy, with prefix-cache figures per configuration")
    r.add_argument("--base-url", default="", help=f"server (default: $VLLM_BASE_URL or {DEFAULT_BASE})")
    r.add_argument("--served-model", default=None, help="model name to use (default: the first served)")
    r.add_argument("--configs", default=os.environ.get("CONFIGS", "naive,seed004,looplab"),
                   help="presets and harness specs (sandboxes/harnesses/<id>), or 'all' (peers "
                        "are left out: their calls bypass the proxy)")
    r.add_argument("--scenarios", default=DEFAULT_SCENARIOS)
    r.add_argument("--family", default="")
    r.add_argument("--sandbox", default="docker", choices=["docker", "local"])
    r.add_argument("--max-samples", type=int, default=4)
    r.add_argument("--max-tokens", type=int, default=384, help="per model call (default 384)")
    r.add_argument("--no-proxy", action="store_true", help="call the server directly (no faults)")
    r.add_argument("--log-dir", default="")
    r.add_argument("--display", default=None)
    r.add_argument("--no-report", action="store_true")
    r.set_defaults(run="run_real")
