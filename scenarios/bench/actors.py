"""The scripted actors a benchmark sample can be played by, as ordinary scenarios.

``oracle`` solves the task (``bench_oracle``); ``idle`` is the plain ``step_plan`` actor that
looks around and declares itself done without doing the work. Together they prove every
verifier: it passes when the task is solved and fails when it is not.
"""

from __future__ import annotations

from functools import cache

from scenarios.bench.loader import get_sample
from scenarios.schema import ActorSpec, JudgeSpec, Scenario

IDLE_PARAMS = {"steps": [{"run": "ls"}], "final_answer": "I had a look; nothing needs changing."}

ACTORS = ("oracle", "idle")
"""Actor names: the part after ``scripted-bench/`` in a model name."""


def actor_spec(sample_id: str, actor: str) -> ActorSpec:
    if actor == "oracle":
        return ActorSpec(policy="bench_oracle", params=get_sample(sample_id).oracle_params())
    if actor == "idle":
        return ActorSpec(policy="step_plan", params=IDLE_PARAMS)
    raise ValueError(f"unknown benchmark actor {actor!r}; valid: {', '.join(ACTORS)}")


@cache
def as_scenario(sample_id: str, actor: str) -> Scenario:
    """The sample as the scripted provider plays it: prompt, context window, faults, fallbacks."""
    sample = get_sample(sample_id)
    return Scenario(
        id=sample_id.replace("_", "-"),
        title=f"{sample.task.title} [{sample.variant.id}]",
        family="bench",
        # The verdict is the verifier's (evals/bench/scorer.py); the checklist does not apply.
        probes={"bench.verified": JudgeSpec(judge="bench_verify")},
        prompt=sample.prompt,
        n_ctx=sample.task.n_ctx,
        files=sample.files,
        setup=sample.setup,
        actor=actor_spec(sample_id, actor),
        faults=sample.variant.faults,
        fallback_models=sample.variant.fallback_models,
        tags=["bench", *sample.task.tags],
    )
