"""``python -m evals repro``: one scenario, a readable transcript, the verdict; the same command
gives the same verdict and figures; ``--overrides`` shows the failure a control prevents."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def repro(tmp_path: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evals", "repro", "loop-ping-pong", "--config",
                           "looplab", "--sandbox", "local", "--log-dir", str(tmp_path), *extra],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)


def verdict_lines(out: str) -> list[str]:
    return [line for line in out.splitlines() if re.match(r"(PASS|FAIL) ", line)]


def test_repro_prints_turns_calls_and_the_verdict_and_repeats_it(tmp_path):
    a, b = repro(tmp_path / "a"), repro(tmp_path / "b")
    assert a.returncode == 0, a.stdout[-2000:] + a.stderr[-2000:]
    assert "--- turn 1 " in a.stdout and "[model]" in a.stdout
    assert verdict_lines(a.stdout) and all(v.startswith("PASS") for v in verdict_lines(a.stdout))
    assert verdict_lines(a.stdout) == verdict_lines(b.stdout)


def test_repro_with_the_control_switched_off_shows_the_failure(tmp_path):
    res = repro(tmp_path, "--overrides", "loop_detection.ping_pong=false")
    assert res.returncode == 3, res.stdout[-2000:] + res.stderr[-2000:]
    assert "configuration: looplab (loop_detection.ping_pong=false)" in res.stdout
    assert any(v.startswith("FAIL  loop.ping_pong") for v in verdict_lines(res.stdout))


def test_repro_names_a_bad_override_before_running_anything(tmp_path):
    res = repro(tmp_path, "--overrides", "loop_detection.pingpong=false")
    assert res.returncode == 2
    assert "loop_detection.pingpong" in res.stderr
    assert not list(tmp_path.glob("*.eval"))
