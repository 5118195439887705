"""Load scenario files, with errors that name the file and the field."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import ValidationError

from scenarios.actor.policies import POLICIES
from scenarios.checklist import checklist_by_id
from scenarios.corpus import entries, house_rule_marker
from scenarios.families import FamilyError
from scenarios.families import load_families as generate
from scenarios.schema import Scenario, describe_validation

LIBRARY_DIR = Path(__file__).parent / "library"


class ScenarioError(ValueError):
    pass


def _format_validation(path: Path, e: ValidationError) -> str:
    return describe_validation(f"{path}: invalid scenario", e)


def load_scenario_file(path: Path) -> Scenario:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError as e:
        raise ScenarioError(f"{path}: not UTF-8 text (byte {e.start}: {e.reason}); "
                            "save the file as UTF-8") from e
    except yaml.YAMLError as e:
        raise ScenarioError(f"{path}: not valid YAML: {e}") from e
    if not isinstance(raw, dict):
        raise ScenarioError(f"{path}: expected a mapping at top level")
    try:
        scenario = Scenario.model_validate(raw)
    except ValidationError as e:
        raise ScenarioError(_format_validation(path, e)) from e
    known = checklist_by_id()
    for item in scenario.probes:
        if item not in known:
            raise ScenarioError(f"{path}: field probes.{item}: unknown checklist item "
                                f"(see scenarios/checklist.yaml)")
    for item in scenario.real_model.probes if scenario.real_model else {}:
        if item not in scenario.probes:
            raise ScenarioError(f"{path}: field real_model.probes.{item}: not among the "
                                f"scenario's probes ({', '.join(scenario.probes)})")
    if path.stem != scenario.id:
        raise ScenarioError(f"{path}: field id: {scenario.id!r} must match the file name {path.stem!r}")
    _check_refs(path, scenario)
    return scenario


def _checked_family(scenario: Scenario) -> Scenario:
    """A generated variant, checked like a file (errors name the family file and variant)."""
    where = Path(f"scenarios/families/{scenario.family_id}.yaml[{scenario.variant}]")
    unknown = [i for i in scenario.probes if i not in checklist_by_id()]
    if unknown:
        raise ScenarioError(f"{where}: field probes.{unknown[0]}: unknown checklist item")
    _check_refs(where, scenario)
    return scenario


def load_families() -> list[Scenario]:
    """Every generated variant of ``scenarios/families/`` (ids ``<family>--<variant>``)."""
    try:
        return [_checked_family(s) for s in generate()]
    except (FamilyError, ValidationError, ValueError) as e:
        raise ScenarioError(str(e)) from e


def _check_refs(path: Path, scenario: Scenario) -> None:
    # Policies are named in data; a typo should fail at load time, naming the field. (Judges are
    # named in data too; they live in evals/, which checks them: ``evals.library``.)
    if scenario.actor.policy not in POLICIES:
        raise ScenarioError(f"{path}: field actor.policy: unknown policy {scenario.actor.policy!r}; "
                            f"known: {', '.join(sorted(POLICIES))}")
    try:
        POLICIES[scenario.actor.policy].params_model.model_validate(scenario.actor.params)
    except ValidationError as e:
        raise ScenarioError(_format_validation(path, e).replace("field ", "field actor.params.")) from e


def expand(scenario: Scenario) -> list[Scenario]:
    """One scenario per corpus entry when the scenario says ``expand``; else itself."""
    spec = scenario.expand
    if spec is None:
        return [scenario]
    out = []
    for entry in entries(spec.corpus, spec.kind):
        path = spec.install_as or entry.file or f"corpus-{entry.id}.txt"
        markers = [*scenario.markers]
        if spec.kind == "benign":
            markers.append(house_rule_marker(entry.id))
        out.append(scenario.model_copy(update={
            "id": f"{scenario.id}--{entry.id}",
            "title": f"{scenario.title} [{entry.technique or entry.kind}: {entry.id}]",
            "files": {**scenario.files, path: entry.content(spec.corpus)},
            "markers": markers,
            "corpus": spec.kind,
            "variant": entry.id,
            "channel": spec.corpus,
            "expand": None,
        }))
    return out


@cache
def load_library(directory: Path = LIBRARY_DIR) -> dict[str, Scenario]:
    """All scenarios in ``directory`` by id (corpus scenarios expanded, sorted by id); for the
    default library also every generated variant family (``scenarios/families/``)."""
    if not directory.is_dir():
        raise ScenarioError(f"scenario directory {directory} does not exist")
    scenarios: dict[str, Scenario] = {}
    origin: dict[str, Path] = {}
    for p in sorted(directory.glob("*.yaml")):
        for x in expand(load_scenario_file(p)):
            if x.id in scenarios:
                raise ScenarioError(f"{p}: field id: {x.id!r} is also the id of a scenario in "
                                    f"{origin[x.id]}; ids must be unique")
            scenarios[x.id], origin[x.id] = x, p
    for x in load_families() if directory == LIBRARY_DIR else []:  # generated families run too
        if x.id in scenarios:
            raise ScenarioError(f"scenarios/families/{x.family_id}.yaml: variant {x.variant!r}: "
                                f"id {x.id!r} is also the id of a scenario in {origin[x.id]}")
        scenarios[x.id], origin[x.id] = x, Path(f"scenarios/families/{x.family_id}.yaml")
    return dict(sorted(scenarios.items()))


def scenario_source(scenario: Scenario, directory: Path = LIBRARY_DIR) -> Path:
    """The file ``scenario`` was loaded from (``[variant]`` added for a generated variant), for
    errors found after loading: a library file is named by its id, an expanded corpus sample by
    the id before ``--``."""
    if scenario.family_id is not None:
        return Path(f"scenarios/families/{scenario.family_id}.yaml[{scenario.variant}]")
    return directory / f"{scenario.id.split('--', 1)[0]}.yaml"


def get_scenario(scenario_id: str) -> Scenario:
    library = load_library()
    if scenario_id not in library:
        raise ScenarioError(f"unknown scenario {scenario_id!r}; valid ids: {', '.join(library)}")
    return library[scenario_id]


SUITES = ("all", "library", "families")
"""``library``: the scenario files of ``scenarios/library/`` with their corpus expansions;
``families``: the generated variants of ``scenarios/families/``; ``all``: both."""


def select(ids: str | list[str] | None = None, family: str | None = None,
           suite: str = "all") -> list[Scenario]:
    """Scenarios by comma-separated ids and/or family (all when both are empty) within ``suite``
    (one of ``SUITES``). The id of a corpus scenario file selects all of its expanded samples."""
    if suite not in SUITES:
        raise ScenarioError(f"unknown suite {suite!r}; valid: {', '.join(SUITES)}")
    library = {sid: s for sid, s in load_library().items()
               if suite == "all" or (s.family_id is None) == (suite == "library")}
    if isinstance(ids, str):
        ids = [i.strip() for i in ids.split(",") if i.strip()]
    chosen: list[Scenario] = []
    for i in ids or []:
        group = [s for sid, s in library.items() if sid.startswith(f"{i}--")]
        if not group and i not in library and suite != "all":
            raise ScenarioError(f"scenario {i!r} is not in suite {suite!r}")
        chosen += group or [get_scenario(i)]
    if not ids:
        chosen = list(library.values())
    if family:
        chosen = [s for s in chosen if s.family == family]
        if not chosen:
            raise ScenarioError(f"no scenario in family {family!r}")
    return chosen
