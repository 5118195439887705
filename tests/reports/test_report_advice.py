"""Failure advice: looplab's presets get the control that prevents the failure; a harness spec
gets what the item asks of the harness itself (it has none of looplab's settings), and a user
spec's repro names its folder."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from evals.harnesses.spec import SPECS_DIR
from reports.advice import advice, phrase
from scenarios.checklist import checklist_by_id

ITEM, SCENARIO = "loop.failing_repeat", "loop-repeat-failing-command"


def test_a_preset_is_told_the_control_that_prevents_the_failure() -> None:
    line = phrase(advice(ITEM, "naive", SCENARIO))
    assert "prevented by: `loop_detection.failing_repeat`" in line
    assert f"repro: `make repro SCENARIO={SCENARIO} CONFIG=naive`" in line


def test_a_shipped_spec_is_told_the_behaviour_not_looplab_settings() -> None:
    line = phrase(advice(ITEM, "toy-example", SCENARIO))
    assert "prevented by" not in line and "loop_detection" not in line
    assert f"asked of the harness itself: “{checklist_by_id()[ITEM].title}”" in line
    assert "CONFIG=toy-example`" in line


def test_a_user_spec_repro_names_its_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "mine" / "my-agent"
    shutil.copytree(SPECS_DIR / "toy-example", folder)
    (folder / "harness.yaml").write_text(
        (folder / "harness.yaml").read_text().replace("id: toy-example", "id: my-agent"))
    monkeypatch.setenv("LOOPLAB_HARNESSES", str(tmp_path / "mine"))
    monkeypatch.chdir(tmp_path)
    line = phrase(advice(ITEM, "my-agent", SCENARIO))
    assert f"repro: `make repro SCENARIO={SCENARIO} CONFIG=./mine/my-agent`" in line
    assert "prevented by" not in line
