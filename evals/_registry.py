"""Entry point for inspect (``[project.entry-points.inspect_ai]``): registers looplab's model
and sandbox providers so the ``inspect`` CLI finds ``scripted/...``, ``scripted-bench/...`` and
``looplab-docker``."""

from inspect_ai._eval.registry import task_register  # no public API names a task this way
from inspect_ai.model import modelapi

import evals.bench.provider  # noqa: F401  (registers ``scripted-bench/...``)
from evals.scripted_provider import ScriptedModelAPI
from evals.task import looplab_suite


@modelapi(name="scripted")
def scripted() -> type:
    return ScriptedModelAPI


try:  # the sandbox provider needs the docker SDK only; keep model registration independent
    import sandboxes.docker_provider  # noqa: F401
except ImportError as e:  # pragma: no cover - reported when the sandbox is actually requested
    import warnings

    warnings.warn(f"looplab-docker sandbox unavailable: {e}", stacklevel=1)


def _register_suite() -> None:
    """``inspect eval looplab/suite -T config=naive``: the suite as a task of the installed
    package (inspect looks up ``looplab/<name>`` after loading this entry point)."""
    def suite(config: str = "looplab", scenarios: str = "", family: str = "",
              sandbox: str = "docker", fallbacks: str = "", overrides: str = "",
              proxy: str = ""):  # type: ignore[no-untyped-def]
        return looplab_suite(config=config, scenarios=scenarios, family=family, sandbox=sandbox,
                             fallbacks=fallbacks, overrides=overrides, proxy=proxy)

    suite.__doc__ = looplab_suite.__doc__
    task_register(suite, "looplab/suite", {}, list(suite.__code__.co_varnames[:7]))


_register_suite()
