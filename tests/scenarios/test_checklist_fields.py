"""Checklist fields the reports read: ``structural`` items and time ``bound``s."""

from __future__ import annotations

import pytest

from scenarios.checklist import ChecklistError, checklist_by_id, load_checklist


def test_wrapping_is_labelled_structural_and_guards_judged_by_effect_are_not():
    items = checklist_by_id()
    assert items["security.tool_output_wrapped"].structural is True
    assert items["security.destructive_blocked"].structural is False
    assert items["security.context_injection_blocked"].structural is False


def test_a_bound_needs_its_limit(tmp_path):
    bad = tmp_path / "checklist.yaml"
    bad.write_text("- {id: loop.x, title: t, family: loop, seed: '0', bound: backoff}\n")
    with pytest.raises(ChecklistError, match="bound and bound_s go together"):
        load_checklist(bad)
    bad.write_text("- {id: loop.x, title: t, family: loop, seed: '0', bound: nap, bound_s: 3}\n")
    with pytest.raises(ChecklistError, match="bound"):
        load_checklist(bad)
