"""Run events: what the harness did, for observers (CLI stream, inspect transcript, tests).

Events are a side channel. Scorers never depend on them (they judge black-box), but reports and
``make repro`` show them so a person can see each intervention.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any

from pydantic import BaseModel, Field


class RunEvent(BaseModel):
    type: str
    """Namespaced type, e.g. ``loop.warning``, ``failover.switch``, ``tool.truncated``."""
    data: dict[str, Any] = Field(default_factory=dict)
    t: float = Field(default_factory=time.time)


EventSink = Callable[[RunEvent], None]


def subsystem_logger(subsystem: str) -> logging.Logger:
    """A namespaced logger (``looplab.harness.<subsystem>``), configurable on its own (seed 004)."""
    return logging.getLogger(f"looplab.harness.{subsystem}")
