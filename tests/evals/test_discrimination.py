"""Every scenario discriminates: it passes on ``looplab``, and it fails with the control it probes
switched off (and on ``naive``). The matrix is built from data (checklist ``controls`` and the
scenario library), so a new scenario is covered without touching this test."""

from __future__ import annotations

import pytest

from scenarios.checklist import checklist_by_id
from scenarios.loader import load_library
from tests.evals.suite import run_suite, verdicts


def _control_variants() -> dict[str, list[str]]:
    """overrides string → scenarios whose probed items depend on those switches."""
    items = checklist_by_id()
    variants: dict[str, list[str]] = {}
    for s in load_library().values():
        for item_id in s.probes:
            controls = items[item_id].controls
            if controls:
                key = ",".join(f"{c}=false" for c in controls)
                variants.setdefault(key, []).append(s.id)
    return variants


def test_every_probed_item_names_its_control():
    items = checklist_by_id()
    missing = {i for s in load_library().values() for i in s.probes if not items[i].controls}
    assert not missing, f"checklist items without controls (cannot test discrimination): {missing}"


def test_looplab_passes_every_scenario(tmp_path):
    results = verdicts(run_suite(tmp_path, "looplab"))
    failing = {sid: {i: v["explanation"] for i, v in items.items() if v["passed"] is not True}
               for sid, items in results.items()}
    assert not any(failing.values()), failing
    assert set(results) == set(load_library())


def test_naive_fails_every_scenario(tmp_path):
    results = verdicts(run_suite(tmp_path, "naive"))
    passing = [sid for sid, items in results.items() if all(v["passed"] for v in items.values())]
    assert not passing, f"scenarios that naive passes (they do not discriminate): {passing}"


@pytest.mark.parametrize("overrides", sorted(_control_variants()))
def test_switching_the_control_off_fails_its_scenarios(tmp_path, overrides):
    scenarios = _control_variants()[overrides]
    results = verdicts(run_suite(tmp_path, "looplab", scenarios=",".join(scenarios),
                                 overrides=overrides))
    items = checklist_by_id()
    for sid in scenarios:
        probed = {i: v for i, v in results[sid].items()
                  if ",".join(f"{c}=false" for c in items[i].controls) == overrides}
        assert probed and all(v["passed"] is False for v in probed.values()), (sid, probed)


def test_runs_are_deterministic(tmp_path):
    a = verdicts(run_suite(tmp_path / "a", "looplab"))
    b = verdicts(run_suite(tmp_path / "b", "looplab"))
    assert a == b
