"""Sessions: persistence, resume, interrupts, per-session queues and trigger triage.

Modules: ``files`` (atomic writes, host or workspace), ``transcript`` (JSONL records, loader,
repair, writer), ``transcript_control`` (the persisting Control), ``progress`` and
``progress_tools`` (long-running sessions: progress file, notes, session-state text),
``bootstrap`` (injects that text once per session), ``interrupt`` (fence and file relay),
``queue`` (two-level queue, progress-timestamp timeouts), ``triage`` (trigger rules), ``session``
(the ``Session`` class tying them together).
"""

from __future__ import annotations

from harness.sessions import progress_tools as _progress_tools  # noqa: F401  (registers tools)
