"""Peer agents: other harnesses scored by the same scenarios, actor and judges.

``inspect-react`` is inspect's ``react()`` agent with its ``bash`` and ``text_editor`` tools, as
a user would configure it out of the box. It has no loop detection, failover or truncation, so
items it cannot satisfy are scored as failures (never skipped): that is the comparison users want.
"""

from __future__ import annotations

from inspect_ai.agent import Agent, react
from inspect_ai.agent import run as run_agent
from inspect_ai.solver import Generate, Solver, TaskState, solver
from inspect_ai.tool import bash, text_editor
from inspect_ai.util import message_limit, store_as

from evals.adapter import classify_error
from evals.state import RunRecord

PEER_MESSAGE_LIMIT = 200
"""Peers get a message cap comparable to our presets' turn caps (two messages per turn)."""


def _react() -> Agent:
    return react(
        name="inspect_react",
        description="inspect's ReAct agent",
        tools=[bash(timeout=60), text_editor()],
        submit=False,  # stop when the model replies without a tool call, like our harness
    )


@solver
def peer_agent(name: str) -> Solver:
    if name != "inspect-react":
        raise ValueError(f"unknown peer {name!r}; valid: inspect-react")

    async def solve(state: TaskState, generate: Generate) -> TaskState:
        status, message = "completed", ""
        try:
            agent_state, limit_error = await run_agent(
                _react(), state.messages, limits=[message_limit(PEER_MESSAGE_LIMIT)]
            )
            state.messages = agent_state.messages
            if agent_state.output:
                state.output = agent_state.output
            if limit_error is not None:
                status, message = "turn_limit", str(limit_error)
            elif agent_state.output and agent_state.output.stop_reason == "model_length":
                status, message = "context_overflow", agent_state.output.completion
        except Exception as e:  # provider faults end the peer's run: record it, let judges score
            err = classify_error(e, "peer")
            status = "context_overflow" if err.kind == "context_overflow" else "provider_error"
            message = f"{err.kind}: {err.message[:300]}"
        record = store_as(RunRecord)
        record.exit_status = status
        calls = sum(len(getattr(m, "tool_calls", None) or []) for m in state.messages)
        record.run = {"tool_calls": calls, "message": message[:500],
                      "turns": sum(1 for m in state.messages if m.role == "assistant")}
        return state

    return solve
