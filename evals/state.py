"""Per-sample state: what solvers, the scripted actor and scorers hand each other in a sample.

Each model is an inspect ``StoreModel``: ``store_as(RunRecord)`` reads and writes the current
sample's store, field by field, with the types below. inspect keeps a field under the key
``<Model>:<field>`` (``RunRecord:exit_status``), and the log keeps the store: ``in_log`` reads
a finished sample's state back from its log with the same types.

Fields are assigned whole, never changed in place: a value read from a ``StoreModel`` is a
validated copy, so a change to it is not the store's.
"""

from __future__ import annotations

from typing import Any, TypeVar

from inspect_ai.log import EvalSample
from inspect_ai.util import Store, StoreModel, store
from pydantic import Field


class RunRecord(StoreModel):
    """How the agent under test ended: every agent writes it (our harness, a peer, a harness
    spec), the scorers and judges read it."""

    exit_status: str | None = None
    """The typed ending (``completed``, ``turn_limit``, ``cut_off``, ``not_run``, ``error``...);
    ``None``: none was recorded (the harness never started, or the sample stopped first)."""
    run: dict[str, Any] = Field(default_factory=dict)
    """Counters and notes of the run, what judges read as ``Evidence.run``: ``turns``,
    ``tool_calls``, ``model_calls``, ``message`` (cut to 500 characters), and as an agent has
    them ``interventions``, ``driver`` (what a scenario's driver delivered, and when),
    ``transcript_dir``, ``not_applicable`` (item → why the harness has no surface for it), a
    harness spec's ``harness``, ``dialect``, ``exit_code``, ``output_tail`` and ``acted``, and
    the benchmark's ``input_tokens`` / ``output_tokens``."""


class ActorState(StoreModel):
    """What the scripted actor keeps from one model call of a sample to the next."""

    scenario_id: str | None = None
    """The scenario the sample runs (set before the agent starts): ``scripted/suite`` plays it."""
    calls: dict[str, int] = Field(default_factory=dict)
    """Model calls so far per role (``primary``, ``backup``...) and per role's auth profile
    (``backup@key-a``): fault schedules count them."""
    prefixes: dict[str, list[str]] = Field(default_factory=dict)
    """Per role, digests of the messages of its last call: how much of it the next call repeats
    (the prefix share a server-side cache could reuse)."""
    pending: dict[str, list[str]] = Field(default_factory=dict)
    """Per role, the call ids of the actor's last reply (their names are in ``aliases``): a
    continued conversation that no longer shows them answered them its own way."""
    carried: dict[str, dict[str, int]] = Field(default_factory=dict)
    """Per role, calls answered without being shown, counted while the conversation goes on
    (``evals.scripted_provider.carry_unshown``)."""
    aliases: dict[str, str] = Field(default_factory=dict)
    """The calls the actor asked for, under the form the harness's conversation shows them in
    (``id:<call id>``, or ``call:<tool> <arguments>`` for a text action read back) → the name
    judges match (``evals.scripted_provider.remember_requests``)."""


class ActorObservations(StoreModel):
    """What the scripted actor observed, one entry per model call: judges read it."""

    observations: list[dict[str, Any]] = Field(default_factory=list)
    """Per call: ``role``, ``call``, ``input_tokens``, ``messages``, ``summary_request``,
    ``pairs_ok``, ``markers`` seen, the ``action`` played and the calls ``requested``, a
    ``fault`` or ``overflow`` served, the time ``t`` (``evals.scripted_provider``)."""


class HarnessRun(StoreModel):
    """A harness spec run in the sandbox through the model relay (``evals.harnesses``)."""

    harness: str | None = None
    """The spec's id."""
    dialect: str | None = None
    """The spec's action dialect: how the actor reads and writes actions for it."""
    own_context_tokens: int = 0
    """Added to the scenario's context window for this harness (``HarnessSpec.own_context_tokens``)."""
    cut_off: bool = False
    """The relay refused a call past the spec's model-call limit (the run ends ``cut_off``)."""
    launched: float | None = None
    """When the harness was launched (``time.time()``)."""
    exited: float | None = None
    """When it exited (or was stopped)."""
    requests: list[list[Any]] = Field(default_factory=list)
    """Each model request it made: its arrival, when its answer was sent (``time.time()``) and
    its API: where a spec sample's time goes (``make bench-specs``)."""


class ProxyLog(StoreModel):
    """The sample's fault proxy, in a run against a real server."""

    entries: list[dict[str, Any]] | None = None
    """The proxy's log, one entry per request (``None``: the sample ran without a proxy)."""


class SandboxRoot(StoreModel):
    """The working directory of one sandbox (``instance``: the sandbox), asked once per sample."""

    root: str | None = None


class BenchState(StoreModel):
    """A benchmark sample (``evals.bench``)."""

    sample_id: str | None = None
    """The benchmark sample (``<task>--<variant>``) the ``scripted-bench`` actor plays."""
    actor: str | None = None
    """The actor the primary model plays (fallback roles play the same)."""
    started: float | None = None
    """Wall clock when the agent started (seconds since the epoch)."""
    stopped: float | None = None
    """Wall clock when the agent stopped."""


Model = TypeVar("Model", bound=StoreModel)


def in_log(model: type[Model], sample: EvalSample, instance: str | None = None) -> Model:
    """The state ``model`` a finished sample left in its log (a copy: changes stay here)."""
    return model(store=Store(sample.store), instance=instance)


def peek(model: type[StoreModel], field: str) -> Any:
    """The current sample's ``model.field`` as the store holds it, unvalidated: for the scripted
    model's reads on every call. inspect's ``StoreModel`` builds a new pydantic ``TypeAdapter``
    on every read of a list or dict field and validates the whole value (the observations grow
    with the run): a dozen such reads were most of the scripted model's time per call. The value
    is the store's own: never change it in place (``put`` a new one)."""
    default = model.model_fields[field].get_default(call_default_factory=True)
    return store().get(f"{model.__name__}:{field}", default)


def put(model: type[StoreModel], field: str, value: Any) -> None:
    """Set the current sample's ``model.field`` (``peek``'s write; a ``store_as`` read sees it)."""
    store().set(f"{model.__name__}:{field}", value)
