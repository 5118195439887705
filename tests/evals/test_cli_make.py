"""make as users expect: every variable in `make help`, SCENARIOS= and FAMILY= reach eval."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.skipif(shutil.which("make") is None, reason="needs make")


def _make(*args: str) -> str:
    res = subprocess.run(["make", "--no-print-directory", *args], cwd=ROOT, capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_help_lists_every_variable_with_a_description():
    names = re.findall(r"^([A-Z_]+) \?=", (ROOT / "Makefile").read_text(), re.M)
    assert {"SCENARIOS", "FAMILY", "SANDBOX", "OVERRIDES", "EPOCHS"} <= set(names)
    text = _make("help")
    for name in names:
        line = next((ln for ln in text.splitlines() if ln.strip().startswith(f"{name}=")), "")
        assert line and len(line.split(None, 1)) == 2, f"{name} missing or without a description"
    assert "looplab run" in text and "clean-sandboxes" in text


def test_eval_passes_scenarios_and_family_on():
    cmd = _make("-n", "eval", "SCENARIOS=loop-ping-pong,loop-turn-cap", "FAMILY=loop").splitlines()[-1]
    assert "--scenarios loop-ping-pong,loop-turn-cap" in cmd and "--family loop" in cmd
    plain = _make("-n", "eval").splitlines()[-1]
    assert "--scenarios" not in plain and "--family" not in plain


def test_eval_passes_a_ray_address_on():
    cmd = _make("-n", "eval", "RAY=auto").splitlines()[-1]
    assert "--ray auto" in cmd
    assert "--ray" not in _make("-n", "eval").splitlines()[-1]
