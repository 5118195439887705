"""A fault proxy per sample, for scenarios run against a real server (``--proxy UPSTREAM``).

Each sample gets its own proxy on a free 127.0.0.1 port, with the scenario's fault schedule, so
call counts and the log belong to that sample alone while samples run concurrently. The models
the harness uses (primary and fallbacks) are built against the proxy; after the run the proxy's
log goes to the sample's state (``evals.state.ProxyLog``), where proxy judges read it.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.model import Model as InspectAIModel
from inspect_ai.model._generate_config import active_generate_config

from evals.realmodel.proxy import FaultHook, FaultProxy
from evals.realmodel.schedule import from_fault_rules
from scenarios.schema import Scenario


def served_name(model: str) -> str:
    """``openai-api/vllm/smollm2@key`` → ``smollm2``: the name the request body carries."""
    return model.partition("@")[0].split("/")[-1]


def _role(model: str) -> str:
    """``scripted/backup@key-a`` → ``backup``."""
    return model.partition("@")[0].split("/", 1)[-1]


def roles_for(scenario: Scenario, fallbacks: list[str]) -> dict[str, str]:
    """Scenario fault roles → real model names: the scenario's i-th distinct fallback role
    (``scripted/backup`` → ``backup``) is the i-th fallback given on the command line."""
    roles = list(dict.fromkeys(_role(m) for m in scenario.fallback_models))
    return dict(zip(roles, fallbacks, strict=False))


def real_fallbacks(scenario: Scenario, fallbacks: list[str]) -> dict[str, str]:
    """Each scenario fallback (``scripted/backup@key-a``) whose role has a real fallback → that
    real model, keeping its auth profile (``...-fallback@key-a``) so per-key faults apply."""
    roles = roles_for(scenario, fallbacks)
    out: dict[str, str] = {}
    for m in scenario.fallback_models:
        real = roles.get(_role(m))
        if real is not None:
            key = m.partition("@")[2]
            out[m] = f"{real}@{key}" if key else real
    return out


def real_chain(scenario: Scenario, primary: str, fallbacks: list[str]) -> list[str]:
    """The model chain for a proxied sample: the primary, then the scenario's fallbacks that
    have a real model (``real_fallbacks``). A scenario without fallbacks gets none ("no
    fallback" stays true)."""
    return [primary, *real_fallbacks(scenario, fallbacks).values()]


def proxied_model(name: str, port: int) -> InspectAIModel:
    """The inspect model ``name`` (``provider/model[@key]``) sent through the proxy on ``port``."""
    base, _, key = name.partition("@")
    # max_retries=0 reaches the OpenAI client: its own retries (2 by default) would hide the
    # faults from the harness under test and triple the requests the proxy sees.
    # A model that is not the eval's active one inherits only operational settings from the
    # eval's config: carry max_tokens over (private inspect API, hence the fallback).
    try:
        max_tokens = active_generate_config().max_tokens
    except Exception:  # pragma: no cover - inspect internals moved
        max_tokens = None
    return get_model(base, base_url=f"http://127.0.0.1:{port}/v1", api_key=key or "looplab",
                     memoize=False, config=GenerateConfig(max_tokens=max_tokens), max_retries=0)


@contextlib.asynccontextmanager
async def sample_proxy(upstream: str, scenario: Scenario, primary: str, fallbacks: list[str],
                       on_fault: FaultHook | None = None) -> AsyncIterator[FaultProxy]:
    """Run a proxy for one sample; yields it started (``proxy.port``, ``proxy.entries``).
    ``on_fault`` is told each fault before the client sees it (``FaultProxy``)."""
    spec = scenario.real_model
    faults = spec.faults if spec and spec.faults is not None else scenario.faults
    roles = {role: served_name(real) for role, real in roles_for(scenario, fallbacks).items()}
    schedule = from_fault_rules(faults, served_name(primary), roles, scenario.dialect)
    proxy = FaultProxy(upstream, schedule, on_fault=on_fault)
    await proxy.start()
    try:
        yield proxy
    finally:
        await proxy.close()
