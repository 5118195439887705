"""Run a harness spec inside the sandbox, its model calls served by the eval's model.

The container's model relay serves the OpenAI, Anthropic and Google APIs on 127.0.0.1:13131
and hands each request to the eval, where inspect's bridge handlers answer it with the eval's
model (the scripted actor): ``evals.harnesses.model_relay``. The harness process runs with a
wall-clock limit; its exit code, the tail of its output and counters from the actor's
observations go to the same run record as our in-process harness's
(``evals.state.RunRecord``), so the same judges score it.

A harness that never reached the model (image without the harness, a launch that failed, a
crash before its first request) raises: the sample is an *error*, never a verdict.
"""

from __future__ import annotations

import shlex
import time
from collections.abc import Callable
from typing import Any

from inspect_ai.agent import AgentState
from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput, get_model
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import sandbox, store_as

from evals.agents import fallback_model
from evals.harnesses.launch import LOG, TASK_FILE, command_for, environment, launch_argv
from evals.harnesses.model_relay import load_handlers, relay_bridge
from evals.harnesses.spec import HarnessSpec, run_limit_s
from evals.library import get_scenario
from evals.realmodel.bridge_models import proxied_bridge_models
from evals.state import ActorObservations, HarnessRun, ProxyLog, RunRecord
from harness.presets import deep_merge
from scenarios.schema import Scenario

NOT_ACTIONS = ("Answer", "Empty", "ThoughtOnly", "Summary")
"""Actor replies that ask the harness to do nothing."""


DRIVER_REASON = ("the scenario sends further messages or a user stop while the run goes on; a "
                 "harness spec is launched once with the task and has no channel for them")


class HarnessDidNotRun(RuntimeError):
    """The harness under test never got to act: an infrastructure error, not a verdict."""


class ModelCallLimit(Exception):
    """Raised by the bridge filter once a harness exceeds ``finish.model_call_limit``."""

    status_code = 400


def call_limiter(limit: int) -> Any:
    """A bridge filter that refuses model calls beyond ``limit``."""
    calls = 0

    async def limiter(model: Any, messages: list[ChatMessage], tools: list[ToolInfo],
                      tool_choice: ToolChoice | None, config: GenerateConfig) -> ModelOutput | None:
        nonlocal calls
        calls += 1
        if calls > limit:
            store_as(HarnessRun).cut_off = True
            raise ModelCallLimit(f"looplab: model call limit {limit} reached")
        return None

    return limiter


@solver
def bridge_agent(spec: HarnessSpec, proxy: str = "", fallbacks: list[str] | None = None,
                 scenario_of: Callable[[TaskState], Scenario] | None = None) -> Solver:
    """The harness of ``spec`` as the agent under test (its image must be the sample's sandbox).
    ``proxy``: a real server's URL; the bridge's models then go through the sample's fault proxy
    (``evals.realmodel.bridge_models``), ``fallbacks`` being the server's fallback models.
    ``scenario_of``: the sample's scenario (default: the library's, by ``scenario_id``)."""
    load_handlers(spec.api)

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        scenario = (scenario_of or _library_scenario)(state)
        harness_run = store_as(HarnessRun)
        harness_run.dialect, harness_run.harness = spec.dialect, spec.id
        harness_run.own_context_tokens = spec.own_context_tokens
        if scenario.driver is not None:
            return not_run(spec, state, DRIVER_REASON, scenario)
        workdir = await _workdir(scenario.workdir)
        limiter = call_limiter(spec.finish.model_call_limit)
        if proxy:
            async with proxied_bridge_models(proxy, scenario, str(get_model()), fallbacks or [],
                                             limiter) as models:
                real = scenario.real_model.harness if scenario.real_model else {}
                return await run(state, scenario, workdir, models.fallback_names, models.aliases,
                                 models.filter, models.resolver, deep_merge(scenario.harness, real))
        names = [f.removeprefix("scripted/") for f in scenario.fallback_models]
        aliases: dict[str, str | Model] = {n: fallback_model(f) for n, f in zip(names, scenario.fallback_models, strict=True)}
        return await run(state, scenario, workdir, names, aliases, limiter, None, scenario.harness)

    async def run(state: TaskState, scenario: Scenario, workdir: str, fallbacks: list[str],
                  aliases: dict[str, str | Model], filter: Any, resolver: Any,
                  conditions: dict[str, Any]) -> TaskState:
        argv = command_for(spec, state.input_text, workdir, conditions, fallbacks)
        await sandbox().write_file(TASK_FILE, state.input_text)
        # The relay already listens (it started with the container): launch at once.
        async with relay_bridge(AgentState(messages=state.messages), model_aliases=aliases or None,
                                model_resolver=resolver, filter=filter) as session:
            harness_run = store_as(HarnessRun)
            harness_run.launched = time.time()
            exit_code, tail, timed_out = await _launch(spec, argv, workdir)
            harness_run.exited = time.time()
            harness_run.requests = [list(r) for r in session.requests]
            state.messages = session.bridge.state.messages
            if session.bridge.state.output is not None:
                state.output = session.bridge.state.output
        record(spec, state, exit_code, tail, scenario, timed_out)
        return state

    return solve


def _library_scenario(state: TaskState) -> Scenario:
    return get_scenario(str(state.metadata["scenario_id"]))


async def _workdir(sub: str | None) -> str:
    root = (await sandbox().exec(["pwd"])).stdout.strip() or "/workspace"
    if not sub:
        return root
    path = f"{root.rstrip('/')}/{sub.strip('/')}"
    await sandbox().exec(["mkdir", "-p", path])
    return path


async def _launch(spec: HarnessSpec, argv: list[str], workdir: str) -> tuple[int, str, bool]:
    """Run ``argv`` under ``timeout`` with its output in a log file, as the sandbox's
    unprivileged user (its OOM score raised: memory it exhausts kills it, not the sandbox);
    → (exit code, output tail, whether the wall-clock limit stopped it). An exit of 124 or 137
    before the limit is the harness's own (137: killed, e.g. by the kernel for want of
    memory)."""
    limit = run_limit_s(spec.finish)
    started = time.monotonic()
    try:
        res = await sandbox().exec(launch_argv(limit, argv), cwd=workdir,
                                   env=environment(spec, workdir), timeout=limit + 30,
                                   user="root")
        code = res.returncode
    except TimeoutError:
        code = 124
    timed_out = code in (124, 137) and time.monotonic() - started >= limit
    tail = await sandbox().exec(["tail", "-c", "4000", LOG], timeout=30)
    return code, tail.stdout, timed_out


def record(spec: HarnessSpec, state: TaskState, exit_code: int, tail: str, scenario: Scenario,
           timed_out: bool | None = None) -> None:
    """Leave the run's evidence in the store; raise ``HarnessDidNotRun`` if it never reached
    the model (its image or launch is broken: that says nothing about the items). A harness
    that reached the model and then hung, crashed or was killed is judged as it ended."""
    if timed_out is None:
        timed_out = exit_code in (124, 137)
    seen = store_as(ActorObservations).observations
    obs = [o for o in seen if "summary_request" in o]
    replies = [o for o in obs if "action" in o]
    actions = [o for o in replies if o["action"] not in NOT_ACTIONS]
    proxied = store_as(ProxyLog).entries
    if not seen and proxied:  # a real model: what the fault proxy saw
        obs = [e for e in proxied if e.get("model")]
        replies = actions = [e for e in obs if e.get("status") == 200]
    cut_off = store_as(HarnessRun).cut_off
    if not obs:
        how = "timed out" if timed_out else f"exited with code {exit_code}"
        raise HarnessDidNotRun(f"harness {spec.id}: {how} before its first model request "
                               f"(launch: {shlex.join(spec.launch)[:200]}); output tail: "
                               f"{tail[-1500:]}")
    status = ("cut_off" if cut_off else "timeout" if timed_out
              else "killed" if exit_code == 137
              else spec.finish.exit_statuses.get(exit_code, "crashed"))
    record = store_as(RunRecord)
    record.exit_status = status
    record.run = {
        "not_applicable": no_surface(spec, scenario),
        "harness": spec.id, "dialect": spec.dialect, "exit_code": exit_code,
        "n_ctx": scenario.n_ctx + spec.own_context_tokens,
        "output_tail": tail[-2000:], "model_calls": len(obs), "turns": len(replies),
        "tool_calls": sum(len(o.get("tools_called") or []) or 1 for o in actions),
        "acted": bool(actions), "message": (state.output.completion if state.output else "")[:500],
    }


def no_surface(spec: HarnessSpec, scenario: Scenario, reason: str | None = None) -> dict[str, str]:
    """Items of the scenario the harness has no surface for → why (``reason`` for all)."""
    probes = {**scenario.probes, **(scenario.real_model.probes if scenario.real_model else {})}
    found = {i: reason or spec.no_surface_reason(i) for i in probes}
    return {item: f"{spec.id} {why}" if reason is None else why
            for item, why in found.items() if why}


def not_run(spec: HarnessSpec, state: TaskState, reason: str, scenario: Scenario) -> TaskState:
    """A scenario the harness cannot be put through: every item not applicable, no launch."""
    record = store_as(RunRecord)
    record.exit_status = "not_run"
    record.run = {"harness": spec.id, "acted": False, "model_calls": 0, "turns": 0,
                  "tool_calls": 0, "not_applicable": no_surface(spec, scenario, reason)}
    return state
