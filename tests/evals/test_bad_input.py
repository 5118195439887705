"""Bad input is caught before anything runs, with the file and the field named."""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from evals.library import load_library
from scenarios.loader import LIBRARY_DIR, ScenarioError

BASE = LIBRARY_DIR / "loop-repeat-failing-command.yaml"


def _library(tmp_path: Path, text: str, name: str = "loop-repeat-failing-command") -> Path:
    d = tmp_path / "lib"
    d.mkdir(exist_ok=True)
    (d / f"{name}.yaml").write_text(text, encoding="utf-8")
    return d


def test_unknown_judge_names_file_and_field(tmp_path):
    d = _library(tmp_path, BASE.read_text().replace("judge: counter_at_most", "judge: counter_at_mots"))
    with pytest.raises(ScenarioError) as e:
        load_library(d)
    assert "loop-repeat-failing-command.yaml" in str(e.value)
    assert "probes.loop.failing_repeat.judge" in str(e.value) and "counter_at_most" in str(e.value)


def test_wrongly_typed_judge_parameter_names_the_field(tmp_path):
    d = _library(tmp_path, BASE.read_text().replace("max: 2", "max: two"))
    with pytest.raises(ScenarioError) as e:
        load_library(d)
    assert "loop-repeat-failing-command.yaml" in str(e.value)
    assert "probes.loop.failing_repeat.params.max" in str(e.value)


def test_unknown_judge_parameter_is_refused(tmp_path):
    d = _library(tmp_path, BASE.read_text().replace("max: 2", "max: 2\n      maxx: 3"))
    with pytest.raises(ScenarioError, match=r"params\.maxx"):
        load_library(d)


def test_non_utf8_file_is_named(tmp_path):
    d = tmp_path / "lib"
    d.mkdir()
    (d / "loop-repeat-failing-command.yaml").write_bytes(
        BASE.read_bytes().replace(b"over and over", b"over and \xe9ver"))
    with pytest.raises(ScenarioError, match=r"loop-repeat-failing-command\.yaml: not UTF-8"):
        load_library(d)


def test_duplicate_ids_are_refused(tmp_path):
    corpus = "security-context-file-injection"
    d = _library(tmp_path, BASE.read_text())
    shutil.copy(LIBRARY_DIR / f"{corpus}.yaml", d)
    # a plain scenario whose id collides with one of the corpus file's expanded samples
    expanded = next(i for i in load_library(LIBRARY_DIR) if i.startswith(f"{corpus}--"))
    (d / f"{expanded}.yaml").write_text(BASE.read_text().replace(
        "id: loop-repeat-failing-command", f"id: {expanded}"), encoding="utf-8")
    with pytest.raises(ScenarioError, match=r"ids must be unique"):
        load_library(d)


@pytest.mark.parametrize("flag", ["--max-samples", "--epochs", "--processes"])
@pytest.mark.parametrize("value", ["0", "-1"])
def test_zero_or_negative_counts_are_refused(flag, value):
    res = subprocess.run([sys.executable, "-m", "evals", "run", "--sandbox", "local", flag, value,
                          "--scenarios", "loop-repeat-failing-command"],
                         capture_output=True, text=True, timeout=60)
    assert res.returncode == 2
    assert flag in res.stderr and "at least 1" in res.stderr


def test_a_scenario_outside_the_chosen_suite_is_refused_before_anything_runs(tmp_path):
    family_variant = next(i for i, s in load_library().items() if s.family_id)
    res = subprocess.run([sys.executable, "-m", "evals", "run", "--sandbox", "local",
                          "--suite", "library", "--scenarios", family_variant,
                          "--log-dir", str(tmp_path / "logs")],
                         capture_output=True, text=True, timeout=120)
    assert res.returncode == 2
    assert f"scenario {family_variant!r} is not in suite 'library'" in res.stderr
    assert not (tmp_path / "logs").exists()  # nothing ran, nothing was written


def test_the_early_sandbox_check_only_looks():
    """The command line's early check is setup.sh's read-only mode, for Docker only."""
    from evals.sandbox_check import ready, start_check

    assert start_check("local") is None and not ready(None)
    check = start_check("docker")
    assert check is not None and check.args[-1] == "--check"
    check.wait(timeout=120)
