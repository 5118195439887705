"""A verdict needs a sprung trap: a harness that stops after one turn, an idle one (no model
call, no file) and an erroring one never earn a pass for a guard item.

The suite test runs every library scenario (176 samples) with ``naive`` capped at one turn on the
local sandbox through inspect's ``eval()``; the per-judge tests feed each probe of the library
(with its own parameters, ``sprung_when`` included) the evidence an idle or erroring harness
leaves behind.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from evals.judges import JUDGES
from evals.judges.base import Evidence, VerdictState, make_judge
from evals.task import looplab_suite
from harness.workspace import LocalWorkspace
from scenarios.checklist import checklist_by_id
from scenarios.loader import load_library
from scenarios.schema import JudgeSpec
from tests.evals.evidence import scenario as scenario_of


def _library() -> list:
    """Scenarios of the library files (generated variant families are judged elsewhere)."""
    return [s for s in load_library().values() if getattr(s, "family_id", None) is None]


def _probes() -> list[tuple[str, str, JudgeSpec]]:
    out = []
    for s in _library():
        out += [(s.id, item, spec) for item, spec in s.probes.items()]
        if s.real_model:
            out += [(s.id, item, spec) for item, spec in s.real_model.probes.items()]
    seen, unique = set(), []
    for sid, item, spec in out:  # corpus samples share their probe: judge it once
        key = (sid.split("--")[0], item, spec.judge, repr(spec.params))
        if key not in seen:
            seen.add(key)
            unique.append((sid, item, spec))
    return unique


PROBES = _probes()


def _judge(spec: JudgeSpec, ev: Evidence):
    return asyncio.run(make_judge(spec.judge, spec.params)(ev))


def test_every_registered_judge_is_probed_by_the_library():
    used = {spec.judge for _, _, spec in PROBES}
    assert set(JUDGES) <= used, f"judges no scenario uses (untested here): {set(JUDGES) - used}"


@pytest.mark.parametrize(("scenario_id", "item", "spec"), PROBES,
                         ids=[f"{s}:{i}" for s, i, _ in PROBES])
def test_no_judge_passes_an_idle_harness(tmp_path: Path, scenario_id: str, item: str, spec):
    """One model call that did nothing, no file in the workspace: never a pass."""
    ev = Evidence(scenario_of(scenario_id), LocalWorkspace(tmp_path), [{"role": "primary", "call": 1, "t": 0.0}],
                  "turn_limit", "")
    v = _judge(spec, ev)
    assert v.passed is not True, (item, v.explanation)
    assert v.state in (VerdictState.NOT_APPLICABLE, VerdictState.FAIL, VerdictState.ERROR)


@pytest.mark.parametrize(("scenario_id", "item", "spec"), PROBES,
                         ids=[f"{s}:{i}" for s, i, _ in PROBES])
def test_no_judge_passes_an_erroring_or_unstarted_harness(tmp_path: Path, scenario_id, item, spec):
    erroring = Evidence(scenario_of(scenario_id), LocalWorkspace(tmp_path), [], "error", "")
    assert _judge(spec, erroring).passed is not True
    never = _judge(spec, Evidence(scenario_of(scenario_id), LocalWorkspace(tmp_path), [], None, ""))
    if spec.judge.startswith("proxy_"):
        assert never.passed is None  # not a proxied run: nothing to judge
    else:
        assert never.state == VerdictState.ERROR, never.explanation


def test_every_guard_probe_names_its_trap():
    """Guard items say how their trap shows (``sprung_when``); a real model's run is judged by
    what the fault proxy saw, whose judges check their own trap."""
    items = checklist_by_id()
    bare = [(s.id, item) for s in _library() for item, spec in s.probes.items()
            if items[item].kind == "guard" and "sprung_when" not in spec.params]
    assert not bare, f"guard probes with no trap condition: {bare}"


def test_a_one_turn_harness_passes_no_guard_item(tmp_path: Path):
    ids = ",".join(sorted({s.id.split("--")[0] for s in _library()}))
    task = looplab_suite(config="naive", scenarios=ids, sandbox="local",
                         overrides="limits.max_turns=1")
    [log] = inspect_eval(task, model="scripted/suite", log_dir=str(tmp_path / "logs"),
                         display="none", max_samples=16)
    assert log.status == "success", log.error
    items = checklist_by_id()
    passed: dict[str, list[str]] = {}
    for s in log.samples or []:
        assert s.error is None, f"{s.id}: {s.error}"
        for item, v in s.scores["checklist"].metadata["items"].items():
            if v["state"] == "pass" and items[item].kind == "guard":
                passed.setdefault(item, []).append(f"{s.id}: {v['explanation'][:120]}")
    assert len(log.samples or []) >= 170
    assert not passed, passed
