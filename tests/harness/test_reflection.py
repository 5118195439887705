"""Budget-aware reflection: a paragraph every K turns, always a result, a stub when it cannot."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace, Message
from harness.config import ReflectionConfig
from harness.model import ModelReply, ProviderError
from harness.reflection import ReflectionEngine
from harness.testing import FunctionModel, call

REFLECTION_ASK = "Pause and reflect on the session so far"


def worker(turns: int = 6, on_reflect=None) -> FunctionModel:
    state = {"n": 0}

    def fn(messages, tools):
        if REFLECTION_ASK in messages[-1].content:
            return on_reflect() if on_reflect else "Reading files one by one; next: summarise."
        state["n"] += 1
        return [call("bash", command=f"echo step {state['n']}")] if state["n"] <= turns else "done"

    return FunctionModel(fn)


def run(cfg: HarnessConfig, model: FunctionModel, tmp_path: Path):
    return asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("task"))


def reflections(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.origin == "reflection"]


def test_a_reflection_is_added_every_k_turns(tmp_path: Path) -> None:
    model = worker()
    res = run(HarnessConfig(reflection={"enabled": True, "every_turns": 2}), model, tmp_path)
    assert res.status == ExitStatus.COMPLETED
    added = reflections(res.messages)
    assert len(added) == 3  # after turns 2, 4 and 6
    assert added[0].role == "user" and added[0].content.startswith("[Reflection]\nReading files")
    # The model saw its reflection in the next turn's input.
    assert any(m.origin == "reflection" for m in model.inputs[-1])


def test_without_the_control_there_is_no_reflection(tmp_path: Path) -> None:
    model = worker()
    res = run(HarnessConfig(), model, tmp_path)
    assert reflections(res.messages) == []
    assert not any(REFLECTION_ASK in m.content for inp in model.inputs for m in inp)


def test_the_budget_of_reflections_is_respected(tmp_path: Path) -> None:
    cfg = HarnessConfig(reflection={"enabled": True, "every_turns": 1, "max_reflections": 2})
    res = run(cfg, worker(), tmp_path)
    assert len(reflections(res.messages)) == 2
    stubs = [e for e in res.events if e.type == "reflection.stub"]
    assert stubs and all(e.data["reason"] == "budget_exhausted" for e in stubs)


def test_a_failing_model_gives_a_stub_and_the_run_goes_on(tmp_path: Path) -> None:
    def boom():
        raise ProviderError("overloaded", "busy", status=529)

    cfg = HarnessConfig(reflection={"enabled": True, "every_turns": 2})
    res = run(cfg, worker(on_reflect=boom), tmp_path)
    assert res.status == ExitStatus.COMPLETED and reflections(res.messages) == []
    reasons = [e.data["reason"] for e in res.events if e.type == "reflection.stub"]
    assert reasons and all(r.startswith("model_error: ProviderError") for r in reasons)


class Slow(FunctionModel):
    async def generate(self, messages, tools) -> ModelReply:
        await asyncio.sleep(30)
        return await super().generate(messages, tools)


def test_engine_always_returns_a_result() -> None:
    history = [Message.system("s"), Message.user("task")]
    engine = ReflectionEngine(ReflectionConfig(enabled=True, timeout_s=0.1))
    slow = asyncio.run(asyncio.wait_for(engine.reflect(history, Slow(lambda m, t: "x")), 30))
    assert slow.stub and slow.reason == "deadline"
    assert asyncio.run(engine.reflect(history, None)).reason == "no_model"
    empty = asyncio.run(engine.reflect(history, FunctionModel(lambda m, t: "")))
    assert empty.stub and empty.reason == "empty"

    def crash(m, t):
        raise RuntimeError("bug in the backend")

    crashed = asyncio.run(engine.reflect(history, FunctionModel(crash)))
    assert crashed.stub and "RuntimeError" in crashed.reason
    ok = asyncio.run(engine.reflect(history, FunctionModel(lambda m, t: "fine")))
    assert not ok.stub and ok.text == "fine" and ok.usage.input_tokens > 0


def test_token_budget_stops_reflections_before_the_call() -> None:
    history = [Message.system("s"), Message.user("x" * 4_000)]  # ~1,000 tokens of input
    engine = ReflectionEngine(ReflectionConfig(enabled=True, token_budget=500))
    model = FunctionModel(lambda m, t: "fine")
    result = asyncio.run(engine.reflect(history, model))
    assert result.stub and result.reason == "budget_exhausted" and model.calls == 0
