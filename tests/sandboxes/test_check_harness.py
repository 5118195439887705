"""``looplab check-harness``: the toy reaches the model; a copy with an import typo in its
launcher does not, and the check prints the harness's own error (a real image, a real container).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evals.harnesses.spec import SPECS_DIR

pytestmark = pytest.mark.docker
REPO = Path(__file__).resolve().parents[2]


def _check(harness: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evals", "check-harness", harness],
                          capture_output=True, text=True, cwd=REPO, timeout=900)


def test_the_toy_reaches_the_model() -> None:
    res = _check("toy-example")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "toy-example: reached the model: 1 request(s)" in res.stdout
    assert "exited with code 0" in res.stdout


def test_an_import_typo_shows_the_harness_own_error(tmp_path: Path) -> None:
    folder = tmp_path / "typo-toy"
    shutil.copytree(SPECS_DIR / "toy-example", folder)
    spec = folder / "harness.yaml"
    spec.write_text(spec.read_text().replace("id: toy-example", "id: typo-toy"))
    toy = folder / "toy.py"
    toy.write_text(toy.read_text().replace("\nimport json\n", "\nimport jsonn\n", 1))
    res = _check(str(folder))  # a folder: no LOOPLAB_HARNESSES needed
    assert res.returncode == 1, res.stdout + res.stderr
    assert "typo-toy: did NOT reach the model: it exited with code 1" in res.stdout
    assert "ModuleNotFoundError: No module named 'jsonn'" in res.stdout


def test_an_unknown_harness_is_bad_input() -> None:
    res = _check("no-such-harness")
    assert res.returncode == 2
    assert "unknown harness spec 'no-such-harness'" in res.stderr
