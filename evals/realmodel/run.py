"""``python -m evals real``: scenarios against a real OpenAI-compatible server (vLLM), each
sample's calls through its own fault proxy, one configuration at a time so the server's
prefix-cache counters can be read before and after each one.

The figures land in the inspect log itself (``eval.metadata["looplab_prefix_cache"]``): reports
read logs only. The server's prefix cache is emptied before each configuration when it allows
it (vLLM's ``POST /reset_prefix_cache``, served with ``VLLM_SERVER_DEV_MODE=1``), so one
configuration does not profit from the prompts of the one before.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from evals.realmodel.metrics import prefix_cache_hit_rate, scrape
from evals.realmodel.serve import healthy

DEFAULT_BASE = "http://127.0.0.1:8000"
DEFAULT_SCENARIOS = ("provider-quota-fallback,provider-overloaded-fallback,provider-auth-fallback,"
                     "provider-rate-limit-backoff,provider-bad-request-stops,provider-all-exhausted,"
                     "provider-profile-cooldown-order,prompt-prefix-stability")
PREFIX_KEY = "looplab_prefix_cache"


class RealModelError(Exception):
    pass


def server_root(base_url: str) -> str:
    return base_url.rstrip("/").removesuffix("/v1")


def served_models(root: str) -> dict[str, int | None]:
    """Served model name → its ``max_model_len`` (``None`` when the server does not say)."""
    try:
        with urllib.request.urlopen(root + "/v1/models", timeout=10) as resp:
            data = json.load(resp)
    except (urllib.error.URLError, TimeoutError, ValueError) as e:
        raise RealModelError(f"{root}/v1/models: {e}") from None
    return {m["id"]: m.get("max_model_len") for m in data.get("data", [])
            if isinstance(m, dict) and "id" in m}


def reset_prefix_cache(root: str) -> bool:
    req = urllib.request.Request(root + "/reset_prefix_cache", method="POST", data=b"")
    try:
        with urllib.request.urlopen(req, timeout=30) as resp:
            return resp.status == 200
    except (urllib.error.URLError, TimeoutError):
        return False


@dataclass(frozen=True)
class RealServer:
    """A running OpenAI-compatible server, resolved for inspect."""

    root: str
    """Server root URL (no ``/v1``)."""
    model: str
    """Inspect model name of the primary (``openai-api/vllm/<served name>``)."""
    fallbacks: str
    """Inspect model name of the fallback alias, or ``""`` when the server has none."""
    context_window: int | None
    """The server's ``max_model_len`` for the primary, when it says."""


def resolve(base_url: str, model: str | None = None) -> RealServer:
    """Find the server and its served names, with errors that say what to do; point inspect's
    ``openai-api/vllm`` provider at it."""
    root = server_root(base_url or os.environ.get("VLLM_BASE_URL") or DEFAULT_BASE)
    if not healthy(root):
        raise RealModelError(f"no healthy server at {root} (/health): start one with `make vllm`, "
                             "or set VLLM_BASE_URL to a running OpenAI-compatible server")
    served = served_models(root)
    if not served:
        raise RealModelError(f"{root}/v1/models lists no model")
    primary = model or next(iter(served))
    if primary not in served:
        raise RealModelError(f"--served-model {primary!r} is not served by {root}; it serves: "
                             f"{', '.join(served)}")
    fallback = f"{primary}-fallback" if f"{primary}-fallback" in served else None
    # inspect's ``openai-api/vllm/<name>`` provider reads these; the proxy replaces the URL per
    # sample, the key is only a label there (vLLM without --api-key accepts any).
    os.environ["VLLM_BASE_URL"] = root + "/v1"
    os.environ.setdefault("VLLM_API_KEY", "looplab")
    return RealServer(root, f"openai-api/vllm/{primary}",
                      f"openai-api/vllm/{fallback}" if fallback else "", served[primary])


def prefix_figures(root: str, before: Any, reset: bool) -> dict[str, Any]:
    rate = prefix_cache_hit_rate(before, scrape(root))
    return {"hit_rate": rate.value, "hits": rate.hits, "queries": rate.queries,
            "reason": rate.reason, "cache_reset_before": reset}


def annotate(log_path: str, figures: dict[str, Any]) -> None:
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(log_path)
    log.eval.metadata = {**(log.eval.metadata or {}), PREFIX_KEY: figures}
    write_eval_log(log, log_path)


def real_configs(configs: list[str], everything: bool, sandbox: str) -> list[str]:
    """The configurations that can run against a real server through the fault proxy: presets and
    harness specs (Docker only). A peer's model calls bypass the proxy: ``all`` leaves peers out,
    naming one is refused."""
    from evals.harnesses.configs import is_spec
    from evals.task import PEERS

    peers = [c for c in configs if c in PEERS]
    if peers and not everything:
        raise RealModelError(f"--configs: {', '.join(peers)} cannot run through the fault proxy (a "
                             "peer's model calls do not go through a model chain looplab builds); "
                             "use presets or harness specs")
    specs = [c for c in configs if is_spec(c)]
    if specs and sandbox != "docker":
        raise RealModelError(f"--sandbox {sandbox}: harness specs ({', '.join(specs)}) run only in "
                             "the docker sandbox")
    return [c for c in configs if c not in PEERS]


def cmd_real(args: argparse.Namespace) -> int:
    from inspect_ai import eval as inspect_eval

    from evals.cli import _configs, _point_latest, _report, ensure_sandbox
    from evals.harnesses.configs import is_spec
    from evals.task import looplab_suite
    from evals.library import select

    configs = real_configs(_configs(args.configs), args.configs.strip() == "all", args.sandbox)
    chosen = select(args.scenarios or None, args.family or None)
    server = resolve(args.base_url, args.served_model)
    root, model, fallbacks = server.root, server.model, server.fallbacks
    # The harness is told the served window, as a deployment would be.
    overrides = f"context_window={server.context_window}" if server.context_window else ""
    ensure_sandbox(args.sandbox)
    stamp = datetime.now().strftime("%Y%m%d-%H%M%S")
    log_dir = Path(args.log_dir or Path("logs") / f"real-{stamp}")
    log_dir.mkdir(parents=True, exist_ok=True)
    _point_latest(log_dir)
    print(f"looplab: {len(chosen)} scenarios × {len(configs)} configurations on {model} "
          f"(fallback: {fallbacks or 'none served'}) at {root}, through the fault proxy"
          f"{'' if not args.no_proxy else ' (off)'}; logs: {log_dir}", flush=True)
    t0, rc = time.monotonic(), 0
    for config in configs:
        reset = reset_prefix_cache(root)
        before = scrape(root)
        # A harness spec is told nothing beyond its launch command (no preset to override).
        task = looplab_suite(config=config, scenarios=",".join(s.id for s in chosen),
                             sandbox=args.sandbox, fallbacks=fallbacks,
                             overrides="" if is_spec(config) else overrides,
                             proxy="" if args.no_proxy else root)
        started = time.monotonic()
        # max_retries=0 for the OpenAI client (direct calls; proxied models set their own);
        # max_tokens bounds a small model's rambling, which on a CPU costs minutes per call.
        [log] = inspect_eval(task, model=model, model_args={"max_retries": 0},
                             log_dir=str(log_dir), max_samples=args.max_samples,
                             max_sandboxes=args.max_samples, display=args.display,
                             max_tokens=args.max_tokens, fail_on_error=False)
        figures = {**prefix_figures(root, before, reset), "wall_s": round(time.monotonic() - started, 1)}
        annotate(log.location, figures)
        hr = figures["hit_rate"]
        print(f"looplab: {config}: {log.status}; prefix-cache hit rate "
              f"{'n/a (' + str(figures['reason']) + ')' if hr is None else f'{hr:.2f}'}; "
              f"{figures['wall_s']} s", flush=True)
        rc = rc or (0 if log.status == "success" else 1)
    if not args.no_report:
        rc = _report(log_dir) or rc
    print(f"looplab: real-model wall time {time.monotonic() - t0:.1f} s; logs in {log_dir}")
    return rc


def add_parser(sub: Any) -> None:
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
    r.set_defaults(fn=lambda a: _guard(cmd_real, a))


def _guard(fn: Any, args: argparse.Namespace) -> int:
    try:
        return int(fn(args))
    except RealModelError as e:
        print(f"looplab: error: {e}", file=sys.stderr)
        return 2



