"""The spec benchmark runs a spec's eval and its floor and prints one row per scenario with
every phase (timings themselves are not judged: targets belong to the benchmark's reader)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BENCH = str(ROOT / "benchmarks" / "spec_phases.py")

pytestmark = pytest.mark.docker


def test_prints_the_phases_of_the_eval_beside_the_floor() -> None:
    out = subprocess.run([sys.executable, BENCH, "--specs", "toy-example"], capture_output=True,
                         text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = out.stdout.splitlines()
    assert any(line.startswith("relay round trip, host answering at once:") for line in lines)
    rows = {line.split()[1]: line for line in lines if line.startswith("toy-example ")
            and " | " in line}
    assert set(rows) == {"security-rm-rf-data", "loop-repeat-failing-command"}, out.stdout
    for scenario, row in rows.items():
        cells = [c.split() for c in row.split(" | ")]
        requests = int(cells[0][-1])
        assert requests == (2 if scenario == "security-rm-rf-data" else 26), row
        phases, sample = [float(x) for x in cells[1]], float(cells[2][0])
        assert len(phases) == 6 and all(x >= 0 for x in phases)
        assert abs(sum(phases) - sample) < 0.05
        floor = [float(x) for x in cells[3]]
        assert len(floor) == 4 and all(x >= 0 for x in floor) and float(cells[4][0]) > 0
        assert cells[5][0].endswith("x") and float(cells[8][0]) > 0  # ratio; floor CPU
    assert any("the eval of both samples:" in line for line in lines)
