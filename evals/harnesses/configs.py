"""Harness specs as configurations of the looplab task, beside the presets and peers."""

from __future__ import annotations

from inspect_ai.solver import Solver
from inspect_ai.util import SandboxEnvironmentSpec

from evals.harnesses.bridge_agent import bridge_agent
from evals.harnesses.image import ensure_image
from evals.harnesses.spec import get_spec, load_specs


def is_spec(config: str) -> bool:
    return config in load_specs()


def spec_agent(config: str, overrides: str = "", proxy: str = "",
               fallbacks: list[str] | None = None) -> Solver:
    """The solver running harness spec ``config`` inside the sandbox; with ``proxy`` (a real
    server) its model calls go through the sample's fault proxy, ``fallbacks`` the server's."""
    if overrides:
        raise ValueError(f"task argument overrides: not supported for harness spec {config!r} "
                         "(change the spec's launch command instead)")
    return bridge_agent(get_spec(config), proxy=proxy, fallbacks=fallbacks)


def spec_sandbox(config: str, sandbox: str, samples: int = 0) -> SandboxEnvironmentSpec:
    """The Docker sandbox running the spec's image (built first if missing), with the model
    relay the harness reaches the model through; ``samples``: how many samples will use it
    (sizes the warm pool; 0 unknown). Harness specs run only there: never on ``local``, never
    in the eval process."""
    if sandbox != "docker":
        raise ValueError(f"task argument sandbox: harness spec {config!r} runs only in the docker "
                         f"sandbox (got {sandbox!r}): third-party code is never run unisolated")
    # the docker SDK only when a docker sandbox is asked for (as in evals.task.sandbox_spec)
    from sandboxes.docker_provider import DockerSandboxConfig

    tag = ensure_image(get_spec(config))
    # More memory than a scenario's shell needs: the harness and its libraries run inside too.
    return SandboxEnvironmentSpec("looplab-docker", DockerSandboxConfig(
        image=tag, memory="2g", pids_limit=512, model_relay=True, expected_samples=samples))
