"""``RunState``: all mutable state of one run in one place (seed 003, TurnRuntimeState), and the
limits table it ends by.

Every way a run ends early is a row of one table (``run_limits``): a name, the typed
``ExitStatus`` it ends with, and its cap when it has one, read from the config section of the
control that counts it (``None``: switched off, or an ending that counts nothing: a provider's
verdict, an interrupt). A control counts what it watches where it happens and asks its row
(``Limit.reached``); every early ending goes through ``RunState.end`` with the row's status. Turns
and tool calls are counted here and checked by ``RunState.check_limits`` before every step. The
only other ending is the loop's own: the model answered (``COMPLETED``).
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
    """One way a run ends early."""

    name: str
    status: ExitStatus
    """How a run this limit ends is reported."""
    cap: float | None = None
    """The count that ends the run; None: nothing counted (switched off, or tripped by what
    detects it)."""
    message: str = "{name} limit {cap} reached"
    """What ``RunResult.message`` says when ``check_limits`` ends the run on this row."""
    over: bool = False
    """The run ends when the count passes the cap (a budget may be used up to its cap), not when
    it reaches it (a turn cap counts the turns taken)."""

    def reached(self, used: float) -> bool:
        """Whether ``used`` ends the run."""
        if self.cap is None:
            return False
        return used > self.cap if self.over else used >= self.cap


def run_limits(config: HarnessConfig) -> dict[str, Limit]:
    """The limits table of one run: where each cap comes from and who counts it."""
    lim, budget, loops = config.limits, config.budget, config.loop_detection
    failover, hooks = config.failover, config.hooks

    def cap(on: bool, value: float | None) -> float | None:
        return value if on else None

    rows = [
        # Counted here, checked before every step (``check_limits``), in this order.
        Limit("turns", ExitStatus.TURN_LIMIT, lim.max_turns, "turn limit {cap} reached"),
        Limit("tool_calls", ExitStatus.TOOL_CALL_LIMIT, lim.max_tool_calls,
              "tool-call limit {cap} reached"),
        # Counted by the controls that own them (the config section in each comment).
        Limit("input_tokens", ExitStatus.TOKEN_BUDGET, cap(budget.enabled, budget.max_input_tokens),
              over=True),  # budget: TokenBudget, before each model call
        Limit("output_tokens", ExitStatus.TOKEN_BUDGET,
              cap(budget.enabled, budget.max_output_tokens), over=True),  # budget: TokenBudget
        Limit("cost_usd", ExitStatus.TOKEN_BUDGET, cap(hooks.enabled, hooks.max_cost_usd)),  # hooks: cost_cap
        Limit("circuit_breaker", ExitStatus.CIRCUIT_BREAKER,  # loop_detection: calls of the run
              cap(loops.enabled and loops.circuit_breaker, loops.circuit_breaker_threshold)),
        Limit("ignored_criticals", ExitStatus.CIRCUIT_BREAKER,  # loop_detection: interventions
              cap(loops.enabled, loops.critical_limit), over=True),
        Limit("empty_replies", ExitStatus.EMPTY_REPLIES,  # empty_reply: nudges in a row
              cap(config.empty_reply.enabled, config.empty_reply.max_nudges), over=True),
        Limit("retry_attempts", ExitStatus.FALLBACKS_EXHAUSTED,  # failover: failed attempts of one call
              cap(failover.enabled, failover.max_failed_attempts)),
        Limit("retry_seconds", ExitStatus.FALLBACKS_EXHAUSTED,  # failover: seconds one call spends failing
              cap(failover.enabled, failover.retry_budget_s)),
        # Nothing counted: tripped by what detects them.
        Limit("fallbacks", ExitStatus.FALLBACKS_EXHAUSTED),  # router: every model and profile failed
        Limit("context_overflow", ExitStatus.CONTEXT_OVERFLOW),  # router: the input is too long
        Limit("provider_error", ExitStatus.PROVIDER_ERROR),  # router: an error no retry can fix
        Limit("kill_switch", ExitStatus.INTERRUPTED),  # hooks.kill_switch_file
        Limit("interrupted", ExitStatus.INTERRUPTED),  # Agent.interrupt, a session's or a parent's fence
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

    def check_limits(self) -> None:
        """End the run when the turns or tool calls have reached their caps (in table order)."""
        for name, used in (("turns", self.turns), ("tool_calls", self.tool_calls)):
            limit = self.limits[name]
            if limit.reached(used):
                self.end(name, limit.message.format(name=name, cap=_num(limit.cap or 0)))

    def reached(self, name: str, used: float) -> bool:
        """Whether ``used`` ends the run by limit ``name`` (its row's cap)."""
        return self._row(name).reached(used)

    def end(self, name: str, message: str, status: ExitStatus | None = None) -> NoReturn:
        """End the run by limit ``name``, with that row's typed status (``status`` only for an
        ending the table does not know: a custom stop hook's)."""
        raise self.ending(name, message, status)

    def ending(self, name: str, message: str, status: ExitStatus | None = None) -> RunEnded:
        """The ``RunEnded`` that ``end`` raises (for a ``raise ... from``)."""
        limit = self.limits.get(name)
        if limit is None and status is None:
            raise KeyError(f"unknown limit {name!r}: known {sorted(self.limits)}")
        return RunEnded(limit.status if limit is not None else status, message)  # type: ignore[arg-type]

    def _row(self, name: str) -> Limit:
        limit = self.limits.get(name)
        if limit is None:
            raise KeyError(f"unknown limit {name!r}: known {sorted(self.limits)}")
        return limit


def _num(value: float) -> float | int:
    return int(value) if float(value).is_integer() else value
