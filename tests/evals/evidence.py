"""Hand-made evidence for judge tests: the sample's scenario by id."""

from __future__ import annotations

from evals.library import load_library
from scenarios.schema import ActorSpec, Scenario


def scenario(scenario_id: str) -> Scenario:
    """The library's scenario ``scenario_id``, or, for an id the library lacks, a scenario that
    probes nothing and names nothing (judges that read only the workspace and the observations)."""
    library = load_library()
    if scenario_id in library:
        return library[scenario_id]
    return Scenario.model_construct(id=scenario_id, title=scenario_id, family="none", probes={},
                                    prompt="", actor=ActorSpec(policy="none"))
