"""The overhead benchmark runs and prints one row per preset (timings themselves not judged)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_prints_a_row_per_preset() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "harness_overhead.py"), "--turns", "5",
         "--warmup", "1", "--presets", "naive", "looplab"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert out.returncode == 0, out.stderr
    rows = out.stdout.splitlines()
    assert "median µs" in rows[1] and "p95 µs" in rows[1]
    names = [r.split()[0] for r in rows[2:]]
    assert names == ["naive", "looplab"]
    assert all(float(r.split()[2]) > 0 for r in rows[2:])


def test_unknown_preset_is_named() -> None:
    out = subprocess.run(
        [sys.executable, str(ROOT / "benchmarks" / "harness_overhead.py"), "--presets", "nope"],
        capture_output=True, text=True, timeout=120, cwd=ROOT,
    )
    assert out.returncode == 2 and "unknown preset(s) ['nope']" in out.stderr
