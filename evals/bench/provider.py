"""The ``scripted-bench`` model provider: a scripted actor plays a benchmark sample.

``scripted-bench/oracle`` solves the task, ``scripted-bench/idle`` does nothing useful; any other
name (``scripted-bench/backup``) is a fallback role that plays the same actor. Everything else —
context window, scheduled faults (the variant's ``faults``), token usage, observations — is the
``scripted`` provider's, applied to the sample as a scenario.
"""

from __future__ import annotations

from inspect_ai.model import modelapi
from inspect_ai.util import store_as

from evals.scripted_provider import ScriptedModelAPI
from evals.state import BenchState
from scenarios.bench.actors import ACTORS, as_scenario
from scenarios.schema import Scenario

PROVIDER = "scripted-bench"


def actor_of(model_name: str) -> str | None:
    """``scripted-bench/oracle`` → ``oracle``; ``None`` for any other provider."""
    provider, _, name = model_name.partition("/")
    return name if provider == PROVIDER else None


class BenchScriptedModelAPI(ScriptedModelAPI):
    def check_name(self, model_name: str) -> None:
        """Any name is valid here: an actor, or a fallback role playing the primary's actor
        (checked per sample, when the actor is known)."""

    def _scenario_and_role(self) -> tuple[Scenario, str]:
        bench_state = store_as(BenchState)
        sample_id = bench_state.sample_id
        if sample_id is None:
            raise RuntimeError(f"{PROVIDER}/{self.model_name}: no benchmark sample is active; "
                               f"run the looplab_bench task")
        actor = bench_state.actor or self.model_name
        if actor not in ACTORS:
            raise RuntimeError(f"{PROVIDER}/{actor}: unknown actor; valid: "
                               + ", ".join(f"{PROVIDER}/{a}" for a in ACTORS))
        role = "primary" if self.model_name == actor else self.model_name
        return as_scenario(str(sample_id), str(actor)), role


@modelapi(name=PROVIDER)
def scripted_bench() -> type:
    return BenchScriptedModelAPI
