"""A harness spec against a real server: the bridge's models go through the sample's fault proxy,
and each fault the proxy plays reaches the harness in the container as the provider sent it.

The chain: harness → the container's model relay (13131) → inspect's bridge handlers in the eval
→ the model named here (an ``openai-api`` client with no retries of its own, aimed at the
sample's fault proxy) → proxy → server. Two things would hide a fault from the harness on the
way, and both are undone here:

- inspect's model layer retries rate limits, 5xx and dropped connections, and turns a context
  overflow 400 into an empty ``model_length`` reply. The bridge's generate filter makes the call
  itself with ``max_retries=0`` and raises ``ProxiedFault`` for every failed call, overflow
  included, so the bridge answers with an error, not with a retried or empty reply.
- the client's exception carries only a status and a message. The proxy tells ``on_fault``
  (before the client sees anything) what it plays; ``ProxiedFault`` carries that record as its
  ``wire_record``, and the model relay answers the harness with the fault's real status,
  headers (``Retry-After``) and body in the scenario's provider format, or resets, stalls, cuts
  the stream: the mechanism the scripted provider uses (``evals.harnesses.model_relay``).
"""

from __future__ import annotations

import contextlib
import itertools
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.model import ChatMessage, GenerateConfig, Model, ModelOutput
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import store_as

from evals.realmodel.sample_proxy import proxied_model, sample_proxy
from evals.realmodel.sample_proxy import real_fallbacks as scenario_real_fallbacks
from evals.state import ProxyLog
from evals.wire_faults import TRANSPORT_ERRORS, wire_fault
from scenarios.schema import Scenario

Filter = Callable[[Model, list[ChatMessage], list[ToolInfo], ToolChoice | None, GenerateConfig],
                  Awaitable[ModelOutput | None]]
_ids = itertools.count(1)


class ProxiedFault(Exception):
    """A model call the fault proxy (or the server behind it) failed: ``status_code`` and the
    message, and ``wire_record`` (the fault the proxy played, None for the server's own error)
    that the model relay plays to the harness as the provider sent it."""

    def __init__(self, status: int, message: str, wire_record: dict[str, Any] | None = None) -> None:
        super().__init__(message)
        self.status_code = status
        self.wire_record = wire_record


@dataclass
class BridgeModels:
    """What the bridge of one sample is given when a harness spec runs against a real server."""

    aliases: dict[str, str | Model]
    """Name the harness sends → proxied model (its fallbacks, by the names it was told)."""
    primary: Model
    """Every other name (``inspect``, a client's own default) → the proxied primary."""
    fallback_names: list[str]
    """The fallback names the harness is told (only roles the server has a model for)."""
    filter: Filter
    """Generate filter: the call without retries; a failed call raises ``ProxiedFault``."""
    pending: list[dict[str, Any]] = field(default_factory=list)
    """Faults played and not yet raised to the bridge (oldest first)."""

    def resolver(self, name: str) -> Model:
        return self.primary


def harness_fallbacks(scenario: Scenario, fallbacks: list[str]) -> dict[str, str]:
    """Fallback name the harness sends (``backup@key-a``, as in the scripted run) → the real
    model (``openai-api/vllm/smol-fallback@key-a``: the key is the auth profile the proxy counts
    per). Roles without a real fallback are left out: the harness is not told of them."""
    return {m.split("/", 1)[-1]: real for m, real in scenario_real_fallbacks(scenario, fallbacks).items()}


@contextlib.asynccontextmanager
async def proxied_bridge_models(upstream: str, scenario: Scenario, primary: str,
                                real_fallbacks: list[str], limiter: Filter) -> AsyncIterator[BridgeModels]:
    """The sample's fault proxy and the bridge's models through it; the proxy's log goes to the
    sample state (``evals.state.ProxyLog``) for the proxy judges, as on the in-process path."""
    names = harness_fallbacks(scenario, real_fallbacks)
    pending: list[dict[str, Any]] = []

    async def on_fault(record: dict[str, Any]) -> None:
        record["message"] = _fault_message(record)
        pending.append(record)

    async with sample_proxy(upstream, scenario, primary, real_fallbacks, on_fault) as fp:
        try:
            aliases: dict[str, str | Model] = {n: proxied_model(r, fp.port) for n, r in names.items()}
            yield BridgeModels(aliases, proxied_model(primary, fp.port), list(names),
                               fault_filter(limiter, pending, fp.entries), pending)
        finally:
            store_as(ProxyLog).entries = list(fp.entries)


def _fault_message(record: dict[str, Any]) -> str:
    """The fault's text as its client reports it (numbered: two faults are told apart)."""
    human = (TRANSPORT_ERRORS[str(record["transport"])] if "transport" in record
             else wire_fault(str(record["kind"]), record["dialect"], model=record["model"]).message())
    return f"{human} [looplab fault {next(_ids)}]"


def fault_filter(limiter: Filter, pending: list[dict[str, Any]],
                 entries: list[dict[str, Any]]) -> Filter:
    """The bridge's generate filter: ``limiter`` first, then the call itself, once."""

    async def generate(model: Model, messages: list[ChatMessage], tools: list[ToolInfo],
                       tool_choice: ToolChoice | None, config: GenerateConfig) -> ModelOutput | None:
        limited = await limiter(model, messages, tools, tool_choice, config)
        if limited is not None:
            return limited
        seen = len(entries)
        try:
            out = await model.generate(messages, tools, tool_choice,
                                       config.merge(GenerateConfig(max_retries=0)))
        except Exception as e:
            raise _fault(pending, entries[seen:], e) from None
        finally:  # the proxy's log so far: what tells the agent that the harness ran
            store_as(ProxyLog).entries = list(entries)
        if out.stop_reason == "model_length" and not out.message.tool_calls and \
                any((x.get("status") or 0) >= 400 for x in entries[seen:]):
            # inspect made the server's "maximum context length" 400 an empty reply
            raise _fault(pending, entries[seen:], None, out.completion)
        # a fault that let the call through in the end (a stall, then forwarded) is no error
        del pending[:sum(x.get("action") not in (None, "forwarded") for x in entries[seen:])]
        return out

    return generate


def _fault(pending: list[dict[str, Any]], new: list[dict[str, Any]], error: Exception | None,
           text: str = "") -> ProxiedFault:
    """The exception for a failed call: the fault the proxy played for it, else the server's own
    error (status from the proxy's log, as the proxy saw it)."""
    if pending and any(x.get("action") not in (None, "forwarded") for x in new):
        record = pending.pop(0)
        return ProxiedFault(int(record.get("status") or _status(record)), record["message"], record)
    status = next((int(x["status"]) for x in new if (x.get("status") or 0) >= 400), None)
    message = text or (str(error) if error is not None else "model call failed")
    return ProxiedFault(status or int(getattr(error, "status_code", 0) or 502), message)


def _status(record: dict[str, Any]) -> int:
    if "transport" in record:
        return 502  # no answer on the wire: the relay resets, stalls or cuts instead
    return wire_fault(record["kind"], record["dialect"], model=record["model"]).status
