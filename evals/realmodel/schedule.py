"""The proxy's fault schedule: which request gets which fault.

Rules have the shape of ``scenarios.schema.FaultRule`` where they overlap (``model``, ``kind``,
``from_call``, ``until_call``, ``retry_after``) plus what only a network proxy can do (an
``api_key`` filter, ``stall`` and ``reset``). Calls are counted per (model name, API key): a
scenario's "third call of the primary model" means the same thing here as in the scripted actor.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from scenarios.loader import ScenarioError, get_scenario
from scenarios.schema import FaultRule, ProviderDialect

ProxyFaultKind = Literal[
    "rate_limit", "overloaded", "quota_exceeded", "auth_error", "context_overflow",
    "bad_request", "stall", "reset", "connection_reset", "stream_cut",
]
"""``reset`` is the older name of ``connection_reset``."""


class ProxyRule(BaseModel):
    """One scheduled fault."""

    model_config = ConfigDict(extra="forbid")

    model: str = "*"
    """Model name as sent in the request body's ``model`` field; ``*`` for every model."""
    api_key: str = "*"
    """Bearer key the rule applies to; ``*`` for every key (and for requests without one)."""
    kind: ProxyFaultKind
    """What the proxy answers instead of forwarding."""
    from_call: int = Field(1, ge=1)
    """First failing call (1-based, counted per model name and API key)."""
    until_call: int | None = Field(None, ge=1)
    """Last failing call (inclusive); ``None``: every call from ``from_call`` on."""
    retry_after: float | None = Field(None, ge=0)
    """Retry hint (seconds) sent with ``rate_limit`` (default 1) and ``overloaded``, the way
    the dialect's provider sends it."""
    status: int | None = None
    """Override the dialect's usual HTTP status (e.g. ``529`` for an ``overloaded`` answer)."""
    stall_s: float = Field(30.0, ge=0)
    """``stall``: seconds to hold the accepted request without sending a byte."""
    after_stall: Literal["close", "forward"] = "close"
    """``stall``: then close the connection without an answer, or forward the request late."""
    max_context: int = Field(2048, ge=1)
    """``context_overflow``: the context length named in the error message."""
    dialect: ProviderDialect = "openai"
    """Whose error format the answer takes (status, headers, body): ``evals.wire_faults``."""

    def applies(self, model: str, api_key: str | None, call_index: int) -> bool:
        if self.model not in ("*", model):
            return False
        if self.api_key != "*" and self.api_key != (api_key or ""):
            return False
        return call_index >= self.from_call and (self.until_call is None or call_index <= self.until_call)


class Schedule(BaseModel):
    """A proxy schedule file (YAML): ``rules: [...]``."""

    model_config = ConfigDict(extra="forbid")

    rules: list[ProxyRule] = Field(default_factory=list)
    """Checked in order; the first rule that applies to a call decides its fault."""
    notes: list[str] = Field(default_factory=list)
    """Why rules of a source scenario were left out (set by ``from_scenario``)."""

    def match(self, model: str, api_key: str | None, call_index: int) -> ProxyRule | None:
        return next((r for r in self.rules if r.applies(model, api_key, call_index)), None)


def key_id(api_key: str | None) -> str | None:
    """A stable, non-reversible id for a key: logs must never hold the key itself."""
    if not api_key:
        return None
    return "key-" + hashlib.sha256(api_key.encode()).hexdigest()[:12]


def load_schedule(path: Path) -> Schedule:
    try:
        data = yaml.safe_load(path.read_text()) or {}
    except (OSError, yaml.YAMLError) as e:
        raise ValueError(f"schedule file {path}: {e}") from None
    if isinstance(data, list):
        data = {"rules": data}
    try:
        return Schedule.model_validate(data)
    except ValidationError as e:
        raise ValueError(f"schedule file {path}: {e}") from None


def from_fault_rules(
    faults: list[FaultRule], primary_model: str, roles: dict[str, str] | None = None,
    dialect: ProviderDialect = "openai",
) -> Schedule:
    """Translate a scenario's ``faults``: role ``primary`` becomes ``primary_model`` (the name
    the upstream serves), other roles go through ``roles`` (role → served model name) or keep
    their own name. The proxy cannot tell a summarisation request from a work turn, so rules
    limited to one of them are left out, with a note saying so."""
    roles = {"primary": primary_model, **(roles or {})}
    rules: list[ProxyRule] = []
    notes: list[str] = []
    for i, f in enumerate(faults):
        if f.calls != "any":
            notes.append(f"faults[{i}] ({f.kind}, calls: {f.calls}) left out: the proxy cannot "
                         "tell summarisation requests from work turns")
            continue
        model = "*" if f.model == "*" else roles.get(f.model, f.model)
        # A profile is an API key: the proxy counts calls per model and key, as the actor
        # counts a profile's calls.
        rules.append(ProxyRule(model=model, api_key=f.profile or "*", kind=f.kind,
                               from_call=f.from_call, until_call=f.until_call,
                               retry_after=f.retry_after, stall_s=f.stall_s, dialect=dialect))
    return Schedule(rules=rules, notes=notes)


def from_scenario(scenario_id: str, primary_model: str, roles: dict[str, str] | None = None) -> Schedule:
    try:
        scenario = get_scenario(scenario_id)
    except ScenarioError as e:
        raise ValueError(f"--scenario {scenario_id!r}: {e}") from None
    return from_fault_rules(scenario.faults, primary_model, roles, scenario.dialect)
