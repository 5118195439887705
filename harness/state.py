"""``RunState``: all mutable state of one run in one place (seed 003, TurnRuntimeState)."""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field

from harness.config import HarnessConfig
from harness.events import EventSink, RunEvent
from harness.messages import Message
from harness.model import Model, Usage
from harness.tools.base import Tool
from harness.workspace import Workspace


@dataclass
class RunState:
    config: HarnessConfig
    workspace: Workspace
    tools: list[Tool]
    messages: list[Message] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    turns: int = 0
    tool_calls: int = 0
    model_calls: int = 0
    model_name: str = ""
    """The model currently answering (changes on failover)."""
    provider: str = ""
    """Provider of the model currently answering (its ``provider`` attribute), when it says."""
    profile_id: str | None = None
    """The auth profile (credential) currently answering, when the model has one."""
    run_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    """Unique id of this run (observability)."""
    started_at: float = field(default_factory=time.time)
    """Wall-clock start of the run (observability: ``duration_ms``)."""
    events: list[RunEvent] = field(default_factory=list)
    sink: EventSink | None = None
    model: Model | None = None
    """The model object currently answering (set by the loop and the router): controls that call
    the model themselves (compaction's summariser, reflection) use it."""
    handoff_reason: str | None = None
    """Set by ``request_handoff``: the next compaction writes a handoff briefing for a new model."""

    def emit(self, type: str, **data: object) -> RunEvent:
        if self.config.redaction.enabled:  # events are logged and persisted: never with secrets
            from harness.security.redaction import redact_data

            data = redact_data(data, self.config.redaction.extra_patterns)
        event = RunEvent(type=type, data=dict(data))
        self.events.append(event)
        if self.sink is not None:
            self.sink(event)
        return event

    def request_handoff(self, reason: str) -> None:
        """A new model is taking over (e.g. after a failover switch): the next compaction uses the
        handoff instructions (seed 004 handoff mode)."""
        self.handoff_reason = reason

    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]
