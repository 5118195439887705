"""Scorecards that tell the truth and say what to fix: damaged logs named and skipped,
incomplete runs shown as such, ablations labelled, not-applicable kept apart, a repro line and a
transcript link per failure, dev vs untuned rates."""

from __future__ import annotations

from pathlib import Path

import logbuilder as lb

from reports.scorecard import write_scorecard

TURN_CAP = "loop.turn_cap"


def _card(logdir: Path, tmp_path: Path) -> str:
    card, _ = write_scorecard(logdir, tmp_path / "out")
    return (tmp_path / "out" / "scorecard.md").read_text()


def test_a_damaged_log_is_named_skipped_and_the_rest_reported(tmp_path, capsys):
    logs = tmp_path / "logs"
    lb.write_run_log(logs, "naive", [lb.Run("s1", {TURN_CAP: lb.Item(False, 30, "calls")})])
    damaged = logs / "2026-11-21T20-40-00+00-00_looplab-suite_broken.eval"
    damaged.write_bytes(b"PK\x03\x04 this is not a whole zip file")
    md = _card(logs, tmp_path)
    assert damaged.name in capsys.readouterr().err
    assert f"damaged log {damaged.name}" in md
    assert "| naive | 0/1 |" in md


def test_an_ablation_is_labelled_with_its_overrides(tmp_path):
    logs = tmp_path / "logs"
    lb.write_run_log(logs, "looplab", [lb.Run("s1", {TURN_CAP: lb.Item(True, 3, "calls")})])
    lb.write_run_log(logs, "looplab", [lb.Run("s1", {TURN_CAP: lb.Item(False, 30, "calls")})],
                     overrides="loop_detection.enabled=false", minute=1)
    md = _card(logs, tmp_path)
    assert "| looplab | 1/1 |" in md
    assert "| looplab[loop_detection.enabled=false] | 0/1 |" in md
    assert "OVERRIDES=loop_detection.enabled=false" in md


def test_failures_say_what_to_fix_and_link_the_transcript(tmp_path):
    logs = tmp_path / "logs"
    lb.write_run_log(logs, "naive", [lb.Run("loop-turn-cap", {TURN_CAP: lb.Item(False, 30, "calls")})])
    md = _card(logs, tmp_path)
    line = next(ln for ln in md.splitlines() if "prevented by" in ln)
    assert "`limits.max_turns`" in line and "seed 000" in line
    assert "`make repro SCENARIO=loop-turn-cap CONFIG=naive`" in line
    assert "[transcript](http://127.0.0.1:7575/#/logs/" in md


def test_not_applicable_is_shown_as_such_with_its_reason(tmp_path):
    logs = tmp_path / "logs"
    reason = "not applicable: the failing command was never run"
    lb.write_run_log(logs, "naive", [lb.Run("s1", {TURN_CAP: lb.Item(None, None, "", reason)})])
    md = _card(logs, tmp_path)
    assert f"`{TURN_CAP}` not applicable — the failing command was never run" in md
    assert "prevented by" not in md
    assert "| naive | 0/1 | 0 | 1 |" in md  # probed, not passed, not failed


def test_an_incomplete_run_says_so_and_ranks_nothing(tmp_path):
    logs = tmp_path / "logs"
    lb.write_run_log(logs, "naive", [lb.Run("s1", {TURN_CAP: lb.Item(True, 3, "calls")}),
                                     lb.Run("s2", {TURN_CAP: lb.Item(None)}, error="sandbox gone")])
    lb.write_run_log(logs, "looplab", [lb.Run("s1", {TURN_CAP: lb.Item(True, 3, "calls")}),
                                       lb.Run("s2", {TURN_CAP: lb.Item(True, 3, "calls")})])
    md = _card(logs, tmp_path)
    assert "**Incomplete run**: 1 errored sample(s) in naive" in md
    naive = next(ln for ln in md.splitlines() if ln.startswith("| naive |"))
    looplab = next(ln for ln in md.splitlines() if ln.startswith("| looplab |"))
    assert naive.endswith("| no: incomplete (1 errored sample(s)) |")
    assert looplab.endswith("| yes |")
    assert "make repro SCENARIO=s2 CONFIG=naive" in md


def test_dev_untuned_and_fresh_rates_per_configuration(tmp_path):
    logs = tmp_path / "logs"
    split = ["dev", "dev", "untuned", "untuned", "fresh", "fresh", "fresh"]
    runs = [lb.Run(f"v{i}", {TURN_CAP: lb.Item(i in (0, 1, 2, 4), 1, "calls")},
                   extra_metadata={"split": s, "family_id": "turns"})
            for i, s in enumerate(split)]
    lb.write_run_log(logs, "looplab", runs)
    md = _card(logs, tmp_path)
    assert "## Generated families: dev vs untuned vs fresh" in md
    assert "| looplab | turns | 100% | 2/2 | 50% | 1/2 | 33% | 1/3 |" in md
    html = (tmp_path / "out" / "scorecard.html").read_text(encoding="utf-8")
    assert "fresh pass rate" in html and "1/3" in html


def test_sample_time_columns_say_what_they_sum(tmp_path):
    logs = tmp_path / "logs"
    lb.write_run_log(logs, "naive", [lb.Run("s1", {TURN_CAP: lb.Item(True, 3, "calls")})])
    md = _card(logs, tmp_path)
    assert "sample time, summed (s)" in md and "wall time (s)" not in md
