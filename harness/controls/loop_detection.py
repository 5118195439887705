"""Tool-loop detection (seed 004 ``ToolLoopDetector``): identical repeats, with escalation.

Warn, then intervene, then stop: the model gets a chance to self-correct before the circuit
breaker ends the run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from typing import Any

from harness.config import LoopDetectionConfig
from harness.controls.base import Control
from harness.messages import ToolCall
from harness.state import RunState
from harness.status import ExitStatus, RunEnded
from harness.tools.base import ToolOutcome


def stable_hash(obj: Any) -> str:
    """Deterministic hash regardless of dict key order."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class CallRecord:
    tool: str
    args_hash: str
    result_hash: str


class LoopDetection(Control):
    name = "loop_detection"

    def __init__(self, config: LoopDetectionConfig) -> None:
        self.config = config
        self.history: list[CallRecord] = []
        self.total_calls = 0
        self.criticals = 0
        self._pending_stop: str | None = None

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        cfg = self.config
        record = CallRecord(
            call.name, stable_hash({"name": call.name, "args": call.arguments}),
            stable_hash(outcome.content),
        )
        self.total_calls += 1
        window = self.history[-(cfg.history_size - 1):] if cfg.history_size > 1 else []
        self.history.append(record)

        if self.total_calls >= cfg.circuit_breaker_threshold:
            self._pending_stop = f"Circuit breaker: {self.total_calls} tool calls in this run."
            return outcome
        repeats = 1 + sum(1 for r in window if r.args_hash == record.args_hash)
        if repeats >= cfg.critical_threshold:
            self.criticals += 1
            run.emit("loop.critical", tool=call.name, repeats=repeats, criticals=self.criticals)
            if self.criticals > cfg.critical_limit:
                self._pending_stop = (
                    f"Tool {call.name!r} called {repeats} times with identical arguments after "
                    f"{cfg.critical_limit} interventions."
                )
            return outcome.with_content(
                f"[LOOP DETECTED]\nTool {call.name!r} called {repeats} times with identical "
                "arguments. Stop repeating it and try a fundamentally different approach.\n\n"
                f"Tool output:\n{outcome.content}",
                loop="critical",
            )
        if repeats >= cfg.warning_threshold:
            run.emit("loop.warning", tool=call.name, repeats=repeats)
            return outcome.with_content(
                f"[WARNING: Tool {call.name!r} called {repeats} times with identical arguments. "
                f"Consider a different approach.]\n\nTool output:\n{outcome.content}",
                loop="warning",
            )
        return outcome

    async def after_tools(self, run: RunState) -> None:
        # Stop only after every call of the turn is answered (each call gets exactly one result).
        if self._pending_stop:
            run.emit("loop.circuit_breaker", reason=self._pending_stop)
            raise RunEnded(ExitStatus.CIRCUIT_BREAKER, self._pending_stop)
