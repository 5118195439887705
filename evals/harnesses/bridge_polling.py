"""Let inspect's agent bridge poll as often as the sandbox allows.

inspect's ``sandbox_agent_bridge`` serves the harness's model requests through a sandbox
service that it starts with ``polling_interval=2`` (inspect_ai 0.3.285,
``agent/_bridge/sandbox/service.py``); ``sandbox_service`` never polls faster than the larger of
that and the sandbox's ``default_polling_interval()``. So every model call of a harness in the
container waited up to 2 s for its answer: 18 turns took 36 s of waiting on a 2-core machine
that had nothing to do. Our Docker sandbox answers an exec in a few ms and states 0.2 s, as
inspect's own Docker sandbox does.

The bridge's module imports ``sandbox_service`` by name, so rebinding that one name in that one
module changes only the bridge's model service. If a future inspect moves it, nothing is patched
and runs are only slower (a debug line says so): verdicts never depend on the interval.
"""

from __future__ import annotations

import functools
import logging
from typing import Any

logger = logging.getLogger(__name__)
_PATCHED = "__looplab_polling__"


def poll_at_sandbox_rate() -> bool:
    """Make the bridge's model service poll at the sandbox's own rate; True when applied."""
    try:
        from inspect_ai.agent._bridge.sandbox import service as bridge_service  # private: may move
    except ImportError:  # a future inspect layout: keep its default interval
        logger.debug("inspect's bridge service module not found; polling stays at its default")
        return False
    original = getattr(bridge_service, "sandbox_service", None)
    if original is None:
        logger.debug("inspect's bridge service has no sandbox_service; polling stays at its default")
        return False
    if getattr(original, _PATCHED, False):
        return True

    @functools.wraps(original)
    async def sandbox_service(*args: Any, **kwargs: Any) -> Any:
        # None means "the sandbox's default_polling_interval()" in sandbox_service.
        kwargs["polling_interval"] = None
        return await original(*args, **kwargs)

    setattr(sandbox_service, _PATCHED, True)
    bridge_service.sandbox_service = sandbox_service  # type: ignore[attr-defined]
    return True
