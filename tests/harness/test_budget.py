"""Token budget kill switch, cost line, and the per-message tool-call cap."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace, ModelReply, Usage
from harness.controls.budget import formatted_cost, over_budget
from harness.messages import Message
from harness.state import RunState
from harness.testing import FunctionModel, call


def big_spender(input_tokens: int, output_tokens: int) -> FunctionModel:
    """Each turn: one cheap tool call, reporting the given usage."""

    def fn(messages, tools):
        msg = Message(role="assistant", tool_calls=[call("bash", command="echo step")])
        return ModelReply(message=msg, usage=Usage(input_tokens=input_tokens,
                                                   output_tokens=output_tokens))

    return FunctionModel(fn)


def run(cfg: HarnessConfig, model: FunctionModel, tmp_path: Path):
    return asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("task"))


def test_input_budget_kill_switch_ends_the_run(tmp_path: Path) -> None:
    cfg = HarnessConfig(limits={"max_turns": 50},
                        budget={"enabled": True, "max_input_tokens": 25_000})
    res = run(cfg, big_spender(10_000, 10), tmp_path)
    assert res.status == ExitStatus.TOKEN_BUDGET
    assert res.turns == 3  # 30k used > 25k: stopped before the fourth model call
    assert "input tokens 30,000 > budget 25,000" in res.message
    # every tool call of the last turn was answered before the run ended
    assert sum(m.role == "tool" for m in res.messages) == 3


def test_output_budget_kill_switch(tmp_path: Path) -> None:
    cfg = HarnessConfig(budget={"enabled": True, "max_output_tokens": 1_000})
    res = run(cfg, big_spender(10, 600), tmp_path)
    assert res.status == ExitStatus.TOKEN_BUDGET and res.turns == 2


def test_without_the_budget_the_run_spends_until_the_turn_cap(tmp_path: Path) -> None:
    cfg = HarnessConfig(limits={"max_turns": 8})
    res = run(cfg, big_spender(10_000, 10), tmp_path)
    assert res.status == ExitStatus.TURN_LIMIT
    assert res.usage.input_tokens == 80_000


def test_cost_line_is_emitted_with_the_seed_format(tmp_path: Path) -> None:
    cfg = HarnessConfig(limits={"max_turns": 2},
                        budget={"enabled": True, "price_per_mtok_in": 3.0,
                                "price_per_mtok_out": 15.0})
    res = run(cfg, big_spender(1_000_000, 100_000), tmp_path)
    cost = [e for e in res.events if e.type == "budget.cost"]
    assert len(cost) == 1
    assert cost[0].data["line"] == "$9.0000 (2,000,000 input / 200,000 output tokens)"
    assert cost[0].data["cost_usd"] == 9.0


def test_formatted_cost_and_over_budget(tmp_path: Path) -> None:
    u = Usage(input_tokens=1_234, output_tokens=567)
    assert formatted_cost(u, 1.0, 2.0) == "$0.0024 (1,234 input / 567 output tokens)"

    def over(**budget: object) -> tuple[str, str] | None:
        state = RunState(HarnessConfig(budget={"enabled": True, **budget}), LocalWorkspace(tmp_path), [])
        state.usage = u
        return over_budget(state)

    assert over(max_input_tokens=1_234) is None  # over means above
    assert over(max_output_tokens=500) == ("output_tokens", "output tokens 567 > budget 500")
    assert over(max_input_tokens=None, max_output_tokens=None) is None
    assert over(enabled=False, max_input_tokens=1) is None  # the budget switched off caps nothing


def test_per_message_tool_call_cap(tmp_path: Path) -> None:
    model = FunctionModel(lambda m, t: [call("bash", command="echo a"),
                                        call("bash", command="echo b")])
    res = run(HarnessConfig(limits={"max_turns": 50, "max_tool_calls": 6}), model, tmp_path)
    assert res.status == ExitStatus.TOOL_CALL_LIMIT and res.tool_calls == 6
    res = run(HarnessConfig(limits={"max_turns": 5}), model, tmp_path)
    assert res.status == ExitStatus.TURN_LIMIT and res.tool_calls == 10
