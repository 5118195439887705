"""Run records (seed 004 "observability"): ``run.started`` and, at the end, ``run.record``.

The record carries seed 004's ``AgentRunEvent`` fields, built from ``RunState``; it is emitted as
an event (so it lands in ``RunResult.events``) and logged as JSON on the ``observability``
subsystem logger. The loop's own ``run.completed`` event stays as it is; the record is
``run.record`` with ``event_type`` ``run.completed`` or ``run.error``. With
``ObservabilityConfig.record_file`` it is also appended to a JSON-lines run log in the workspace,
which outlives the process (events and log lines do not).

Source: seed 004, "Instrument every run with these fields" (``AgentRunEvent``).
"""

from __future__ import annotations

import asyncio
import json
import time
import uuid
import weakref
from typing import Any, Literal

from harness.config import ObservabilityConfig
from harness.controls.base import Control
from harness.events import ERROR_STATUSES, AgentRunEvent, subsystem_logger
from harness.security.redaction import redact_data
from harness.sessions.files import WorkspaceStore
from harness.state import RunState
from harness.workspace import Workspace

log = subsystem_logger("observability")

# Runs of one session may end together (queue off): appends to one run log are serialised per
# workspace, so no line is lost to a read-modify-write race.
_append_locks: weakref.WeakKeyDictionary[Workspace, asyncio.Lock] = weakref.WeakKeyDictionary()


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
    return AgentRunEvent(
        event_type=event_type, run_id=run.run_id, session_id=session_id,
        session_key=config.session_key or session_id, provider=provider_of(run),
        model=run.model_name, harness_id=config.harness_id, trigger=config.trigger,
        channel=config.channel, duration_ms=int((time.time() - run.started_at) * 1000),
        outcome=outcome, status=status,
        token_usage=run.usage.model_copy(),
        tool_calls_count=run.tool_calls, compaction_triggered=compacted,
        auth_profile_id=run.profile_id, error_code=error_code,
    )


class Observability(Control):
    name = "observability"

    def __init__(self, config: ObservabilityConfig, session_id: str | None = None) -> None:
        self.config = config
        self.session_id = session_id or uuid.uuid4().hex
        """The conversation: a ``Session``'s id, else one per ``Agent``."""

    async def on_run_start(self, run: RunState) -> None:
        record = build_run_event(run, self.config, self.session_id)
        run.emit("run.started", **record.model_dump())

    async def on_run_end(self, run: RunState, status: str, message: str) -> None:
        record = build_run_event(run, self.config, self.session_id, status)
        log.info("%s", record.model_dump_json())
        run.emit("run.record", **record.model_dump())
        if self.config.record_file:
            await append_record(run, self.config.record_file, record.model_dump(mode="json"))


async def append_record(run: RunState, path: str, data: dict[str, Any]) -> None:
    """Append ``data`` as one JSON line to ``path`` in the run's workspace (atomic rewrite);
    a failure is logged and emitted, never raised: the run is over either way."""
    cfg = run.config
    if cfg.redaction.enabled or cfg.transcript.redact:
        data = redact_data(data, cfg.redaction.extra_patterns)
    line = json.dumps(data, ensure_ascii=False, sort_keys=True) + "\n"
    store = WorkspaceStore(run.workspace)
    try:
        lock = _append_locks.setdefault(run.workspace, asyncio.Lock())
    except TypeError:  # a workspace that cannot be weakly referenced: no sharing to guard
        lock = asyncio.Lock()
    try:
        async with lock:
            old = await store.read_text(path) or ""
            sep = "" if not old or old.endswith("\n") else "\n"
            await store.write_text(path, old + sep + line, atomic=True)
    except Exception as e:
        log.warning("run record %s: write failed: %s", path, e)
        run.emit("run.record_write_failed", path=path, error=f"{type(e).__name__}: {e}")
