"""The looplab benchmark task: terminal tasks × variants, under one configuration.

Real models: ``--model openai-api/<server>/<name>`` (or ``vllm/...``); the scripted stand-ins:
``scripted-bench/oracle`` (solves every task) and ``scripted-bench/idle`` (does nothing useful).
"""

from __future__ import annotations

from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.solver import Solver, TaskState, chain

import evals.bench.provider  # noqa: F401  (registers the scripted-bench model provider)
from evals.bench.provider import actor_of
from evals.bench.scorer import bench
from evals.bench.solvers import bench_agent, bench_setup, stopwatch
from evals.harnesses.bridge_agent import bridge_agent
from evals.harnesses.configs import is_spec, spec_sandbox
from evals.harnesses.spec import get_spec
from evals.task import agent_for as suite_agent_for
from evals.task import sandbox_spec
from scenarios.bench import BenchSample, select
from scenarios.bench.actors import as_scenario
from scenarios.schema import Scenario


def sample_for(s: BenchSample) -> Sample:
    return Sample(
        id=s.id, input=s.prompt,
        metadata={"bench_id": s.id, "task": s.task.id, "variant": s.variant.id,
                  "hostile": s.variant.hostile, "skill": s.task.skill, "title": s.task.title,
                  "faults": [f.model_dump() for f in s.variant.faults]},
    )


def agent_for(config: str, fallbacks: list[str], overrides: str = "", proxy: str = "") -> Solver:
    if is_spec(config):  # a harness spec, in its own image, given the sample as a scenario
        if overrides:
            raise ValueError(f"task argument overrides: not supported for harness spec {config!r}")
        return bridge_agent(get_spec(config), proxy=proxy, fallbacks=fallbacks,
                            scenario_of=bench_scenario)
    return suite_agent_for(config, fallbacks, overrides, proxy, harness_agent=bench_agent)


def bench_scenario(state: TaskState) -> Scenario:
    """The benchmark sample as the scenario a harness spec is run on (prompt, files, faults,
    fallbacks), played by the sample's scripted actor or, for a real model, its oracle."""
    return as_scenario(str(state.metadata["bench_id"]), actor_of(str(get_model())) or "oracle")


def _ids(value: str | list[str] | None) -> str | list[str] | None:
    return value or None


@task
def looplab_bench(
    config: str = "looplab",
    tasks: str | list[str] | None = None,
    variants: str | list[str] | None = None,
    sandbox: str = "docker",
    fallbacks: str = "",
    overrides: str = "",
    proxy: str = "",
) -> Task:
    """Run benchmark tasks in their clean and hostile variants against one configuration.

    Args:
        config: a harness preset (``naive``, ``looplab``...), a peer (``inspect-react``) or a
            harness spec (``sandboxes/harnesses/<id>``; docker sandbox only).
        tasks: comma-separated task ids (default: all in ``scenarios/tasks/``).
        variants: comma-separated variant ids (default: all in ``variants.yaml``).
        sandbox: ``docker`` (default, isolated) or ``local`` (no isolation; warned).
        fallbacks: comma-separated fallback model names for real models.
        overrides: ``key=value`` changes to the preset, e.g. ``truncation.enabled=false``.
        proxy: upstream server URL (e.g. ``http://127.0.0.1:8000``): each sample's model calls
            go through its own fault proxy playing the variant's ``faults``.
    """
    chosen = select(_ids(tasks), _ids(variants))
    agent = agent_for(config, [f for f in fallbacks.split(",") if f], overrides, proxy)
    samples = [sample_for(s) for s in chosen]
    return Task(
        dataset=MemoryDataset(samples, name="looplab-bench"),
        solver=chain(bench_setup(), stopwatch("started"), agent, stopwatch("stopped")),
        scorer=bench(config),
        sandbox=(spec_sandbox(config, sandbox, len(samples)) if is_spec(config)
                 else sandbox_spec(sandbox, len(samples))),
        metadata={"config": config},
        name="looplab_bench",
    )
