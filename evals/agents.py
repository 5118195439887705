"""Solvers: workspace set-up from the scenario, and the agents under test.

``looplab_agent`` runs our reference harness with a preset; peers (inspect's ``react()``) run the
same scenarios through the same actor and scorers. Every agent leaves the same evidence: its
exit status and counters (``evals.state.RunRecord``).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from inspect_ai.log import transcript
from inspect_ai.model import Model as ServedModel
from inspect_ai.model import ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.util import sandbox, store_as

from evals.adapter import InspectModel, SandboxWorkspace
from evals.convert import to_inspect
from evals.library import get_scenario
from evals.realmodel.sample_proxy import proxied_model, real_chain, sample_proxy
from evals.state import ActorState, ProxyLog, RunRecord
from harness import Agent, HarnessConfig, Model
from harness.events import RunEvent
from harness.loop import RunResult
from harness.presets import deep_merge
from harness.sessions.session import Session
from scenarios.schema import Scenario


@solver
def setup_workspace() -> Solver:
    """Create the scenario's files in the sandbox and run its set-up commands."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scenario = get_scenario(str(state.metadata["scenario_id"]))
        store_as(ActorState).scenario_id = scenario.id
        await populate(await SandboxWorkspace.open(sandbox()), scenario.files, scenario.setup,
                       f"scenario {scenario.id}", timeout=120)
        return state

    return solve


async def populate(ws: SandboxWorkspace, files: dict[str, str], setup: list[str], what: str,
                   timeout: float) -> None:
    """Write ``files`` and run the ``setup`` commands; a failing command raises ``RuntimeError``
    naming ``what`` (the scenario or task) and the command."""
    for path, content in files.items():
        await ws.write_file(path, content)
    for command in setup:
        res = await ws.exec(command, timeout=timeout)
        if res.exit_code != 0:
            raise RuntimeError(f"{what}: setup command {command[:80]!r} failed "
                               f"({res.exit_code}): {res.output[-500:]}")


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
def looplab_agent(config: HarnessConfig, fallbacks: list[str] | None = None,
                  proxy: str | None = None) -> Solver:
    """Our reference harness with ``config`` as the agent under test. With ``proxy`` (an
    upstream server URL) every model call of a sample goes through its own fault proxy."""

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        names = [str(get_model()), *fallback_names(state, fallbacks or [])]
        if proxy is None:
            return await run(state, [InspectModel(get_model()), *map(_fallback_model, names[1:])])
        scenario = get_scenario(str(state.metadata["scenario_id"]))
        names = real_chain(scenario, names[0], names[1:])
        async with sample_proxy(proxy, scenario, names[0], fallbacks or []) as fp:
            try:
                real = scenario.real_model.harness if scenario.real_model else {}
                return await run(state, [InspectModel(proxied_model(n, fp.port)) for n in names],
                                 real)
            finally:
                store_as(ProxyLog).entries = list(fp.entries)

    async def run(state: TaskState, models: list[Model],
                  real_conditions: dict[str, Any] | None = None) -> TaskState:
        scenario = get_scenario(str(state.metadata["scenario_id"]))
        ws = await SandboxWorkspace.open(sandbox(), scenario.workdir)
        run_config = with_conditions(config, deep_merge(scenario.harness, real_conditions or {}))

        def on_event(event: RunEvent) -> None:
            transcript().info({"harness": event.type, **event.data}, source="looplab")

        driver: dict[str, Any] = {}
        if scenario.driver is None:
            result = await Agent(run_config, models, ws, on_event=on_event).run(state.input_text)
        else:
            result = await drive_session(run_config, models, ws, scenario, state.input_text,
                                         on_event, driver)
        state.messages = [to_inspect(m) for m in result.messages]
        state.output = ModelOutput.from_content(str(get_model()), result.message[:4000])
        record = store_as(RunRecord)
        record.exit_status = result.status.value
        record.run = {
            "turns": result.turns, "tool_calls": result.tool_calls,
            "model_calls": result.model_calls, "message": result.message[:500],
            "interventions": [e.type for e in result.events
                              if e.type.split(".")[0] in ("loop", "failover", "tool", "context")],
            **({"driver": driver} if driver else {}),
            # Where the transcript was persisted in the workspace, for the judges that read it.
            **({"transcript_dir": run_config.transcript.dir}
               if run_config.transcript.enabled and not run_config.transcript.host_dir else {}),
        }
        return state

    return solve


def fallback_model(name: str) -> ServedModel:
    """``provider/model@key``: one auth profile (API key) of that model; entries sharing a model
    name are its profiles, which the harness rotates."""
    base, _, key = name.partition("@")
    return get_model(base, api_key=key or None)


def _fallback_model(name: str) -> Model:
    return InspectModel(fallback_model(name))


async def drive_session(config: HarnessConfig, models: list[Model], ws: SandboxWorkspace,
                        scenario: Scenario, task: str, on_event: Any,
                        record: dict[str, Any]) -> RunResult:
    """The scenario's driver: ``task`` and its further messages go to one ``Session`` (queue,
    triage and interrupts as the config has them), with a user stop after
    ``interrupt_after_s``. ``record`` gets what was delivered and when (seconds from the start)."""
    assert scenario.driver is not None
    spec, t0 = scenario.driver, time.monotonic()
    session = Session("eval", config, models, ws, on_event=on_event)
    record.update(delivered=[], runs=[])

    async def send(text: str, trigger: str = "user", after_s: float | None = None) -> RunResult:
        await asyncio.sleep(after_s or 0)
        record["delivered"].append(trigger)
        result = await session.send(text, trigger=trigger)
        record["runs"].append({"trigger": trigger, "message": text[:120], "status": result.status.value,
                               "turns": result.turns, "ended_at_s": round(time.monotonic() - t0, 3)})
        return result

    async def stop(after_s: float) -> None:
        while spec.interrupt_after_file is not None:  # the workspace says the long work started
            try:
                await ws.read_file(spec.interrupt_after_file)
                break
            except (FileNotFoundError, IsADirectoryError):
                await asyncio.sleep(0.1)
        await asyncio.sleep(after_s)
        record["interrupted_at_s"] = round(time.monotonic() - t0, 3)
        session.interrupt("user stop")

    stopper = asyncio.create_task(stop(spec.interrupt_after_s)) if spec.interrupt_after_s else None
    concurrent = [asyncio.create_task(send(m.text, m.trigger, m.after_s))
                  for m in spec.messages if m.after_s is not None]
    try:
        first = await send(task)
        record["first_ended_at_s"] = round(time.monotonic() - t0, 3)
        if stopper is not None and not stopper.done():
            stopper.cancel()  # the run ended before the user stop: nothing to interrupt
        for m in spec.messages:
            if m.after_s is None:
                await send(m.text, m.trigger)
        await asyncio.gather(*concurrent)
    finally:
        if stopper is not None:
            stopper.cancel()
        await session.aclose()
    return first.model_copy(update={"messages": session.history or first.messages})
