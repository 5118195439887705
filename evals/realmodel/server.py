"""The real server a real-model run uses: find it and its served models, empty its prefix cache,
read its prefix-cache figures into the run's logs.

The figures land in the inspect log itself (``eval.metadata["looplab_prefix_cache"]``): reports
read logs only. The server's prefix cache is emptied before each configuration when it allows
it (vLLM's ``POST /reset_prefix_cache``, served with ``VLLM_SERVER_DEV_MODE=1``), so one
configuration does not profit from the prompts of the one before.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any

from evals.realmodel.metrics import prefix_cache_hit_rate, scrape
from evals.realmodel.serve import healthy

DEFAULT_BASE = "http://127.0.0.1:8000"
PREFIX_KEY = "looplab_prefix_cache"


class RealModelError(ValueError):
    """The server or the configurations cannot be used for a real-model run (bad input: the
    command line prints it and exits 2)."""


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
    # inspect only when a run is annotated: the command line answers bad input without it
    from inspect_ai.log import read_eval_log, write_eval_log

    log = read_eval_log(log_path)
    log.eval.metadata = {**(log.eval.metadata or {}), PREFIX_KEY: figures}
    write_eval_log(log, log_path)
