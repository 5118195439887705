"""``RunState``: all mutable state of one run in one place (seed 003, TurnRuntimeState), and the
run-ending limits it is checked against.

Every limit that ends a run is a row of one table (``run_limits``): a name, the typed
``ExitStatus`` it ends with, and a cap (None: that limit counts nothing itself; it is tripped by
the control that detects it). Counted limits are checked together by ``RunState.check_limits``
(the loop calls it before every step); ``RunState.spend`` adds to a counter and ends the run at
once when its cap is reached; ``RunState.end`` is how a control that detected a limit (the
circuit breaker, the kill switch, the token budget, a provider retry budget) ends the run. All
three raise ``RunEnded`` with the row's status, so every ending is typed the same way.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import dataclass, field
from typing import NoReturn

from harness.config import HarnessConfig
from harness.events import EventSink, RunEvent
from harness.messages import Message
from harness.model import Model, Usage
from harness.security.redaction import redact_data
from harness.status import ExitStatus, RunEnded
from harness.tools.base import Tool
from harness.workspace import Workspace


@dataclass(frozen=True)
class Limit:
    """One run-ending limit."""

    name: str
    status: ExitStatus
    """How a run this limit ends is reported."""
    cap: float | None = None
    """The counter's value that ends the run; None: not counted here (tripped by a control)."""
    message: str = "{name} limit {cap} reached"
    """What ``RunResult.message`` says when the cap is reached."""


def run_limits(config: HarnessConfig) -> dict[str, Limit]:
    """The limits table of one run, in the order they are checked."""
    lim = config.limits
    rows = [
        Limit("turns", ExitStatus.TURN_LIMIT, lim.max_turns, "turn limit {cap} reached"),
        Limit("tool_calls", ExitStatus.TOOL_CALL_LIMIT, lim.max_tool_calls,
              "tool-call limit {cap} reached"),
        Limit("tokens", ExitStatus.TOKEN_BUDGET),  # budget.* (TokenBudget) and hooks' cost cap
        Limit("circuit_breaker", ExitStatus.CIRCUIT_BREAKER),  # loop_detection
        Limit("kill_switch", ExitStatus.INTERRUPTED),  # hooks.kill_switch_file
        Limit("retry_budget", ExitStatus.FALLBACKS_EXHAUSTED),  # failover.retry_budget_s
    ]
    return {row.name: row for row in rows}


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
    limits: dict[str, Limit] = field(default_factory=dict)
    """The run's limits table (``run_limits`` of the config unless given)."""
    spent: dict[str, float] = field(default_factory=dict)
    """Counters of the limits other than ``turns`` and ``tool_calls`` (``spend``)."""

    def __post_init__(self) -> None:
        if not self.limits:
            self.limits = run_limits(self.config)

    def emit(self, type: str, **data: object) -> RunEvent:
        if self.config.redaction.enabled:  # events are logged and persisted: never with secrets
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

    # --- limits ----------------------------------------------------------------------------

    def used(self, name: str) -> float:
        """How much of limit ``name`` this run has used."""
        if name == "turns":
            return self.turns
        if name == "tool_calls":
            return self.tool_calls
        return self.spent.get(name, 0.0)

    def check_limits(self) -> None:
        """End the run when any counted limit has reached its cap (checked in table order)."""
        for limit in self.limits.values():
            if limit.cap is not None and self.used(limit.name) >= limit.cap:
                self.end(limit.name, limit.message.format(name=limit.name, cap=_num(limit.cap)))

    def spend(self, name: str, amount: float = 1.0) -> None:
        """Add ``amount`` to limit ``name``'s counter; end the run when that reaches the cap."""
        self.spent[name] = self.spent.get(name, 0.0) + amount
        limit = self.limits.get(name)
        if limit is not None and limit.cap is not None and self.spent[name] >= limit.cap:
            self.end(name, limit.message.format(name=name, cap=_num(limit.cap)))

    def end(self, name: str, message: str, status: ExitStatus | None = None) -> NoReturn:
        """End the run because limit ``name`` was reached, with that limit's typed status
        (``status`` only for a limit the table does not know, e.g. a custom stop hook)."""
        limit = self.limits.get(name)
        if limit is None and status is None:
            raise KeyError(f"unknown limit {name!r}: known {sorted(self.limits)}")
        raise RunEnded(limit.status if limit is not None else status, message)  # type: ignore[arg-type]


def _num(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value
