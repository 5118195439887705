"""Scenario files (YAML, data only) and their schema.

A scenario sets up a workspace, gives the agent a task, names the actor policy that plays the
model (with parameters), schedules provider faults, and says which checklist items it probes and
how each is judged.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

FaultKind = Literal[
    "rate_limit", "overloaded", "quota_exceeded", "auth_error", "context_overflow", "bad_request",
    "connection_reset", "stall", "stream_cut",
]
"""HTTP faults (answered in the scenario's provider dialect) and transport faults (no answer:
the connection is reset, stalls, or a streamed answer stops mid-way)."""

ProviderDialect = Literal["openai", "azure", "anthropic", "google", "vllm", "llamacpp"]
"""Whose error format the scripted provider speaks (``evals.wire_faults``)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class FaultRule(_Strict):
    """Raise a provider fault on a schedule, for one model role."""

    model: str = "primary"
    """Model role: ``primary`` (the model the task was given) or a fallback's role name (the part
    after ``scripted/``, e.g. ``backup``); ``*`` for every model."""
    kind: FaultKind
    """What the provider answers."""
    from_call: int = Field(1, ge=1)
    """First call (1-based, counted per model role within one sample) that fails."""
    until_call: int | None = Field(None, ge=1)
    """Last failing call (inclusive); ``None``: every call from ``from_call`` on."""
    retry_after: float | None = None
    """``Retry-After`` seconds advertised with rate-limit/overloaded faults."""
    calls: Literal["any", "work", "summary"] = "any"
    """Which calls fail: all, ordinary agent turns only, or summarisation requests only."""
    profile: str | None = None
    """Only calls made with this auth profile (the key in ``scripted/<role>@<key>``); call
    indexes then count that profile's calls only. ``None``: any profile."""
    stall_s: float = Field(30.0, ge=0)
    """``stall``: seconds the provider holds the request before the connection drops."""

    def applies(self, role: str, call_index: int, summary: bool = False,
                profile: str | None = None) -> bool:
        if self.model not in ("*", role) or (self.profile is not None and self.profile != profile):
            return False
        if (self.calls == "work" and summary) or (self.calls == "summary" and not summary):
            return False
        return call_index >= self.from_call and (self.until_call is None or call_index <= self.until_call)


class ActorSpec(_Strict):
    policy: str
    """Name of the actor policy (``scenarios.actor.policies``) that plays the model."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Parameters for the policy (validated by the policy's own params model)."""


class JudgeSpec(_Strict):
    judge: str
    """Name of the judge (``evals.judges``) that scores this item."""
    params: dict[str, Any] = Field(default_factory=dict)
    """Parameters for the judge (thresholds, file paths, markers...)."""


class ExpandSpec(_Strict):
    """Expand one scenario file into one sample per entry of an injection corpus."""

    corpus: Literal["context_files", "tool_output"]
    """Which corpus under ``scenarios/corpus/``."""
    kind: Literal["poisoned", "benign"]
    """Which half of it."""
    install_as: str | None = None
    """Workspace path for the content; default: the entry's own ``file`` name."""


class DriverMessage(_Strict):
    """One more message (or trigger) the eval sends to the same session."""

    text: str
    """The message text or the trigger's payload."""
    trigger: str = "user"
    """``user``, ``webhook``, ``cron``, ``heartbeat``... (harnesses may triage non-user ones)."""
    after_s: float | None = Field(None, ge=0)
    """Send this many seconds after the first message, while it may still run (concurrent
    work on one session); ``None``: once the previous message's run has ended."""


class DriverSpec(_Strict):
    """How the eval drives the agent beyond one prompt: a user stop, more messages. A harness
    that accepts none of it is judged as it ran (and fails items that need it)."""

    interrupt_after_s: float | None = Field(None, gt=0)
    """Interrupt (user stop) the session this many seconds after the first message was sent."""
    interrupt_after_file: str | None = None
    """Count ``interrupt_after_s`` from the moment this workspace file appears instead (e.g. the
    stamp a long command writes when it starts), so the stop lands while that command runs."""
    messages: list[DriverMessage] = Field(default_factory=list)
    """Messages sent to the same session after the prompt."""


class RealModelSpec(_Strict):
    """How the scenario runs against a real model behind the fault proxy (``--proxy``). A real
    model does not follow the actor's script, so its work items cannot be expected; what the
    harness does with provider faults can, and is judged from what the proxy saw."""

    faults: list[FaultRule] | None = None
    """Faults the proxy injects; ``None``: the scenario's own ``faults``. Real models may finish
    in one call, so schedules usually start at call 1 here."""
    harness: dict[str, Any] = Field(default_factory=dict)
    """Deployment conditions added in a proxied run only (on top of the scenario's ``harness``),
    e.g. a verification that keeps failing so that every configuration runs several turns."""
    probes: dict[str, JudgeSpec] = Field(default_factory=dict)
    """Items judged differently in a proxied run (judges reading ``Evidence.run["proxy_log"]``);
    the scenario's other probes keep their own judges."""


class Scenario(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    """Stable ID (kebab-case); also the sample id and the ``scripted/<id>`` model name."""
    title: str
    """One line: the failure this scenario reproduces."""
    family: str
    """Checklist family of the items it probes."""
    probes: dict[str, JudgeSpec]
    """Checklist item id → how it is judged. At least one."""
    prompt: str
    """The task given to the agent (the user message)."""
    dialect: ProviderDialect = "openai"
    """The provider the scripted model plays: its faults reach the harness with that provider's
    HTTP status, headers and error body."""
    n_ctx: int = Field(16_384, ge=256)
    """Context window the actor enforces (tokens, chars/4): a larger input is answered with a
    context-overflow error like vLLM's HTTP 400."""
    files: dict[str, str] = Field(default_factory=dict)
    """Workspace files (path relative to the workspace → content) created before the run."""
    setup: list[str] = Field(default_factory=list)
    """Shell commands run in the workspace before the agent starts (e.g. ``chmod +x``)."""
    actor: ActorSpec
    faults: list[FaultRule] = Field(default_factory=list)
    fallback_models: list[str] = Field(default_factory=list)
    """Fallback chain used with a scripted primary model, e.g. ``["scripted/backup"]``."""
    summariser: Literal["faithful", "weak"] = "faithful"
    """How the actor summarises when asked: ``faithful`` keeps identifiers and progress when the
    instructions say so; ``weak`` paraphrases them whatever it is told."""
    harness: dict[str, Any] = Field(default_factory=dict)
    """Deployment conditions for our harness in this scenario (a partial ``HarnessConfig``, e.g.
    ``{modes: {mode: plan}}``), applied on top of the preset under test."""
    workdir: str | None = None
    """Subdirectory of the sandbox the agent works in (files outside it are off limits)."""
    driver: DriverSpec | None = None
    """Session-level conditions: interrupt after N seconds, further or concurrent messages."""
    markers: list[str] = Field(default_factory=list)
    """Strings the actor watches for in its input (reported per call in its observations)."""
    corpus: Literal["poisoned", "benign"] | None = None
    """Injection-corpus samples: poisoned or benign (for block-rate / false-positive reports).
    Set by expansion; not written in files."""
    expand: ExpandSpec | None = None
    """Make one sample per corpus entry (ids ``<id>--<entry-id>``)."""
    variant: str | None = None
    """Set by expansion: the corpus entry id this sample installs."""
    channel: str | None = None
    """Set by expansion: which corpus (``context_files`` or ``tool_output``) the sample is from."""
    family_id: str | None = None
    """Set by a generated variant family (``scenarios/families/``): the family's id (the part of
    the scenario id before ``--``). ``None``: a library scenario."""
    split: Literal["dev", "untuned", "fresh"] | None = None
    """Set by a generated variant family: ``dev`` (controls may be tuned on it), ``untuned``
    (made with other parameters; only measured, never tuned on) or ``fresh`` (written after the
    last control change; no control has ever been changed for it). ``None``: a public library
    scenario."""
    tags: list[str] = Field(default_factory=list)
    real_model: RealModelSpec | None = None
    """Faults and judges for a run through the fault proxy against a real server."""

    @field_validator("probes")
    @classmethod
    def _non_empty(cls, v: dict[str, JudgeSpec]) -> dict[str, JudgeSpec]:
        if not v:
            raise ValueError("a scenario must probe at least one checklist item")
        return v


def describe_validation(where: str, e: ValidationError) -> str:
    """A pydantic error as one line per field, under ``where`` (the file, or file and entry)."""
    lines = [where]
    for err in e.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        lines.append(f"  field {loc}: {err['msg']}")
    return "\n".join(lines)
