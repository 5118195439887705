"""The realistic benchmark runs its session through every part it means to measure and prints
them (timings themselves are not judged: speed targets belong to the benchmark, not to tests)."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BENCH = str(ROOT / "benchmarks" / "harness_realistic.py")
sys.path.insert(0, str(ROOT / "benchmarks"))

from realistic_session import BIG_LOG_BYTES, CYCLE, session_turn  # noqa: E402


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, BENCH, *args], capture_output=True, text=True,
                          timeout=600, cwd=ROOT)


def test_the_session_is_the_same_on_every_run_and_has_each_kind_of_call() -> None:
    turns = [session_turn(t) for t in range(60)]
    assert turns == [session_turn(t) for t in range(60)]
    kinds = {t.kind for t in turns}
    assert {f(0).kind for f in CYCLE} | {"big-log"} <= kinds
    big = [t for t in turns if t.kind == "big-log"]
    assert big and all(len(t.output) >= BIG_LOG_BYTES for t in big)
    assert len({t.command for t in turns}) > 40  # mostly distinct calls, some repeated (polls, re-runs)
    repeated = [t for t in turns if sum(u.command == t.command for u in turns) > 1]
    assert repeated and all(len({u.output for u in turns if u.command == t.command}) > 1 for t in repeated)


def test_prints_each_preset_and_the_breakdown_of_looplab() -> None:
    out = _run("--turns", "20", "70", "--window", "10", "--warmup", "0", "--presets", "naive", "looplab",
               "--breakdown", "looplab")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "turns 61-70 over turns 46-55 of the 70-turn run" in lines[0]
    assert lines[1].split()[:4] == ["preset", "controls", "wall", "20"]
    rows = {line.split()[0]: line for line in lines[2:4]}
    assert list(rows) == ["naive", "looplab"]
    for row in rows.values():
        cells = row.split()
        assert float(cells[2].split("/")[0]) > 0 and cells[4].endswith("x")
        assert re.fullmatch(r"\d+\.\d\d/\d+\.\d\dx", cells[8])  # growth, wall and CPU
    # The session makes progress: looplab compacts it but never finds a loop in it.
    assert "context.compacted" in rows["looplab"] and "loop.critical" not in rows["looplab"]
    text = out.stdout
    for part in ("loop detection: output masking", "shell parsing", "redaction",
                 "compaction: identifier scan", "transcript writes", "control loop_detection"):
        assert part in text
    assert "bashlex parsed" in text and "distinct command lines of the model (70 calls)" in text


def test_unknown_presets_are_named() -> None:
    out = _run("--presets", "nope")
    assert out.returncode == 2 and "--presets: unknown preset(s) ['nope']" in out.stderr
    out = _run("--breakdown", "nobody")
    assert out.returncode == 2 and "--breakdown: unknown preset(s) ['nobody']" in out.stderr


def test_a_checkout_is_compared_with_another_interleaved(tmp_path: Path) -> None:
    ab = str(ROOT / "benchmarks" / "realistic_ab.py")
    out = subprocess.run([sys.executable, ab, str(ROOT), "--turns", "110", "--rounds", "1", "--presets", "naive"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "110 turns x 1 interleaved rounds" in lines[0]
    rows = [line.split() for line in lines[2:]]
    assert [r[:2] for r in rows] == [["naive", "this"], ["naive", "other"]]
    assert all(float(r[2]) > 0 and float(r[5]) > 0 and r[8].endswith("x") for r in rows)
    out = subprocess.run([sys.executable, ab, str(tmp_path)], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert out.returncode == 2 and "is not a looplab checkout" in out.stderr
