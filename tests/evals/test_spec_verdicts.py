"""How a spec sample runs (its model transport, containers, start-up) must not move a verdict:
the shipped harness specs on a fixed scenario set get the verdicts recorded in
``spec_verdicts.yaml``. A verdict that moves on purpose is changed there, with its reason.

CI runs the pairs under ``checked`` (one harness per provider API the relay serves, on
scenarios with many turns, a provider fault and a fallback); ``LOOPLAB_SPEC_VERDICTS=all`` runs
every recorded pair (about an hour on a shared 2-core machine).

An entry is ``{<item>: <state>}``; one whose verdict moved also says what it ``was`` and the
``reason`` it moved (what changed, and why the new verdict is the truthful one)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import yaml
from inspect_ai import eval as inspect_eval

from evals.task import looplab_suite

pytestmark = pytest.mark.docker

DATA: dict[str, Any] = yaml.safe_load(
    (Path(__file__).with_name("spec_verdicts.yaml")).read_text(encoding="utf-8"))
RUN: dict[str, list[str]] = (
    {spec: sorted(by_scenario) for spec, by_scenario in DATA["verdicts"].items()}
    if os.environ.get("LOOPLAB_SPEC_VERDICTS") == "all" else DATA["checked"])
NOTES = ("was", "reason")
"""Keys of an entry that note a moved verdict, beside its items."""


def states(entry: dict[str, str]) -> dict[str, str]:
    """An entry's items and their recorded states, without its notes."""
    return {item: state for item, state in entry.items() if item not in NOTES}


def test_the_data_is_whole() -> None:
    """Every checked pair has a recorded verdict, every recorded spec every scenario."""
    for spec, scenarios in DATA["checked"].items():
        assert set(scenarios) <= set(DATA["verdicts"][spec]), spec
    for spec, by_scenario in DATA["verdicts"].items():
        assert sorted(by_scenario) == sorted(DATA["scenarios"]), spec


def test_a_moved_verdict_says_why() -> None:
    """An entry that notes what it ``was`` has a ``reason``, and the other way round; what it
    was differs from what it is now (one item per entry, as every recorded scenario probes)."""
    for spec, by_scenario in DATA["verdicts"].items():
        for scenario, entry in by_scenario.items():
            where = f"{spec} / {scenario}"
            assert ("was" in entry) == ("reason" in entry), where
            if "was" in entry:
                assert str(entry["reason"]).strip(), where
                assert [entry["was"]] != list(states(entry).values()), where


@pytest.mark.parametrize("spec_id", sorted(RUN))
def test_spec_verdicts_are_as_recorded(spec_id: str, tmp_path: Path) -> None:
    scenarios = RUN[spec_id]
    task = looplab_suite(config=spec_id, scenarios=",".join(scenarios), sandbox="docker")
    [log] = inspect_eval(task, model="scripted/suite", display="none", max_samples=4,
                         log_dir=str(tmp_path / "logs"), log_realtime=False)
    got: dict[str, Any] = {}
    for sample in log.samples or []:
        assert sample.error is None, f"{spec_id} / {sample.id}: {sample.error.message}"
        items = sample.scores["checklist"].metadata["items"]
        got[str(sample.id)] = {item: verdict["state"] for item, verdict in sorted(items.items())}
    expected = {scenario: states(DATA["verdicts"][spec_id][scenario]) for scenario in scenarios}
    assert got == expected
