"""Config of the session controls (seeds 000-004): transcript, progress file, interrupt, message
queue and triage. Part of ``HarnessConfig``; kept apart so ``harness/config.py`` stays readable."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness.config_base import Regex
from harness.config_base import Strict as _Strict

TriageDecision = Literal["drop", "notify", "spawn_reactor", "spawn_orchestrator"]


class TranscriptConfig(_Strict):
    enabled: bool = False
    """Persist every message of a run to ``<dir>/<session_id>.jsonl`` (seed 000), flushed before
    each model call, after each reply and after each turn's tool results: a crash loses at most
    the turn in flight. A stored transcript resumes with ``Session.resume()``."""
    dir: str = ".looplab/sessions"
    """Transcript directory, relative to the workspace root; written through the ``Workspace`` so
    it works in any sandbox and black-box scorers find it (seed 000: ``.cyberpaw/sessions``)."""
    host_dir: str | None = None
    """When set, transcripts go to this directory on the harness host instead (they outlive a
    sandbox that is thrown away)."""
    atomic: bool = True
    """Write a temp file and rename it over the transcript (seed 004 atomic writes): a crash
    mid-write leaves the previous complete file. Off: the file is rewritten in place."""
    redact: bool = False
    """Pass every persisted string through ``harness.security.redaction.redact``."""


class ProgressConfig(_Strict):
    enabled: bool = False
    """Long-running sessions (seed 004): at session start, inject the state of the progress file
    (or, on the first session, the initializer instructions) as a user message."""
    progress_file: str = "agent-progress.json"
    """JSON task list in the workspace: ``id, title, description, acceptance_criteria, status``
    (``todo|in_progress|done``), ``completed_at``."""
    notes_file: str = "agent-notes.md"
    """Append-only notes in the workspace (one entry per session)."""
    notes_tail_chars: int = Field(5_000, ge=0)
    """How much of the end of the notes the session-state message shows (seed 004: 5,000)."""
    redact: bool = False
    """Pass what the progress tools write through ``harness.security.redaction.redact``."""


class InterruptConfig(_Strict):
    enabled: bool = False
    """Real kill (seed 001): ``Session.interrupt()`` cancels the running model call or tool and
    kills its process group. Off: only the interruption fence flips, and the run stops at its
    next checkpoint (a running tool finishes first)."""
    relay_dir: str | None = None
    """Host directory watched for ``<session_id>.interrupt``: another process interrupts a
    running session by creating that file (seed 001's interrupt relay)."""
    relay_poll_s: float = Field(0.2, gt=0)
    """How often the relay looks for the file."""


class QueueConfig(_Strict):
    enabled: bool = False
    """Two queues in series (seed 004 ``AgentQueue``): a per-session FIFO ordered by trigger
    priority, then a global concurrency gate. Off: concurrent messages to one session run at
    the same time."""
    priority: bool = True
    """Order a session's waiting messages by trigger priority: a human's (``user``) before
    ``webhook`` before ``cron``/``heartbeat`` (seed 004 ``resolve_priority``). Off: strictly by
    arrival, so a user waits behind every background job that arrived first."""
    global_concurrency: int = Field(4, ge=1)
    """Runs in flight at once across all sessions sharing the queue (seed 004: 4)."""
    lane_timeout_ms: int | None = Field(600_000, ge=1)
    """Stop a run after this long without progress (``None``: never). The seed gives no number."""
    timeout_basis: Literal["progress", "wall"] = "progress"
    """``progress``: time since the run's last turn, tool result or event, so a run that keeps
    working is never killed (seed 004 ``LaneTask``). ``wall``: time since it started."""


class TriageRule(_Strict):
    trigger: str = "*"
    """Trigger type the rule applies to (``webhook``, ``cron``, ``heartbeat``...) or ``*``."""
    pattern: Regex | None = None
    """Regular expression searched in the payload; ``None`` matches any payload."""
    decision: TriageDecision
    """What happens to a matching trigger."""


class TriageConfig(_Strict):
    enabled: bool = False
    """Trigger triage (seed 002): a non-user trigger (webhook, cron, heartbeat) is first decided
    ``drop`` / ``notify`` / ``spawn_reactor`` / ``spawn_orchestrator``; user messages skip it.
    Off: every trigger starts a full run."""
    rules: list[TriageRule] = Field(
        default_factory=lambda: [TriageRule(trigger="heartbeat", decision="drop")]
    )
    """Rules in order; the first match decides."""
    default: TriageDecision = "notify"
    """Decision when no rule matches (no human is waiting: tell, do not spend a run)."""
    reactor_max_turns: int = Field(5, ge=1)
    """Turn cap of a ``spawn_reactor`` run (a small, bounded reaction)."""
