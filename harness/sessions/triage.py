"""Trigger triage (seed 002): a webhook, cron tick or heartbeat is not handed to the agent as is.

``TriggerEnvelope -> run_triage -> TriageDecision``: ``drop`` (noise), ``notify`` (tell, do not
run), ``spawn_reactor`` (a small bounded run) or ``spawn_orchestrator`` (a full run). Rules are
data (``TriageConfig.rules``: trigger type + payload regex -> decision, first match wins), with a
default. User messages skip triage: a human asked.
"""

from __future__ import annotations

import re

from pydantic import BaseModel

from harness.prompts import load_prompt
from harness.sessions_config import TriageConfig, TriageDecision

USER_TRIGGERS = frozenset({"user", "manual"})


class TriggerEnvelope(BaseModel):
    trigger: str
    """``user``, ``manual``, ``webhook``, ``cron``, ``heartbeat``..."""
    payload: str = ""
    """The message text or the event's payload."""


class TriageResult(BaseModel):
    decision: TriageDecision
    rule: int | None = None
    """Index of the rule that decided (``None``: default, or a user message)."""
    reason: str = ""


def run_triage(envelope: TriggerEnvelope, config: TriageConfig) -> TriageResult:
    if envelope.trigger in USER_TRIGGERS:
        return TriageResult(decision="spawn_orchestrator", reason="user messages skip triage")
    for i, rule in enumerate(config.rules):
        if rule.trigger not in ("*", envelope.trigger):
            continue
        if rule.pattern is not None and not re.search(rule.pattern, envelope.payload):
            continue
        return TriageResult(decision=rule.decision, rule=i,
                            reason=f"rule {i} ({rule.trigger}, {rule.pattern or 'any payload'})")
    return TriageResult(decision=config.default, reason="no rule matched: default")


def trigger_task_text(envelope: TriggerEnvelope, decision: TriageDecision) -> str:
    """What the agent is asked when a trigger spawns a run (the payload is framed as data)."""
    if envelope.trigger in USER_TRIGGERS:
        return envelope.payload
    name = "trigger_reactor.md" if decision == "spawn_reactor" else "trigger_orchestrator.md"
    return load_prompt(name).format(trigger=envelope.trigger, payload=envelope.payload)
