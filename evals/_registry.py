"""Entry point for inspect (``[project.entry-points.inspect_ai]``): registers looplab's model
and sandbox providers so the ``inspect`` CLI finds ``scripted/...``, ``scripted-bench/...`` and
``looplab-docker``."""

from inspect_ai.model import modelapi


@modelapi(name="scripted")
def scripted() -> type:
    from evals.scripted_provider import ScriptedModelAPI

    return ScriptedModelAPI


import evals.bench.provider  # noqa: E402,F401  (registers ``scripted-bench/...``)

try:  # the sandbox provider needs the docker SDK only; keep model registration independent
    import sandboxes.docker_provider  # noqa: F401
except ImportError as e:  # pragma: no cover - reported when the sandbox is actually requested
    import warnings

    warnings.warn(f"looplab-docker sandbox unavailable: {e}", stacklevel=1)
