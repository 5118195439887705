"""Run records (seed 004 "observability"): ``run.started`` and, at the end, ``run.record``.

The record carries seed 004's ``AgentRunEvent`` fields, built from ``RunState``; it is emitted as
an event (so it lands in ``RunResult.events``) and logged as JSON on the ``observability``
subsystem logger. The loop's own ``run.completed`` event stays as it is; the record is
``run.record`` with ``event_type`` ``run.completed`` or ``run.error``.
"""

from __future__ import annotations

import time
import uuid
from typing import Literal

from harness.config import ObservabilityConfig
from harness.controls.base import Control
from harness.events import ERROR_STATUSES, AgentRunEvent, TokenUsage, subsystem_logger
from harness.state import RunState

log = subsystem_logger("observability")


def compaction_triggered(run: RunState) -> bool:
    return any(e.type.startswith("compaction") or ".compact" in e.type for e in run.events) or any(
        m.origin == "compaction" for m in run.messages
    )


def outcome_of(status: str, compacted: bool) -> str:
    if status == "completed":
        return "compacted" if compacted else "completed"
    if status == "circuit_breaker":
        return "loop_detected"
    return "error" if status in ERROR_STATUSES else status


def last_error_code(run: RunState) -> str | None:
    for e in reversed(run.events):
        if e.type == "provider.error":
            return str(e.data.get("kind"))
    return None


def provider_of(run: RunState) -> str:
    """The model's own ``provider``, else the prefix of a ``provider/model`` name."""
    if run.provider:
        return run.provider
    head, sep, _ = run.model_name.partition("/")
    return head if sep else "unknown"


def build_run_event(
    run: RunState,
    config: ObservabilityConfig,
    session_id: str,
    status: str | None = None,
) -> AgentRunEvent:
    """The record for ``run``: ``run.started`` when ``status`` is None, else the ending."""
    compacted = compaction_triggered(run)
    event_type: Literal["run.started", "run.completed", "run.error"]
    if status is None:
        event_type, outcome, error_code = "run.started", "started", None
    else:
        failed = status in ERROR_STATUSES
        event_type = "run.error" if failed else "run.completed"
        outcome = outcome_of(status, compacted)
        error_code = (last_error_code(run) or status) if failed else None
    u = run.usage
    return AgentRunEvent(
        event_type=event_type, run_id=run.run_id, session_id=session_id,
        session_key=config.session_key or session_id, provider=provider_of(run),
        model=run.model_name, harness_id=config.harness_id, trigger=config.trigger,
        channel=config.channel, duration_ms=int((time.time() - run.started_at) * 1000),
        outcome=outcome, status=status,
        token_usage=TokenUsage(input_tokens=u.input_tokens, output_tokens=u.output_tokens,
                               cached_tokens=u.cached_tokens),
        tool_calls_count=run.tool_calls, compaction_triggered=compacted,
        auth_profile_id=run.profile_id, error_code=error_code,
    )


class Observability(Control):
    name = "observability"

    def __init__(self, config: ObservabilityConfig) -> None:
        self.config = config
        self.session_id = uuid.uuid4().hex
        self._started: RunState | None = None

    async def before_model(self, run: RunState) -> None:
        if run is self._started:
            return
        self._started = run
        record = build_run_event(run, self.config, self.session_id)
        run.emit("run.started", **record.model_dump())

    async def on_run_end(self, run: RunState, status: str, message: str) -> None:
        record = build_run_event(run, self.config, self.session_id, status)
        log.info("%s", record.model_dump_json())
        run.emit("run.record", **record.model_dump())
