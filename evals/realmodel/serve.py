"""Helpers for ``vllm_serve.sh``: which tool-call parser a model family needs, and waiting for
a server's ``/health`` with an error that points at its log.

    python -m evals.realmodel.serve parser MODEL
    python -m evals.realmodel.serve wait BASE_URL [--timeout S] [--log FILE] [--pid PID]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

# Model-name substring → vLLM ``--tool-call-parser``. Order matters: the first match wins.
# SmolLM2 has no tool format of its own: make_model.py gives it a Hermes-style template.
PARSERS: tuple[tuple[str, str], ...] = (
    ("qwen", "hermes"), ("hermes", "hermes"), ("smollm", "hermes"),
    ("llama", "llama3_json"), ("mistral", "mistral"), ("mixtral", "mistral"),
    ("granite", "granite"), ("internlm", "internlm"), ("phi-4", "phi4_mini_json"),
)
FALLBACK_PARSER = "hermes"


def tool_call_parser(model: str) -> str:
    name = Path(model.rstrip("/")).name.lower() or model.lower()
    return next((parser for key, parser in PARSERS if key in name), FALLBACK_PARSER)


def healthy(base_url: str, timeout_s: float = 5.0) -> bool:
    url = base_url.rstrip("/").removesuffix("/v1") + "/health"
    try:
        with urllib.request.urlopen(url, timeout=timeout_s) as resp:
            return resp.status == 200
    except (urllib.error.URLError, TimeoutError, ConnectionError, ValueError):
        return False


def _alive(pid: int | None) -> bool:
    if pid is None:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def wait_healthy(base_url: str, timeout_s: float, log: Path | None = None,
                 pid: int | None = None) -> str | None:
    """``None`` once ``/health`` answers 200; else why not (server died, or timed out)."""
    where = f"; see {log}" if log else ""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if healthy(base_url):
            return None
        if not _alive(pid):
            return f"the server (pid {pid}) exited before {base_url}/health answered{where}"
        time.sleep(1.0)
    return f"{base_url}/health did not answer within {timeout_s:.0f} s{where}"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m evals.realmodel.serve")
    sub = p.add_subparsers(dest="cmd", required=True)
    sub.add_parser("parser", help="print the tool-call parser for a model").add_argument("model")
    w = sub.add_parser("wait", help="wait for BASE_URL/health")
    w.add_argument("base_url")
    w.add_argument("--timeout", type=float, default=600.0)
    w.add_argument("--log", type=Path)
    w.add_argument("--pid", type=int)
    args = p.parse_args(argv)
    if args.cmd == "parser":
        print(tool_call_parser(args.model))
        return 0
    problem = wait_healthy(args.base_url, args.timeout, args.log, args.pid)
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
