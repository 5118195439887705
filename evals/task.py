"""The looplab inspect task: scenarios × one configuration (a harness preset or a peer)."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import yaml
from inspect_ai import Task, task
from inspect_ai.dataset import MemoryDataset, Sample
from inspect_ai.model import get_model
from inspect_ai.solver import Solver
from inspect_ai.util import SandboxEnvironmentSpec
from pydantic import ValidationError

from evals.agents import looplab_agent, setup_workspace
from evals.harnesses.configs import is_spec, spec_agent, spec_sandbox
from evals.harnesses.spec import harness_ids
from evals.library import load_library, select
from evals.peers import peer_agent
from evals.scorers import checklist
from harness.presets import PresetError, get_preset, preset_names
from sandboxes.k8s_values import K8sUnavailableError, k8s_spec
from scenarios.schema import Scenario

PEERS = ("inspect-react",)
"""Configurations that are not our harness: peer agents scored by the same suite."""


def configurations() -> list[str]:
    return preset_names() + list(PEERS) + harness_ids()


def sample_for(s: Scenario) -> Sample:
    return Sample(
        id=s.id, input=s.prompt,
        metadata={"scenario_id": s.id, "title": s.title, "family": s.family,
                  "probes": list(s.probes), "corpus": s.corpus, "channel": s.channel,
                  "variant": s.variant, "family_id": s.family_id, "split": s.split or "public"},
    )


def _pinned_scenario() -> str | None:
    """``--model scripted/<scenario-id>`` pins one scenario."""
    try:
        name = str(get_model())
    except Exception:
        return None
    if name.startswith("scripted/") and name.split("/", 1)[1] in load_library():
        return name.split("/", 1)[1]
    return None


def sandbox_spec(name: str, samples: int = 0) -> SandboxEnvironmentSpec | str:
    """The sandbox ``name``; ``samples``: how many samples will use it (sizes Docker's warm
    pool, 0 unknown)."""
    if name == "docker":
        # the docker SDK only when a docker sandbox is asked for (evals._registry keeps the
        # model providers usable without it)
        from sandboxes.docker_provider import DockerSandboxConfig

        return SandboxEnvironmentSpec("looplab-docker", DockerSandboxConfig(expected_samples=samples))
    if name == "local":
        warnings.warn(
            "sandbox=local runs scenario commands directly on this machine (scenarios aim only at "
            "files inside a temporary workspace, but nothing is isolated)", stacklevel=2,
        )
        return "local"
    if name == "k8s":  # inspect-k8s-sandbox, hardened from the same config as looplab-docker
        try:
            return k8s_spec()
        except K8sUnavailableError as e:
            raise ValueError(f"task argument sandbox: {e}") from e
    raise ValueError(f"unknown sandbox {name!r}; valid: docker, k8s, local")


def parse_overrides(text: str) -> dict[str, Any]:
    """``"a.b=false,c=3"`` → ``{"a": {"b": False}, "c": 3}`` (values parsed as YAML scalars)."""
    out: dict[str, Any] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, raw = part.partition("=")
        if not sep or not key:
            raise ValueError(f"task argument overrides: {part!r} is not key=value")
        node = out
        *parents, leaf = key.strip().split(".")
        for name in parents:
            node = node.setdefault(name, {})
        node[leaf] = yaml.safe_load(raw)
    return out


def agent_for(config: str, fallbacks: list[str], overrides: str = "", proxy: str = "",
              harness_agent: Callable[..., Solver] = looplab_agent) -> Solver:
    """The solver for ``config``: a peer, or ``harness_agent(preset, fallbacks, proxy)`` (our
    harness; the benchmark passes its own) with the preset's ``overrides`` applied."""
    if config in PEERS:
        if overrides:
            raise ValueError(f"task argument overrides: not supported for peer {config!r}")
        if proxy:
            raise ValueError(f"task argument proxy: not supported for peer {config!r} (its model "
                             "calls do not go through the harness's model chain)")
        return peer_agent(config)
    if is_spec(config):  # a harness spec (sandboxes/harnesses/<id>/harness.yaml)
        return spec_agent(config, overrides, proxy, fallbacks)
    try:
        return harness_agent(get_preset(config, **parse_overrides(overrides)), fallbacks, proxy or None)
    except PresetError as e:
        raise ValueError(f"task argument config: {e}; peers: {', '.join(PEERS)}") from e
    except ValidationError as e:
        raise ValueError(f"task argument overrides: {e}") from e


@task
def looplab_suite(
    config: str = "looplab",
    scenarios: str = "",
    family: str = "",
    sandbox: str = "docker",
    fallbacks: str = "",
    overrides: str = "",
    proxy: str = "",
    suite: str = "all",
) -> Task:
    """Run scenarios against one configuration.

    Args:
        config: a harness preset (``naive``, ``looplab``...) or a peer (``inspect-react``).
        scenarios: comma-separated scenario ids (default: all, or the one pinned by
            ``--model scripted/<id>``).
        family: only scenarios of this checklist family.
        sandbox: ``docker`` (default, isolated), ``k8s`` (a Kubernetes cluster through
            inspect-k8s-sandbox, same hardening) or ``local`` (no isolation; warned).
        fallbacks: comma-separated fallback model names for real models.
        overrides: ``key=value`` changes to the preset, e.g. ``loop_detection.enabled=false``.
        proxy: upstream server URL (e.g. ``http://127.0.0.1:8000``): each sample's model calls
            go through its own fault proxy with the scenario's ``real_model`` faults.
        suite: ``library`` (the scenario files with their corpus expansions), ``families``
            (the generated variants) or ``all`` (default).
    """
    ids = scenarios or _pinned_scenario() or ""
    chosen = select(ids or None, family or None, suite)
    label = config_label(config, overrides)
    samples = [sample_for(s) for s in chosen]
    for sample in samples:  # samples_df then carries the configuration on every row
        sample.metadata = {**(sample.metadata or {}), "config": label}
    items = sorted({i for s in chosen for i in (*s.probes, *(s.real_model.probes if s.real_model else {}))})
    return Task(
        dataset=MemoryDataset(samples, name="looplab-scenarios"),
        # set-up as the task's own: a solver given with --solver gets the workspace too
        setup=setup_workspace(),
        solver=agent_for(config, [f for f in fallbacks.split(",") if f], overrides, proxy),
        scorer=checklist(items),
        sandbox=(spec_sandbox(config, sandbox, len(samples)) if is_spec(config)
                 else sandbox_spec(sandbox, len(samples))),
        name=task_name(config, overrides),
        display_name=label,
        tags=["looplab", config, *(["ablation"] if overrides else [])],
        metadata={"config": config, "overrides": overrides, "label": label},
    )


TASK_PREFIX = "looplab_suite"
"""Every configuration's log is task ``looplab_suite_<configuration>`` (reports read the prefix)."""


def config_label(config: str, overrides: str = "") -> str:
    """How reports and ``inspect view`` name a configuration: ``looplab``, or with its changes
    ``looplab[loop_detection.enabled=false]`` (an ablation is never shown as the plain preset)."""
    changes = ",".join(p.strip() for p in overrides.split(",") if p.strip())
    return f"{config}[{changes}]" if changes else config


def task_name(config: str, overrides: str = "") -> str:
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", config_label(config, overrides)).strip("_")
    return f"{TASK_PREFIX}_{slug}"
