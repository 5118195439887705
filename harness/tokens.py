"""Token counting: exact when the model has a tokenizer, a chars/4 estimate otherwise.

Seed 000 counts with the model's own tokenizer; seed 001 estimates ~4 characters per token. The
counter asks the model once and remembers when it cannot count, so a model without a tokenizer
costs nothing after the first call. Estimates are cached per message object (a message is a
value: controls replace a message or its content, they never edit a tool call's arguments in
place), so a turn costs one estimate for each new message, not one per message of the history;
exact counts are cached per history fingerprint, because compaction counts the same history
several times per turn.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from harness.events import subsystem_logger
from harness.messages import Message, estimate_tokens
from harness.model import Model

log = subsystem_logger("tokens")

_CACHE_LIMIT = 8192
"""Entries kept per cache before it is cleared (a run rarely has more distinct messages)."""


def fingerprint(m: Message) -> tuple[Any, ...]:
    """A hashable key that changes whenever anything the model would see in ``m`` changes."""
    calls = tuple(
        (c.id, c.name, json.dumps(c.arguments, sort_keys=True, default=str)) for c in m.tool_calls
    )
    return (m.role, m.content, m.thoughts, m.tool_call_id, m.name, calls)


class TokenCounter:
    """Counts tokens of a message list for one run.

    ``use_model=False`` forces the estimate (seed 001), even when the model could count.
    """

    def __init__(self, *, use_model: bool = True) -> None:
        self.use_model = use_model
        self._model_cannot_count: set[str] = set()
        self._by_object: dict[int, tuple[Any, ...]] = {}
        self._last: list[Message] = []
        self._last_totals: list[int] = [0]
        """Running totals of ``_last``: ``_last_totals[i]`` is the estimate of ``_last[:i]``."""
        self._exact: dict[tuple[str, tuple[tuple[Any, ...], ...]], int] = {}

    def estimate_message(self, m: Message) -> int:
        # Keyed by the object, checked against the fields an estimate reads (by identity: a
        # replaced content string or tool-call list is a new estimate). Holding ``m`` keeps its
        # id from being reused while the entry lives.
        hit = self._by_object.get(id(m))
        if (hit is not None and hit[0] is m and hit[1] is m.content and hit[2] is m.thoughts
                and hit[3] is m.tool_calls and hit[4] == len(m.tool_calls)):
            return hit[5]
        if len(self._by_object) >= _CACHE_LIMIT:
            self._by_object.clear()
        n = estimate_tokens([m])
        self._by_object[id(m)] = (m, m.content, m.thoughts, m.tool_calls, len(m.tool_calls), n)
        return n

    def estimate(self, messages: Sequence[Message]) -> int:
        # The history mostly grows at its end: the longest prefix made of the same objects as
        # last time keeps its running total, so only the new tail is estimated.
        prev, totals = self._last, self._last_totals
        if len(messages) >= len(prev) and messages[: len(prev)] == prev:
            k = len(prev)  # it only grew (the usual turn): list equality checks identity first
        else:
            k, n = 0, min(len(prev), len(messages))
            while k < n and messages[k] is prev[k]:
                k += 1
        if k + 1 < len(totals):
            totals = totals[: k + 1]
        for m in messages[k:]:
            totals.append(totals[-1] + self.estimate_message(m))
        self._last, self._last_totals = list(messages), totals
        return totals[-1]

    async def count(self, messages: Sequence[Message], model: Model | None) -> int:
        """Tokens in ``messages``: the model's exact count when it offers one, else the estimate."""
        exact = await self._exact_count(messages, model) if self.use_model else None
        return exact if exact is not None else self.estimate(messages)

    async def _exact_count(self, messages: Sequence[Message], model: Model | None) -> int | None:
        if model is None or model.name in self._model_cannot_count:
            return None
        key = (model.name, tuple(fingerprint(m) for m in messages))
        if key in self._exact:
            return self._exact[key]
        try:
            n = await model.count_tokens(list(messages))
        except Exception:  # a broken tokenizer must not stop the run: estimate instead
            log.warning("count_tokens failed on %s; estimating", model.name, exc_info=True)
            n = None
        if not isinstance(n, int) or isinstance(n, bool):
            self._model_cannot_count.add(model.name)
            return None
        if len(self._exact) >= _CACHE_LIMIT:
            self._exact.clear()
        self._exact[key] = n
        return n
