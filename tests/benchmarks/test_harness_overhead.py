"""The overhead benchmark runs and prints one row per harness, side by side (timings themselves
are not judged: speed targets belong to the benchmark, not to tests)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = str(ROOT / "benchmarks" / "harness_overhead.py")


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, BENCH, *args], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)


def test_prints_every_length_and_the_growth_per_preset() -> None:
    out = _run("--turns", "6", "12", "--window", "3", "--warmup", "1", "--repeat", "1",
               "--presets", "naive", "looplab", "--peers")
    assert out.returncode == 0, out.stderr
    rows = out.stdout.splitlines()
    assert "turns 10-12 against 1-3 of the 12-turn run" in rows[0]
    assert rows[1].split() == ["harness", "controls", "6", "turns", "12", "turns", "growth"]
    table = {r.split()[0]: r.split()[1:] for r in rows[2:]}
    assert list(table) == ["naive", "looplab"]
    for cells in table.values():
        assert float(cells[1]) > 0 and float(cells[2]) > 0 and cells[3].endswith("x")
    assert int(table["looplab"][0]) > int(table["naive"][0]) == 0  # controls switched on


def test_a_peer_is_measured_or_says_why_not() -> None:
    out = _run("--turns", "5", "--window", "2", "--warmup", "0", "--presets", "naive",
               "--peers", "mini-swe-agent")
    assert out.returncode == 0, out.stderr
    peer = next(r for r in out.stdout.splitlines() if r.startswith("mini-swe-agent"))
    assert "not run: " in peer or float(peer.split()[2]) > 0


def test_unknown_names_are_named() -> None:
    out = _run("--presets", "nope")
    assert out.returncode == 2 and "unknown preset(s) ['nope']" in out.stderr
    out = _run("--peers", "nobody")
    assert out.returncode == 2 and "unknown peer(s) ['nobody']" in out.stderr
