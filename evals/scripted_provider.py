"""The ``scripted`` inspect model provider: the scenario's actor plays the model.

``scripted/<scenario-id>`` plays that scenario; ``scripted/suite`` plays whichever scenario the
current sample runs (the setup solver records it: ``evals.state.ActorState``); any other name
(``scripted/backup``) is a fallback *role* of the current scenario, whose faults are scheduled
separately. The provider enforces the scenario's context window, raises scheduled provider
faults, sets token usage on every output (inspect would otherwise download a tokenizer), and
records what it observed for the judges (``evals.state.ActorObservations``).

Faults (and an input over the context window) are raised as the OpenAI SDK raises a provider's
answer: HTTP status, headers and error body in the scenario's provider ``dialect``
(``evals.wire_faults``), or a connection error for transport faults. Nothing in them is
looplab's own: a harness classifies what a real client would see.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
import time
from functools import cache
from typing import Any

import httpx2  # the HTTP library the openai SDK is built on (its errors carry its types)
import openai
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
    get_model_info,
)
from inspect_ai.model._model_output import ChatCompletionChoice
from inspect_ai.tool import ToolChoice, ToolInfo

from evals.convert import from_inspect, to_inspect, tool_spec
from evals.library import load_library
from evals.state import ActorObservations, ActorState, HarnessRun, peek, put
from evals.wire_faults import TRANSPORT_ERRORS, TRANSPORT_KINDS, WireFault, wire_fault
from harness.messages import Message, estimate_tokens, unpaired_tool_messages
from harness.model import ToolSpec
from scenarios.actor import ActorView, act, to_reply
from scenarios.actor.actions import Parallel
from scenarios.actor.dialects import Style, normalise, read_style, shell_line, text_calls
from scenarios.actor.dialects import reply as dialect_reply
from scenarios.actor.summarise import is_summary_request, summarise
from scenarios.schema import FaultRule, Scenario


class ScriptedFault(openai.APIStatusError):
    """A provider fault as an OpenAI-SDK client raises it: status, headers and the body in the
    scenario's provider dialect. ``wire_record`` is the fault's wire form: the model relay
    (``evals.harnesses.model_relay``) answers a harness in a container with it, in the API that
    harness speaks."""

    def __init__(self, wire: WireFault, model: str, wire_record: dict[str, Any]) -> None:
        request = httpx2.Request("POST", "https://api.provider.invalid/v1/chat/completions")
        response = httpx2.Response(wire.status, headers=wire.headers, json=wire.body,
                                  request=request)
        error = wire.body.get("error", wire.body)
        super().__init__(f"Error code: {wire.status} - {json.dumps(wire.body)}",
                         response=response, body=error if isinstance(error, dict) else wire.body)
        self.wire = wire
        self.provider_message = wire.message()
        self.model = model
        self.wire_record = wire_record


class ScriptedConnectionError(openai.APIConnectionError):
    """A transport fault (reset, stall, cut stream) as an OpenAI-SDK client raises it."""

    def __init__(self, kind: str) -> None:
        request = httpx2.Request("POST", "https://api.provider.invalid/v1/chat/completions")
        super().__init__(message=TRANSPORT_ERRORS[kind], request=request)
        self.transport = kind
        self.provider_message = TRANSPORT_ERRORS[kind]
        self.wire_record = {"transport": kind}


def input_tokens(messages: list[Any], tools: list[ToolInfo]) -> int:
    """The actor's token count: chars/4 of messages plus tool schemas (deterministic)."""
    tool_chars = sum(len(t.model_dump_json()) for t in tools)
    return estimate_tokens(messages) + tool_chars // 4


def _window(scenario: Scenario) -> int:
    """The context window the actor enforces: the scenario's, plus the harness spec's own text
    (``HarnessSpec.own_context_tokens``; 0 for the presets)."""
    return scenario.n_ctx + int(peek(HarnessRun, "own_context_tokens"))


@cache
def _warm_model_info(model: str) -> None:
    """Look ``model`` up in inspect's model database now, in the background, once per process.
    inspect's transcript looks up a model's info at its first model event, and the first lookup
    reads the whole database (YAML: 0.5-1.5 s of CPU here), which landed inside the first
    sample's first model call; the model is made while the eval sets up, before any sample."""
    threading.Thread(target=get_model_info, args=(model,), name="model-info", daemon=True).start()


def check_model_name(name: str) -> None:
    """A typo in ``scripted/<id>`` must not silently run the whole suite: the name is ``suite``,
    a scenario id, or a fallback role some scenario names (``scripted/backup``)."""
    library = load_library()
    roles = {m.split("/", 1)[1].split("@", 1)[0] for s in library.values()
             for m in s.fallback_models if m.startswith("scripted/")}
    if name not in {"suite", *library, *roles}:
        raise ValueError(f"--model scripted/{name}: no scenario or fallback role {name!r}; use "
                         f"scripted/suite, scripted/<scenario-id> (see `python -m evals list`) "
                         f"or one of the roles {', '.join(sorted(roles))}")


class ScriptedModelAPI(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key,
                         config=config or GenerateConfig())
        self.action_dialect: str | None = model_args.get("action_dialect")
        """``-M action_dialect=...``; else the harness spec's, from the sample store."""
        self.check_name(model_name)
        _warm_model_info(f"scripted/{model_name}")

    def check_name(self, model_name: str) -> None:
        """Refuse a name this provider cannot play (subclasses playing other data override it)."""
        check_model_name(model_name)

    def _scenario_and_role(self) -> tuple[Scenario, str]:
        library = load_library()
        if self.model_name in library:
            return library[self.model_name], "primary"
        scenario_id = peek(ActorState, "scenario_id")
        if scenario_id is None or scenario_id not in library:
            raise RuntimeError(
                f"scripted/{self.model_name}: no scenario is active in this sample; use "
                f"scripted/<scenario-id> or run a looplab task (valid ids: {', '.join(library)})"
            )
        role = "primary" if self.model_name in ("suite", scenario_id) else self.model_name
        return library[scenario_id], role

    async def generate(self, input: list[ChatMessage], tools: list[ToolInfo],
                       tool_choice: ToolChoice, config: GenerateConfig) -> ModelOutput:
        scenario, role = self._scenario_and_role()
        call_index = self._count(role)

        messages = [from_inspect(m) for m in input]
        n_in = input_tokens(messages, tools)
        summary = is_summary_request(messages, len(tools))
        before = len(peek(ActorState, "prefixes").get(role, []))  # the role's previous input
        obs: dict[str, Any] = {
            "role": role, "call": call_index, "input_tokens": n_in, "messages": len(messages),
            "max_tool_chars": max((len(m.content) for m in messages if m.role == "tool"), default=0),
            "summary_request": summary, "pairs_ok": pairs_ok(messages),
            "task": _excerpt(ActorView(messages, [], prompt=scenario.prompt).task()),
            "prefix": self._prefix_share(role, summary, messages), "t": round(time.time(), 3),
        }
        profile = self.api_key or None  # ``scripted/<role>@<key>``: one auth profile of the role
        profile_index = call_index
        if profile is not None:
            obs["profile"] = profile
            profile_index = self._count(f"{role}@{profile}")
        view = style = None
        if not summary:
            # Before any fault: a request that overflowed or met a fault still shows what the
            # harness did with the calls before it (it ran them and sent their results).
            view, style = self._view(messages, [tool_spec(t) for t in tools], role, call_index, scenario)
            continues = obs["prefix"] == 1.0 and len(messages) > before
            obs["answered"] = carry_unshown(role, view, continues,
                                            answered_calls(view, peek(ActorState, "aliases")))
        fault = next((f for f in scenario.faults if f.applies(
            role, profile_index if f.profile else call_index, summary, profile)), None)
        if fault is not None:
            self._observe({**obs, "fault": fault.kind})
            raise await self._fault(fault, scenario, n_in)
        if n_in > _window(scenario):
            self._observe({**obs, "overflow": True})
            raise await self._fault(FaultRule(kind="context_overflow"), scenario, n_in)

        # Markers count only in an input the model accepted: an overflowed request reached nobody.
        obs["markers"] = [k for k in scenario.markers if any(k in m.content for m in messages)]
        if view is None:
            reply = Message(role="assistant",
                            content=summarise(messages, weak=scenario.summariser == "weak"))
            self._observe({**obs, "action": "Summary"})
        else:
            action = act(scenario.actor.policy, scenario.actor.params, view)
            reply = to_reply(action, view.tools) if style is None else dialect_reply(action, view.tools, style)
            if scenario.family == "loop":  # when the harness stepped in: a loop item's grade
                obs["stepped_in"] = view.intervened(
                    varying=int(scenario.actor.policy == "poll_until"),
                    alike=bool(scenario.actor.params.get("alike", False)))
            asked = remember_requests(role, reply, action, style)
            self._observe({**obs, "action": type(action).__name__,
                           "tools_called": [c.name for c in reply.tool_calls],
                           "requested": asked})
        message = to_inspect(reply)
        assert isinstance(message, ChatMessageAssistant)
        n_out = max(1, estimate_tokens([reply]))
        return ModelOutput(
            model=self.model_name,
            choices=[ChatCompletionChoice(
                message=message, stop_reason="tool_calls" if reply.tool_calls else "stop")],
            usage=ModelUsage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out),
        )

    def _view(self, messages: list[Message], tools: list[ToolSpec], role: str, call_index: int,
              scenario: Scenario) -> tuple[ActorView, Style | None]:
        """What the actor sees. A harness run through the bridge names its action dialect: text
        actions and replayed history are then read back into tool calls and results."""
        dialect = self.action_dialect or peek(HarnessRun, "dialect")
        style = None
        if dialect is not None:
            style = read_style(messages, dialect)
            messages = normalise(messages, style)
            tools = tools or style.functions
        view = ActorView(messages, tools, role=role, call_index=call_index, prompt=scenario.prompt)
        return view, style

    async def _fault(self, fault: FaultRule, scenario: Scenario, n_in: int) -> Exception:
        """The exception a client of the scenario's provider would get for ``fault``."""
        if fault.kind in TRANSPORT_KINDS:
            if fault.kind == "stall":
                await asyncio.sleep(fault.stall_s)  # the request hangs, then the link drops
            return ScriptedConnectionError(fault.kind)
        n_ctx = _window(scenario)
        wire = wire_fault(fault.kind, scenario.dialect, model=self.model_name,
                          retry_after=fault.retry_after, n_ctx=n_ctx, prompt_tokens=n_in)
        record = {"kind": fault.kind, "dialect": scenario.dialect, "model": self.model_name,
                  "retry_after": fault.retry_after, "n_ctx": n_ctx, "prompt_tokens": n_in}
        return ScriptedFault(wire, self.model_name, record)

    @staticmethod
    def _prefix_share(role: str, summary: bool, messages: list[Message]) -> float | None:
        """Share of the previous call's messages that this call repeats unchanged at its start:
        what a server-side prefix cache can reuse (1.0 for an append-only conversation)."""
        if summary:
            return None
        digests = [hashlib.sha1(m.model_dump_json().encode()).hexdigest()[:12] for m in messages]
        prefixes = peek(ActorState, "prefixes")
        previous = prefixes.get(role, [])
        put(ActorState, "prefixes", {**prefixes, role: digests})
        if not previous:
            return None
        same = 0
        for a, b in zip(previous, digests, strict=False):
            if a != b:
                break
            same += 1
        return round(same / len(previous), 4)

    @staticmethod
    def _count(key: str) -> int:
        """This call's number among the calls counted under ``key`` (a role, or role@profile)."""
        calls = peek(ActorState, "calls")
        n = calls.get(key, 0) + 1
        put(ActorState, "calls", {**calls, key: n})
        return n

    @staticmethod
    def _observe(obs: dict[str, Any]) -> None:
        put(ActorObservations, "observations", [*peek(ActorObservations, "observations"), obs])

    async def count_text_tokens(self, text: str) -> int:
        return len(text) // 4

    def should_retry(self, ex: Exception) -> bool:
        return False  # faults must reach the harness under test: failover is what is measured

    def max_connections(self) -> int:
        return 64


def requested(call: Any) -> str:
    """``<tool> <argument values>`` of a call the actor asked for: what judges check to know
    the failing (or benign) call reached the harness (``evals.judges.sprung``)."""
    return " ".join([call.name, *(str(v) for v in call.arguments.values())])[:300]


def remember_requests(role: str, reply: Message, action: Any, style: Style | None) -> list[str]:
    """The calls ``reply`` asks for, as ``requested`` names them, each remembered under the
    form the harness's conversation will show it in: its call id (a harness may relabel the
    call, e.g. opencode's ``invalid`` tool, but keeps the id) or, for text actions, the call
    the actor's view reads back from the text. ``answered_calls`` keys answers by them, so a
    judge's ``requested`` pattern meets requests and answers alike; ``carry_unshown`` looks for
    the role's last calls in its next input."""
    put(ActorState, "pending", {**peek(ActorState, "pending"), role: [c.id for c in reply.tool_calls]})
    aliases = dict(peek(ActorState, "aliases"))
    if style is None or style.dialect == "tools":
        asked = [requested(c) for c in reply.tool_calls]
        aliases.update({f"id:{c.id}": key for c, key in zip(reply.tool_calls, asked, strict=True)})
    else:
        asked = shell_requests(action)
        shown = text_calls(reply.content, style)
        if len(shown) == len(asked):
            aliases.update({f"call:{requested(c)}": key for c, key in zip(shown, asked, strict=True)})
    put(ActorState, "aliases", aliases)
    return asked


def carry_unshown(role: str, view: ActorView, continues: bool,
                  answered: dict[str, int]) -> dict[str, int]:
    """``answered`` plus the calls the harness dealt with without showing them: an input that
    continues the role's previous one (repeats it whole and adds to it) while none of the calls
    the actor last asked for appears in it (mini-swe-agent drops a call to an unknown tool and
    answers with a user message) answered those calls in its own way. Counted on for as long
    as the conversation goes on; a fresh conversation starts from nothing."""
    all_carried = peek(ActorState, "carried")
    carried = dict(all_carried.get(role, {})) if continues else {}
    shown = {c.id for m in view.messages for c in m.tool_calls}
    last = peek(ActorState, "pending").get(role, [])
    if continues and last and not shown.intersection(last):
        aliases = peek(ActorState, "aliases")
        for call_id in last:  # named as remember_requests named it
            key = aliases.get(f"id:{call_id}", call_id)
            carried[key] = carried.get(key, 0) + 1
    put(ActorState, "carried", {**all_carried, role: carried})
    return {k: answered.get(k, 0) + carried.get(k, 0) for k in {*answered, *carried}}


def answered_calls(view: ActorView, aliases: dict[str, str] | None = None) -> dict[str, int]:
    """The calls this input shows answered, as the actor asked for them (``remember_requests``),
    with how often: a call and its result, or a call the harness moved past without one (a
    refusal it sent as a user or system message, or a new turn). A loop's trap needs calls the
    harness dealt with, not merely calls the actor asked for (``evals.judges.sprung``)."""
    aliases = aliases or {}
    results = {m.tool_call_id for m in view.messages if m.role == "tool"}
    # Index of the last message that is not a tool result: a turn before it was moved past.
    last_turn = max((i for i, m in enumerate(view.messages) if m.role != "tool"), default=-1)
    counts: dict[str, int] = {}
    for i, m in enumerate(view.messages):
        if m.role != "assistant" or not m.tool_calls:
            continue
        moved_on = i < last_turn
        for call in m.tool_calls:
            if call.id in results or moved_on:
                key = (aliases.get(f"id:{call.id}") or aliases.get(f"call:{requested(call)}")
                       or requested(call))
                counts[key] = counts.get(key, 0) + 1
    return counts


def shell_requests(action: Any) -> list[str]:
    """What a text-dialect reply (fenced shell, code action) asks the harness to run, one entry
    per command: such replies carry no tool calls, yet the trap is sprung all the same."""
    if isinstance(action, Parallel):
        return [r for a in action.actions for r in shell_requests(a)]
    line = shell_line(action)
    return [line[:300]] if line else []


def pairs_ok(messages: list[Message]) -> bool:
    """Is every tool result preceded by its call, and every call answered before the next turn?"""
    return unpaired_tool_messages(messages) is None


def _excerpt(text: str, limit: int = 400) -> str:
    """Head and tail of a task text: harnesses wrap sub-tasks in their own preamble."""
    return text if len(text) <= limit else f"{text[:150]} … {text[-(limit - 150):]}"
