"""Sessions: persistence, resume, interrupts, per-session queues and trigger triage.

Modules: ``files`` (atomic writes, host or workspace), ``transcript`` (JSONL records, loader,
repair, writer), ``transcript_control`` (the persisting Control), ``progress`` and
``progress_tools`` (long-running sessions: progress file, notes, session-state text),
``bootstrap`` (injects that text once per session), ``interrupt`` (fence, signal and file relays),
``queue`` (two-level queue, progress-timestamp timeouts), ``triage`` (trigger rules), ``session``
(the ``Session`` class tying them together).

This package is imported by ``harness.controls``; to avoid an import cycle with ``harness.loop``
the names below are resolved lazily.
"""

from __future__ import annotations

import importlib
from typing import Any

from harness.sessions import progress_tools as _progress_tools  # noqa: F401  (registers tools)

_EXPORTS = {
    "Session": "harness.sessions.session",
    "AgentQueue": "harness.sessions.queue",
    "LaneTask": "harness.sessions.queue",
    "LaneTimeout": "harness.sessions.queue",
    "resolve_priority": "harness.sessions.queue",
    "InterruptFence": "harness.sessions.interrupt",
    "InterruptRelay": "harness.sessions.interrupt",
    "install_interrupt_handler": "harness.sessions.interrupt",
    "request_interrupt": "harness.sessions.interrupt",
    "TranscriptControl": "harness.sessions.transcript_control",
    "load_transcript": "harness.sessions.transcript",
    "repair_history": "harness.sessions.transcript",
    "has_marker": "harness.sessions.transcript",
    "parse_records": "harness.sessions.transcript",
    "build_session_bootstrap_prompt": "harness.sessions.progress",
    "detect_first_session": "harness.sessions.progress",
    "select_next_task": "harness.sessions.progress",
    "mark_task_done": "harness.sessions.progress",
    "run_triage": "harness.sessions.triage",
    "TriggerEnvelope": "harness.sessions.triage",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'harness.sessions' has no attribute {name!r}")
