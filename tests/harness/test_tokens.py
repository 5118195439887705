"""Token counting: the model's own count when it has one, the chars/4 estimate otherwise."""

from __future__ import annotations

import asyncio

from harness.messages import Message, estimate_tokens
from harness.testing import FunctionModel, call
from harness.tokens import TokenCounter


class WordCountingModel(FunctionModel):
    """A model with a tokenizer: one token per whitespace-separated word (plus 3 per message)."""

    def __init__(self) -> None:
        super().__init__(lambda m, t: "ok", name="words")
        self.count_calls = 0

    async def count_tokens(self, messages: list[Message]) -> int | None:
        self.count_calls += 1
        return sum(len(m.content.split()) + 3 for m in messages)


HISTORY = [
    Message.system("you are an agent"),
    Message.user("word " * 100),
    Message(role="assistant", tool_calls=[call("bash", command="ls")]),
]


def test_exact_count_comes_from_the_model_tokenizer() -> None:
    model = WordCountingModel()
    counter = TokenCounter()
    n = asyncio.run(counter.count(HISTORY, model))
    assert n == (4 + 3) + (100 + 3) + (0 + 3)
    assert n != estimate_tokens(HISTORY)


def test_exact_counts_are_cached_per_history_and_recomputed_when_it_changes() -> None:
    model = WordCountingModel()
    counter = TokenCounter()
    asyncio.run(counter.count(HISTORY, model))
    asyncio.run(counter.count(list(HISTORY), model))
    assert model.count_calls == 1
    longer = [*HISTORY, Message.user("two more")]
    assert asyncio.run(counter.count(longer, model)) == 113 + 5
    assert model.count_calls == 2


def test_without_a_tokenizer_the_estimate_is_used_and_the_model_asked_once() -> None:
    model = FunctionModel(lambda m, t: "ok")  # count_tokens returns None
    counter = TokenCounter()
    assert asyncio.run(counter.count(HISTORY, model)) == sum(estimate_tokens([m]) for m in HISTORY)
    asyncio.run(counter.count(HISTORY, model))
    assert "function" in counter._model_cannot_count


def test_estimate_mode_ignores_the_tokenizer() -> None:
    model = WordCountingModel()
    counter = TokenCounter(use_model=False)
    assert asyncio.run(counter.count(HISTORY, model)) == counter.estimate(HISTORY)
    assert model.count_calls == 0


def test_estimate_cache_follows_content_changes() -> None:
    counter = TokenCounter()
    m = Message.user("x" * 400)
    assert counter.estimate_message(m) == estimate_tokens([m])
    m.content = "x" * 4000  # messages are mutable: the fingerprint includes the content
    assert counter.estimate_message(m) == estimate_tokens([m])


def test_a_failing_tokenizer_falls_back_to_the_estimate() -> None:
    class Broken(WordCountingModel):
        async def count_tokens(self, messages: list[Message]) -> int | None:
            raise RuntimeError("tokenizer not loaded")

    counter = TokenCounter()
    assert asyncio.run(counter.count(HISTORY, Broken())) == counter.estimate(HISTORY)
