"""Redaction as a control: secrets in tool output may be hidden from the model too.

What is persisted or logged always goes through ``redact`` when redaction is on (run events in
``RunState.emit``, transcripts by the session writer); this control adds the optional step of
redacting what the model sees (``RedactionConfig.redact_tool_output``).
"""

from __future__ import annotations

from harness.controls.base import Control
from harness.messages import ToolCall
from harness.security.config import RedactionConfig
from harness.security.redaction import redact
from harness.state import RunState
from harness.tools.base import ToolOutcome


class RedactToolOutput(Control):
    name = "redaction"

    def __init__(self, config: RedactionConfig) -> None:
        self.extra = tuple(config.extra_patterns)

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        cleaned = redact(outcome.content, self.extra)
        if cleaned == outcome.content:
            return outcome
        run.emit("security.redacted", tool=call.name)
        return outcome.with_content(cleaned, redacted=True)
