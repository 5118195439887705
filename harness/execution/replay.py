"""Idempotency-aware replay control (seed 003 ``ReplayControl.should_skip``).

- non-idempotent tool: always run (sending a message twice may be intended);
- idempotent tool, same arguments, prior SUCCESS: skip (nothing would change);
- idempotent tool, prior FAILURE or TIMEOUT: run again (a retry may succeed).

With ``invalidate_on_write``, a call that is not read-only forgets every earlier success (except
its own), because the world it read may have changed: reading a file again after a write runs.

Source: seed 003, ``ReplayControl.should_skip()`` "idempotent + prior success -> skip".
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from harness.messages import ToolCall
from harness.tools.base import Tool, ToolOutcome


def call_key(call: ToolCall) -> str:
    payload = json.dumps({"name": call.name, "args": call.arguments}, sort_keys=True, default=str)
    return hashlib.sha256(payload.encode()).hexdigest()


@dataclass(frozen=True)
class PriorCall:
    succeeded: bool
    call_id: str


class ReplayControl:
    def __init__(self, invalidate_on_write: bool = True) -> None:
        self.invalidate_on_write = invalidate_on_write
        self.history: dict[str, PriorCall] = {}

    def should_skip(self, call: ToolCall, tool: Tool | None) -> PriorCall | None:
        """The earlier successful identical call when this one should be skipped, else None."""
        if tool is None or not tool.idempotent:
            return None
        prior = self.history.get(call_key(call))
        return prior if prior is not None and prior.succeeded else None

    def record(self, call: ToolCall, tool: Tool | None, outcome: ToolOutcome) -> None:
        """Remember how a call that actually ran ended."""
        if tool is None:
            return
        if self.invalidate_on_write and tool.effect != "read_only":
            self.history.clear()
        succeeded = outcome.kind in ("result", "artifact")
        self.history[call_key(call)] = PriorCall(succeeded, call.id)
