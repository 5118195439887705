"""A model that ships with the harness for tests and demos: replies come from a Python function.

``FunctionModel(fn)`` calls ``fn(messages, tools)`` for every generation. ``fn`` returns a reply
(``Message``, ``ModelReply``, a plain string, or a list of ``ToolCall``) or raises
``ProviderError`` to play a provider fault. Usage is estimated (chars/4) so budgets work.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from harness.messages import Message, ToolCall, estimate_tokens
from harness.model import ModelReply, ProviderError, ToolSpec, Usage

Reply = Message | ModelReply | str | list[ToolCall]
ReplyFn = Callable[[list[Message], list[ToolSpec]], Reply]

_ids = itertools.count(1)


def call(name: str, **arguments: Any) -> ToolCall:
    """A tool call with a fresh id."""
    return ToolCall(id=f"call_{next(_ids)}", name=name, arguments=arguments)


class FunctionModel:
    def __init__(self, fn: ReplyFn, name: str = "function", n_ctx: int | None = None) -> None:
        self.fn = fn
        self.name = name
        self.n_ctx = n_ctx
        """When set, inputs estimated above this raise a context-overflow ``ProviderError``."""
        self.calls = 0
        self.inputs: list[list[Message]] = []

    async def generate(self, messages: list[Message], tools: list[ToolSpec]) -> ModelReply:
        self.calls += 1
        self.inputs.append(list(messages))
        n_in = estimate_tokens(messages)
        if self.n_ctx is not None and n_in > self.n_ctx:
            raise ProviderError(
                "context_overflow",
                f"This model's maximum context length is {self.n_ctx} tokens. "
                f"However, you requested {n_in} tokens.",
                status=400, model=self.name,
            )
        out = self.fn(messages, tools)
        if isinstance(out, ModelReply):
            return out
        if isinstance(out, str):
            msg = Message(role="assistant", content=out)
        elif isinstance(out, list):
            msg = Message(role="assistant", tool_calls=out)
        else:
            msg = out
        usage = Usage(input_tokens=n_in, output_tokens=max(1, estimate_tokens([msg])))
        return ModelReply(message=msg, usage=usage, model=self.name)

    async def count_tokens(self, messages: list[Message]) -> int | None:
        return None


def scripted(*replies: Reply, name: str = "scripted") -> FunctionModel:
    """A model that plays ``replies`` in order, then answers ``"done"`` forever."""
    queue = list(replies)

    def fn(messages: list[Message], tools: list[ToolSpec]) -> Reply:
        return queue.pop(0) if queue else "done"

    return FunctionModel(fn, name=name)


__all__ = ["FunctionModel", "ProviderError", "call", "scripted"]
