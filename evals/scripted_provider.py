"""The ``scripted`` inspect model provider: the scenario's actor plays the model.

``scripted/<scenario-id>`` plays that scenario; ``scripted/suite`` plays whichever scenario the
current sample runs (the setup solver records it in the sample store); any other name
(``scripted/backup``) is a fallback *role* of the current scenario, whose faults are scheduled
separately. The provider enforces the scenario's context window, raises scheduled provider
faults, sets token usage on every output (inspect would otherwise download a tokenizer), and
records what it observed in the sample store for the judges.
"""

from __future__ import annotations

import hashlib
import json
import time
from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    GenerateConfig,
    ModelAPI,
    ModelOutput,
    ModelUsage,
)
from inspect_ai.model._model_output import ChatCompletionChoice
from inspect_ai.tool import ToolChoice, ToolInfo
from inspect_ai.util import store

from evals.convert import from_inspect, to_inspect, tool_spec
from harness.messages import Message, estimate_tokens, unpaired_tool_messages
from scenarios.actor import ActorView, act, to_reply
from scenarios.actor.summarise import is_summary_request, summarise
from scenarios.loader import load_library
from scenarios.schema import Scenario

SCENARIO_KEY = "looplab:scenario"
OBSERVATIONS_KEY = "looplab:actor"

_STATUS = {"rate_limit": 429, "quota_exceeded": 429, "overloaded": 529, "auth_error": 401,
           "bad_request": 400, "context_overflow": 400}
_BODIES = {
    "rate_limit": "Rate limit reached for requests. Please try again later.",
    "quota_exceeded": "You exceeded your current quota, please check your plan and billing details.",
    "overloaded": "Overloaded",
    "auth_error": "Incorrect API key provided.",
    "bad_request": "Invalid request.",
    "context_overflow": "maximum context length exceeded",
}


class ScriptedFault(Exception):
    """A provider fault played by the actor. ``looplab_kind`` classifies it for the harness."""

    def __init__(self, kind: str, model: str, retry_after: float | None = None) -> None:
        self.looplab_kind = kind
        self.status = _STATUS[kind]
        self.retry_after = retry_after
        self.body = {"error": {"message": _BODIES[kind], "type": kind, "code": self.status}}
        super().__init__(f"Error code: {self.status} - {json.dumps(self.body)} (model {model})")


def input_tokens(messages: list[Any], tools: list[ToolInfo]) -> int:
    """The actor's token count: chars/4 of messages plus tool schemas (deterministic)."""
    tool_chars = sum(len(t.model_dump_json()) for t in tools)
    return estimate_tokens(messages) + tool_chars // 4


class ScriptedModelAPI(ModelAPI):
    def __init__(self, model_name: str, base_url: str | None = None, api_key: str | None = None,
                 config: GenerateConfig | None = None, **model_args: Any) -> None:
        super().__init__(model_name=model_name, base_url=base_url, api_key=api_key,
                         config=config or GenerateConfig())

    def _scenario_and_role(self) -> tuple[Scenario, str]:
        library = load_library()
        if self.model_name in library:
            return library[self.model_name], "primary"
        scenario_id = store().get(SCENARIO_KEY)
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
        counter_key = f"looplab:actor:calls:{role}"
        call_index = int(store().get(counter_key, 0)) + 1
        store().set(counter_key, call_index)

        messages = [from_inspect(m) for m in input]
        n_in = input_tokens(messages, tools)
        summary = is_summary_request(messages, len(tools))
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
            profile_index = int(store().get(f"{counter_key}@{profile}", 0)) + 1
            store().set(f"{counter_key}@{profile}", profile_index)
        fault = next((f for f in scenario.faults if f.applies(
            role, profile_index if f.profile else call_index, summary, profile)), None)
        if fault is not None:
            self._observe({**obs, "fault": fault.kind})
            raise ScriptedFault(fault.kind, self.model_name, fault.retry_after)
        if n_in > scenario.n_ctx:
            self._observe({**obs, "overflow": True})
            text = (f"This model's maximum context length is {scenario.n_ctx} tokens. However, you "
                    f"requested {n_in} tokens in the messages. Please reduce the length of the messages.")
            return ModelOutput.from_content(self.model_name, text, stop_reason="model_length")

        # Markers count only in an input the model accepted: an overflowed request reached nobody.
        obs["markers"] = [k for k in scenario.markers if any(k in m.content for m in messages)]
        if summary:
            reply = Message(role="assistant",
                            content=summarise(messages, weak=scenario.summariser == "weak"))
            self._observe({**obs, "action": "Summary"})
        else:
            view = ActorView(messages, [tool_spec(t) for t in tools], role=role, call_index=call_index,
                             prompt=scenario.prompt)
            action = act(scenario.actor.policy, scenario.actor.params, view)
            reply = to_reply(action, view.tools)
            self._observe({**obs, "action": type(action).__name__,
                           "tools_called": [c.name for c in reply.tool_calls]})
        message = to_inspect(reply)
        assert isinstance(message, ChatMessageAssistant)
        n_out = max(1, estimate_tokens([reply]))
        return ModelOutput(
            model=self.model_name,
            choices=[ChatCompletionChoice(
                message=message, stop_reason="tool_calls" if reply.tool_calls else "stop")],
            usage=ModelUsage(input_tokens=n_in, output_tokens=n_out, total_tokens=n_in + n_out),
        )

    @staticmethod
    def _prefix_share(role: str, summary: bool, messages: list[Message]) -> float | None:
        """Share of the previous call's messages that this call repeats unchanged at its start:
        what a server-side prefix cache can reuse (1.0 for an append-only conversation)."""
        if summary:
            return None
        key = f"looplab:actor:prefix:{role}"
        digests = [hashlib.sha1(m.model_dump_json().encode()).hexdigest()[:12] for m in messages]
        previous: list[str] = store().get(key, [])
        store().set(key, digests)
        if not previous:
            return None
        same = 0
        for a, b in zip(previous, digests, strict=False):
            if a != b:
                break
            same += 1
        return round(same / len(previous), 4)

    @staticmethod
    def _observe(obs: dict[str, Any]) -> None:
        store().set(OBSERVATIONS_KEY, [*store().get(OBSERVATIONS_KEY, []), obs])

    async def count_text_tokens(self, text: str) -> int:
        return len(text) // 4

    def should_retry(self, ex: Exception) -> bool:
        return False  # faults must reach the harness under test: failover is what is measured

    def max_connections(self) -> int:
        return 64


def pairs_ok(messages: list[Message]) -> bool:
    """Is every tool result preceded by its call, and every call answered before the next turn?"""
    return unpaired_tool_messages(messages) is None


def _excerpt(text: str, limit: int = 400) -> str:
    """Head and tail of a task text: harnesses wrap sub-tasks in their own preamble."""
    return text if len(text) <= limit else f"{text[:150]} … {text[-(limit - 150):]}"
