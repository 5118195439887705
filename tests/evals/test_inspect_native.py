"""inspect-native results: the suite is `inspect eval looplab/suite` from the installed package;
each configuration's log names it; one score and metric per checklist item."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
INSPECT = Path(sys.executable).with_name("inspect")
ITEM = "loop.failing_repeat"


def _inspect(*args: str, log_dir: Path) -> subprocess.CompletedProcess[str]:
    # Run from elsewhere: the task must come from the installed package, not a file here.
    return subprocess.run([str(INSPECT), "eval", *args, "--log-dir", str(log_dir),
                           "--display", "none"], cwd=log_dir.parent, capture_output=True,
                          text=True, timeout=300, env={**os.environ, "NO_COLOR": "1"})


@pytest.fixture(scope="module")
def ablation_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    log_dir = tmp_path_factory.mktemp("native") / "logs"
    res = _inspect("looplab/suite", "-T", "config=looplab", "-T", "sandbox=local",
                   "-T", "scenarios=loop-repeat-failing-command",
                   "-T", "overrides=loop_detection.enabled=false", "--model", "scripted/suite",
                   log_dir=log_dir)
    assert res.returncode == 0, res.stderr[-3000:]
    return log_dir


def test_the_log_says_which_configuration_it_is(ablation_logs: Path):
    from inspect_ai.log import list_eval_logs, read_eval_log

    [info] = list_eval_logs(str(ablation_logs))
    log = read_eval_log(info, header_only=True)
    assert log.eval.task.startswith("looplab_suite_looplab")
    assert log.eval.task_display_name == "looplab[loop_detection.enabled=false]"
    assert {"looplab", "ablation"} <= set(log.eval.tags or [])
    assert log.eval.metadata["overrides"] == "loop_detection.enabled=false"


def test_evals_df_and_samples_df_have_a_column_per_item(ablation_logs: Path):
    from inspect_ai.analysis import SampleSummary, evals_df, samples_df

    from reports.load import item_columns

    evals = evals_df(str(ablation_logs), quiet=True)
    assert evals[f"score_{ITEM}_mean"].iloc[0] == 0.0  # the control is off: it fails
    samples = samples_df(str(ablation_logs), columns=SampleSummary + item_columns(), quiet=True)
    assert samples[f"item_{ITEM}"].iloc[0] == 0.0
    assert samples["metadata_config"].iloc[0] == "looplab[loop_detection.enabled=false]"


def test_an_unknown_scripted_model_is_an_error(tmp_path: Path):
    res = _inspect("looplab/suite", "-T", "sandbox=local", "-T",
                   "scenarios=loop-repeat-failing-command", "--model", "scripted/loop-repaet",
                   log_dir=tmp_path / "logs")
    assert res.returncode != 0
    assert "scripted/loop-repaet" in res.stderr and "no scenario" in res.stderr
