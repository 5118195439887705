"""Logs → tidy DataFrames, through inspect's own reader."""

from __future__ import annotations

from pathlib import Path

import logbuilder as lb
import pytest

from reports.load import load_run, select_config
from reports.logdir import ReportError


def _sample(run, config, scenario, epoch):
    s = run.samples
    row = s[(s["config"] == config) & (s["scenario_id"] == scenario) & (s["epoch"] == epoch)]
    assert len(row) == 1, f"expected one row for {config}/{scenario}/{epoch}, got {len(row)}"
    return row.iloc[0]


def _items(run, config, scenario, epoch):
    i = run.items
    rows = i[(i["config"] == config) & (i["scenario_id"] == scenario) & (i["epoch"] == epoch)]
    return {r["item"]: r for r in rows.to_dict("records")}


def test_configurations_in_report_order(standard_run):
    assert standard_run.configs == ["naive", "looplab", "inspect-react"]
    assert standard_run.name == "20261121-203000"


def test_every_planned_sample_is_a_row(standard_run):
    counts = standard_run.samples.groupby("config").size().to_dict()
    # 5 scenarios × 2 epochs, and the cancelled peer's 5 planned samples (2 ran, 3 never did).
    assert counts == {"naive": 10, "looplab": 10, "inspect-react": 5}


def test_verdicts_figures_and_explanations_parsed(standard_run):
    items = _items(standard_run, "naive", "loop-repeat-failing-command", 1)
    loop = items[lb.LOOP]
    assert (loop["state"], loop["figure"], loop["unit"]) == ("fail", 12.0, "calls")
    assert loop["explanation"] == "12 identical calls ran"
    ok = _items(standard_run, "looplab", "loop-repeat-failing-command", 2)[lb.LOOP]
    assert (ok["state"], ok["figure"]) == ("pass", 3.0)
    sample = _sample(standard_run, "naive", "loop-repeat-failing-command", 1)
    assert (sample["exit_status"], sample["model_calls"], sample["total_tokens"]) == (
        "turn_limit", 30.0, 9000.0)


def test_unjudged_item_is_its_own_state(standard_run):
    items = _items(standard_run, "naive", "context-huge-output", 1)
    assert items[lb.OFFLOAD]["state"] == "unjudged"
    assert items[lb.TAIL]["state"] == "fail"


def test_errored_sample_is_an_error_never_a_gap(standard_run):
    sample = _sample(standard_run, "naive", "provider-quota", 1)
    assert sample["status"] == "error"
    assert "sandbox exited during setup" in sample["error"]
    items = _items(standard_run, "naive", "provider-quota", 1)
    assert items[lb.QUOTA]["state"] == "error"


def test_cancelled_log_never_run_samples_are_errors(standard_run):
    sample = _sample(standard_run, "inspect-react", "provider-quota", 1)
    assert sample["status"] == "error"
    assert sample["error"].startswith("cancelled")
    # probes of a never-run sample come from the same scenario in other configurations
    assert list(sample["probes"]) == [lb.QUOTA]
    assert _items(standard_run, "inspect-react", "provider-quota", 1)[lb.QUOTA]["state"] == "error"
    ran = _sample(standard_run, "inspect-react", "loop-repeat-failing-command", 1)
    assert ran["status"] == "scored"


def test_corpus_metadata_kept(standard_run):
    assert _sample(standard_run, "looplab", "injection-agents-md", 1)["corpus"] == "poisoned"
    assert _sample(standard_run, "looplab", "benign-agents-md", 2)["corpus"] == "benign"
    assert _sample(standard_run, "looplab", "provider-quota", 2)["corpus"] is None


def test_select_config_and_unknown_config(standard_run):
    part = select_config(standard_run, "looplab")
    assert set(part.samples["config"]) == {"looplab"} and part.configs == ["looplab"]
    with pytest.raises(ReportError, match="'nope' is not in .*found: naive, looplab"):
        select_config(standard_run, "nope")


def test_retried_log_keeps_the_scored_newest_sample(tmp_path: Path):
    item = {lb.LOOP: lb.Item(True, 2, "calls", "ok")}
    lb.write_run_log(tmp_path, "looplab", [lb.Run("s1", item, error="boom")], minute=0)
    lb.write_run_log(tmp_path, "looplab", [lb.Run("s1", item)], minute=5)
    run = load_run(tmp_path)
    assert len(run.samples) == 1
    assert run.samples.iloc[0]["status"] == "scored"
    assert any("more than one log" in n for n in run.notes)


def test_several_models_label_configurations_with_the_model(tmp_path: Path):
    item = {lb.LOOP: lb.Item(True, 2, "calls", "ok")}
    lb.write_run_log(tmp_path, "looplab", [lb.Run("s1", item)], model="scripted/suite")
    lb.write_run_log(tmp_path, "looplab", [lb.Run("s1", item)], model="vllm/tiny", minute=1)
    run = load_run(tmp_path)
    assert sorted(run.configs) == ["looplab @ scripted/suite", "looplab @ vllm/tiny"]


def test_score_value_without_metadata_still_counts(tmp_path: Path):
    # A scorer that left no metadata: the value dict alone still says pass/fail.
    from inspect_ai.log import read_eval_log, write_eval_log

    path = lb.write_run_log(tmp_path, "naive", [lb.Run("s1", {lb.LOOP: lb.Item(False, 9)})])
    log = read_eval_log(str(path))
    log.samples[0].scores["checklist"].metadata = None
    write_eval_log(log, str(path))
    run = load_run(tmp_path)
    assert run.items.iloc[0]["state"] == "fail"


def test_directory_without_looplab_logs_is_refused(tmp_path: Path):
    lb.write_run_log(tmp_path, "x", [lb.Run("s1", {lb.LOOP: lb.Item(True)})], task="other_task")
    with pytest.raises(ReportError, match=f"{tmp_path} holds no looplab logs.*other_task"):
        load_run(tmp_path)
