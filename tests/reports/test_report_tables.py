"""Heatmap cells, summary, corpus rates and cost from the standard run."""

from __future__ import annotations

from pathlib import Path

import logbuilder as lb
import pytest

from reports import tables
from reports.load import load_run


@pytest.mark.parametrize(("counts", "state"), [
    ((2, 0, 0, 0), "pass"),
    ((1, 1, 0, 0), "fail"),
    ((0, 1, 1, 0), "fail"),
    ((1, 0, 1, 0), "error"),  # a pass next to an error is not claimed as a pass
    ((0, 0, 0, 2), "unjudged"),
    ((1, 0, 0, 1), "pass"),
    ((0, 0, 0, 0), "not_probed"),
])
def test_cell_state_precedence(counts, state):
    assert tables.cell_state(*counts) == state


def _cell(cells, item, config):
    row = cells[(cells["item"] == item) & (cells["config"] == config)]
    assert len(row) == 1
    return row.iloc[0]


def test_cells(standard_run):
    cells = tables.cells(standard_run)
    assert _cell(cells, lb.LOOP, "naive")["state"] == "fail"
    assert _cell(cells, lb.LOOP, "looplab")["figure"] == 3.0
    assert _cell(cells, lb.QUOTA, "naive")[["state", "n_fail", "n_error"]].tolist() == [
        "fail", 1, 1]
    assert _cell(cells, lb.QUOTA, "inspect-react")["state"] == "error"
    assert _cell(cells, lb.OFFLOAD, "inspect-react")["state"] == "not_probed"
    assert _cell(cells, lb.BENIGN, "looplab")[["state", "n_pass", "n_fail", "figure"]].tolist() \
        == ["fail", 1, 1, 0.5]


def test_cells_cover_the_checklist_and_unknown_items(standard_run):
    from scenarios.checklist import load_checklist

    cells = tables.cells(standard_run)
    shown = set(cells["item"])
    assert {i.id for i in load_checklist()} <= shown
    assert {lb.INJECT, lb.BENIGN, lb.OFFLOAD} <= shown


def test_summary_counts_errors_separately(standard_run):
    s = tables.summary(standard_run, tables.cells(standard_run)).set_index("config")
    assert (s.loc["naive", "passed"], s.loc["naive", "probed"]) == (1, 6)
    assert s.loc["naive", "sample_errors"] == 1
    assert (s.loc["looplab", "passed"], s.loc["looplab", "probed"]) == (5, 6)
    assert s.loc["inspect-react", "item_errors"] == 3
    assert s.loc["inspect-react", "sample_errors"] == 3
    assert s.loc["looplab", "fam:security"] == "1/2"


def test_corpus_block_rate_and_false_positive_rate(standard_run):
    c = tables.corpus(standard_run).set_index("config")
    assert c.loc["looplab", "block_rate"] == 1.0
    assert c.loc["looplab", "false_positive_rate"] == 0.5
    assert c.loc["naive", "block_rate"] == 0.0
    assert c.loc["naive", "false_positive_rate"] == 0.0
    # The cancelled peer never ran its corpus samples: errors, not blocks or false positives.
    assert c.loc["inspect-react", "poisoned_errors"] == 1
    assert c.loc["inspect-react", "benign_errors"] == 1
    assert c.loc["inspect-react", "poisoned_n"] == 0


def test_no_corpus_samples_no_corpus_table(tmp_path: Path):
    lb.write_run_log(tmp_path, "naive", [lb.Run("s1", {lb.LOOP: lb.Item(True, 1, "calls")})])
    assert tables.corpus(load_run(tmp_path)) is None


def test_cost(standard_run):
    c = tables.cost(standard_run).set_index("config")
    # naive: 2 epochs × (9000 + 4 × 1000) tokens; the errored sample still used tokens
    assert c.loc["naive", "tokens"] == 26000
    assert c.loc["looplab", "model_calls"] == 2 * (6 + 4 * 4)
    assert c.loc["naive", "wall_s"] == 2 * (6.0 + 4 * 2.0)
    assert (c.loc["inspect-react", "scored"], c.loc["inspect-react", "samples"]) == (2, 5)
    assert "not_run 3" in c.loc["inspect-react", "exit_status"]


def test_item_missing_from_the_checklist_is_shown_and_flagged(tmp_path: Path):
    unknown = "loop.zz_retired_item_for_tests"
    lb.write_run_log(tmp_path, "naive", [lb.Run("s1", {unknown: lb.Item(False, 4, "calls")})])
    cells = tables.cells(load_run(tmp_path))
    row = _cell(cells, unknown, "naive")
    assert (row["family"], row["state"], row["title"]) == ("loop", "fail", "(not in the checklist)")
