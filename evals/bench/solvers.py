"""Solvers of the benchmark: workspace set-up from the task and variant, a stopwatch, and our
harness as the agent under test (peers come from ``evals.peers`` unchanged).

Every agent leaves the same run record as in the scenario suite (``evals.state.RunRecord``), so
the scorer reads ours and a peer's runs alike.
"""

from __future__ import annotations

import time
from typing import Literal

from inspect_ai.log import transcript
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import sandbox, store_as

from evals.adapter import InspectModel, SandboxWorkspace
from evals.agents import populate, with_conditions
from evals.bench.provider import actor_of
from evals.convert import to_inspect
from evals.realmodel.sample_proxy import proxied_model, sample_proxy
from evals.state import BenchState, ProxyLog, RunRecord
from harness import Agent, HarnessConfig, Model
from harness.events import RunEvent
from scenarios.bench import BenchSample, get_sample
from scenarios.bench.actors import as_scenario


def current_sample(state: TaskState) -> BenchSample:
    return get_sample(str(state.metadata["bench_id"]))


@solver
def bench_setup() -> Solver:
    """Create the task's and the variant's files, run their set-up, record the scripted actor."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        sample = current_sample(state)
        bench_state = store_as(BenchState)
        bench_state.sample_id = sample.id
        actor = actor_of(str(get_model()))
        if actor is not None:
            bench_state.actor = actor
        await populate(await SandboxWorkspace.open(sandbox()), sample.files, sample.setup,
                       f"benchmark sample {sample.id}", timeout=300)
        return state

    return solve


@solver
def stopwatch(moment: Literal["started", "stopped"]) -> Solver:
    """Record the wall-clock time as ``BenchState.<moment>`` (the agent's time is stop − start)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        setattr(store_as(BenchState), moment, time.time())
        return state

    return solve


def bench_fallbacks(state: TaskState, fallbacks: list[str]) -> list[str]:
    """Fallbacks given on the command line, else the variant's for a scripted run."""
    if fallbacks:
        return fallbacks
    if actor_of(str(get_model())) is not None:
        return current_sample(state).variant.fallback_models
    return []


@solver
def bench_agent(config: HarnessConfig, fallbacks: list[str] | None = None,
                proxy: str | None = None) -> Solver:
    """Our reference harness with ``config`` on a benchmark sample. With ``proxy`` (an upstream
    server URL) each sample's model calls go through its own fault proxy playing the variant's
    ``faults`` (the quota variant against a real server)."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        names = [str(get_model()), *bench_fallbacks(state, fallbacks or [])]
        if proxy is None:
            return await run(state, [InspectModel(get_model()), *(InspectModel(get_model(n)) for n in names[1:])])
        scenario = as_scenario(current_sample(state).id, "oracle")
        async with sample_proxy(proxy, scenario, names[0], names[1:]) as fp:
            try:
                return await run(state, [InspectModel(proxied_model(n, fp.port)) for n in names])
            finally:
                store_as(ProxyLog).entries = list(fp.entries)

    async def run(state: TaskState, models: list[Model]) -> TaskState:
        ws = await SandboxWorkspace.open(sandbox())
        run_config = config
        if actor_of(str(get_model())) is not None:
            # The deployment knows its model's window: the scripted actor's, here.
            run_config = with_conditions(config, {"context_window": current_sample(state).task.n_ctx})

        def on_event(event: RunEvent) -> None:
            transcript().info({"harness": event.type, **event.data}, source="looplab")

        result = await Agent(run_config, models, ws, on_event=on_event).run(state.input_text)
        state.messages = [to_inspect(m) for m in result.messages]
        state.output = ModelOutput.from_content(str(get_model()), result.message[:4000])
        record = store_as(RunRecord)
        record.exit_status = result.status.value
        record.run = {
            "turns": result.turns, "tool_calls": result.tool_calls,
            "model_calls": result.model_calls, "message": result.message[:500],
            "input_tokens": result.usage.input_tokens, "output_tokens": result.usage.output_tokens,
        }
        return state

    return solve
