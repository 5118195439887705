"""The scenario library as evals runs it: ``scenarios.loader``'s, each probe's judge checked.

A judge is code in ``evals/judges`` named in scenario data: an unknown name or a wrongly typed
parameter must stop a run before anything runs, not error every sample that probes it. The
loader sits below evals and cannot know the judges, so this layer checks them, once per library,
and everything in evals that reads scenarios reads them here.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

from pydantic import ValidationError

from evals.judges import JUDGES
from scenarios import loader
from scenarios.loader import LIBRARY_DIR, ScenarioError, scenario_source
from scenarios.schema import JudgeSpec, Scenario, describe_validation


def check_judges(scenario: Scenario, directory: Path = LIBRARY_DIR) -> None:
    """Raise ``ScenarioError`` naming the file and field of a probe whose judge is unknown or
    whose parameters that judge does not take."""
    specs: list[tuple[str, JudgeSpec]] = [(f"probes.{i}", s) for i, s in scenario.probes.items()]
    if scenario.real_model:
        specs += [(f"real_model.probes.{i}", s) for i, s in scenario.real_model.probes.items()]
    path = scenario_source(scenario, directory)
    for where, spec in specs:
        if spec.judge not in JUDGES:
            raise ScenarioError(f"{path}: field {where}.judge: unknown judge {spec.judge!r}; "
                                f"known: {', '.join(sorted(JUDGES))}")
        try:
            JUDGES[spec.judge].params_model.model_validate(spec.params)
        except ValidationError as e:
            raise ScenarioError(describe_validation(f"{path}: invalid scenario", e).replace(
                "field ", f"field {where}.params.")) from e


@cache
def load_library(directory: Path = LIBRARY_DIR) -> dict[str, Scenario]:
    """``scenarios.loader.load_library`` with every probe's judge checked."""
    library = loader.load_library(directory)
    for scenario in library.values():
        check_judges(scenario, directory)
    return library


def get_scenario(scenario_id: str) -> Scenario:
    load_library()
    return loader.get_scenario(scenario_id)


def select(ids: str | list[str] | None = None, family: str | None = None,
           suite: str = "all") -> list[Scenario]:
    """``scenarios.loader.select`` over the checked library."""
    load_library()
    return loader.select(ids, family, suite)
