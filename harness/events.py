"""Run events: what the harness did, for observers (CLI stream, inspect transcript, tests).

Events are a side channel. Scorers never depend on them (they judge black-box), but reports and
``make repro`` show them so a person can see each intervention.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from typing import Any, Literal

from pydantic import BaseModel, Field

from harness.model import Usage


class RunEvent(BaseModel):
    type: str
    """Namespaced type, e.g. ``loop.warning``, ``failover.switch``, ``tool.truncated``."""
    data: dict[str, Any] = Field(default_factory=dict)
    t: float = Field(default_factory=time.time)


EventSink = Callable[[RunEvent], None]


def subsystem_logger(subsystem: str) -> logging.Logger:
    """A namespaced logger (``looplab.harness.<subsystem>``), configurable on its own (seed 004)."""
    return logging.getLogger(f"looplab.harness.{subsystem}")


class AgentRunEvent(BaseModel):
    """One record per run with the fields seed 004 instruments every run with."""

    event_type: Literal["run.started", "run.completed", "run.error"]
    run_id: str
    """Unique per run."""
    session_id: str
    """Unique per conversation: the ``Session``'s id (also its transcript's name), else one per
    ``Agent``."""
    session_key: str
    """Stable human-readable key of the session (``alice@terminal``)."""
    provider: str
    """Provider part of the model name (``openai/gpt-4o`` -> ``openai``) or the model's
    ``provider`` attribute."""
    model: str
    harness_id: str
    trigger: str
    """``user``, ``cron``, ``heartbeat``..."""
    channel: str | None
    duration_ms: int
    outcome: str
    """``completed``, ``compacted``, ``loop_detected`` or ``error``; for other endings the
    ``ExitStatus`` value (``turn_limit``, ``token_budget``, ``interrupted``...)."""
    status: str | None = None
    """The exact ``ExitStatus`` (absent on ``run.started``)."""
    token_usage: Usage | None
    tool_calls_count: int
    compaction_triggered: bool
    auth_profile_id: str | None
    error_code: str | None
    """Fault kind or status that ended the run in error; ``None`` otherwise."""


ERROR_STATUSES = frozenset({"error", "provider_error", "fallbacks_exhausted", "context_overflow"})
"""Endings reported as ``run.error``."""
