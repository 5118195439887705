"""``python -m harness --preset looplab`` against servers that never answer well: the run ends,
typed, within the retry budget the config states (a real closed port, a real HTTP server)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai_stub_server import StubServer, error

from harness.__main__ import EXIT_CODES
from harness.presets import get_preset
from harness.status import ExitStatus

ROOT = Path(__file__).resolve().parents[2]
BUDGET_S = 3.0
HTTP_TIMEOUT_S = 2.0
"""The stated bound is the budget plus one request's HTTP timeout (``--timeout``)."""
NOT_FOREVER_S = 90.0
"""A wall-clock guard only (interpreter start-up on a loaded machine varies): the bound itself
is checked on the router's own clock, reported in the ``failover.budget_spent`` event."""


@pytest.fixture
def server() -> Iterator[StubServer]:
    with StubServer() as s:
        yield s


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # closed again at once: nothing listens there


def run_looplab(base_url: str, tmp_path: Path, *sets: str) -> tuple[subprocess.CompletedProcess[str],
                                                                     float]:
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    args = [sys.executable, "-m", "harness", "--base-url", base_url, "--model", "m",
            "--preset", "looplab", "--workspace", str(tmp_path), "--timeout", str(HTTP_TIMEOUT_S),
            "--set", f"failover.retry_budget_s={BUDGET_S}"]
    for s in sets:
        args += ["--set", s]
    start = time.monotonic()
    out = subprocess.run([*args, "say hi"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=120)
    return out, time.monotonic() - start


def retry_seconds(stdout: str) -> float:
    m = re.search(r"! failover\.budget_spent failures=\d+ seconds=([\d.]+)", stdout)
    assert m, stdout
    return float(m.group(1))


def test_looplab_states_a_bound() -> None:
    cfg = get_preset("looplab").failover
    assert cfg.retry_budget_s is not None and cfg.max_failed_attempts is not None


def test_closed_port_ends_typed_within_the_budget(tmp_path: Path) -> None:
    out, took = run_looplab(f"http://127.0.0.1:{closed_port()}/v1", tmp_path,
                            "failover.cooldowns_s={timeout: 0.5}", "failover.max_wait_s=5")
    assert out.returncode == EXIT_CODES[ExitStatus.FALLBACKS_EXHAUSTED], out.stdout + out.stderr
    assert retry_seconds(out.stdout) <= BUDGET_S + HTTP_TIMEOUT_S and took < NOT_FOREVER_S
    assert out.stdout.count("! provider.error") >= 3  # it did retry, on the cooldown
    assert "! failover.budget_spent" in out.stdout and "retry budget spent" in out.stdout


@pytest.mark.parametrize("status, headers", [
    (503, {}),
    (429, {"Retry-After": "1"}),
    (529, {"retry-after-ms": "700"}),
])
def test_refusing_server_ends_typed_within_the_budget(server: StubServer, tmp_path: Path,
                                                      status: int, headers: dict[str, str]) -> None:
    server.default = error(status, "come back later", headers)
    out, took = run_looplab(server.url + "/v1", tmp_path,
                            "failover.cooldowns_s={overloaded: 0.5}", "failover.max_wait_s=5")
    assert out.returncode == EXIT_CODES[ExitStatus.FALLBACKS_EXHAUSTED], out.stdout + out.stderr
    assert retry_seconds(out.stdout) <= BUDGET_S + HTTP_TIMEOUT_S and took < NOT_FOREVER_S
    assert 2 <= len(server.chat_requests()) <= 10
    assert "retry budget spent" in out.stdout
