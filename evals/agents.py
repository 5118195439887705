"""Solvers: workspace set-up from the scenario, and the agents under test.

``looplab_agent`` runs our reference harness with a preset; peers (inspect's ``react()``) run the
same scenarios through the same actor and scorers. Every agent leaves the same evidence in the
sample store: its exit status and counters.
"""

from __future__ import annotations

from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import sandbox, store

from evals.adapter import InspectModel, SandboxWorkspace
from evals.convert import to_inspect
from evals.scripted_provider import SCENARIO_KEY
from harness import Agent, HarnessConfig, Model
from harness.events import RunEvent
from harness.presets import deep_merge
from scenarios.loader import get_scenario

EXIT_KEY = "looplab:exit_status"
RUN_KEY = "looplab:run"


@solver
def setup_workspace() -> Solver:
    """Create the scenario's files in the sandbox and run its set-up commands."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scenario = get_scenario(str(state.metadata["scenario_id"]))
        store().set(SCENARIO_KEY, scenario.id)
        ws = await SandboxWorkspace.open(sandbox())
        for path, content in scenario.files.items():
            await ws.write_file(path, content)
        for command in scenario.setup:
            res = await ws.exec(command, timeout=120)
            if res.exit_code != 0:
                raise RuntimeError(f"scenario {scenario.id}: setup command {command!r} failed "
                                   f"({res.exit_code}): {res.output[-500:]}")
        return state

    return solve


def fallback_names(state: TaskState, fallbacks: list[str]) -> list[str]:
    """The fallback chain: given on the command line, else the scenario's (scripted runs only)."""
    if fallbacks:
        return fallbacks
    if str(get_model()).startswith("scripted/"):
        return get_scenario(str(state.metadata["scenario_id"])).fallback_models
    return []


def with_conditions(config: HarnessConfig, conditions: dict[str, Any]) -> HarnessConfig:
    """The preset under test plus the scenario's deployment conditions (e.g. plan mode)."""
    if not conditions:
        return config
    return HarnessConfig.model_validate(deep_merge(config.model_dump(), conditions))


@solver
def looplab_agent(config: HarnessConfig, fallbacks: list[str] | None = None) -> Solver:
    """Our reference harness with ``config`` as the agent under test."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scenario = get_scenario(str(state.metadata["scenario_id"]))
        models: list[Model] = [InspectModel(get_model())]
        models += [InspectModel(get_model(name)) for name in fallback_names(state, fallbacks or [])]
        ws = await SandboxWorkspace.open(sandbox(), scenario.workdir)
        run_config = with_conditions(config, scenario.harness)

        def on_event(event: RunEvent) -> None:
            transcript().info({"harness": event.type, **event.data}, source="looplab")

        agent = Agent(run_config, models, ws, on_event=on_event)
        result = await agent.run(state.input_text)
        state.messages = [to_inspect(m) for m in result.messages]
        state.output = ModelOutput.from_content(str(get_model()), result.message[:4000])
        store().set(EXIT_KEY, result.status.value)
        store().set(RUN_KEY, {
            "turns": result.turns, "tool_calls": result.tool_calls,
            "model_calls": result.model_calls, "message": result.message[:500],
            "interventions": [e.type for e in result.events
                              if e.type.split(".")[0] in ("loop", "failover", "tool", "context")],
        })
        return state

    return solve
