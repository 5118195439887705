"""Bootstrap once per session: BOOTSTRAP.md reaches the model on the first call only."""

from __future__ import annotations

import asyncio
import json

import pytest

from harness import Agent, HarnessConfig
from harness.context_files import BOOTSTRAP_COMPLETED_MARKER
from harness.sessions.session import Session
from harness.testing import FunctionModel, call
from harness.workspace import LocalWorkspace

TOKEN = "BOOTSTRAP-TOKEN-91"


def _config(once: bool, **extra: object) -> HarnessConfig:
    return HarnessConfig.model_validate({
        "prompt": {"enabled": True, **extra.pop("prompt", {})},  # type: ignore[dict-item]
        "bootstrap_once": {"enabled": once}, **extra,
    })


def _three_turns(messages, tools):
    done = sum(1 for m in messages if m.role == "tool")
    return [call("bash", command=f"echo step{done}")] if done < 2 else "finished"


def _calls_with_token(model: FunctionModel) -> list[bool]:
    return [any(TOKEN in m.content for m in inputs) for inputs in model.inputs]


@pytest.fixture
def ws(tmp_path):
    (tmp_path / "BOOTSTRAP.md").write_text(f"# Setup notes {TOKEN}\nPorts start at 8100.\n")
    return LocalWorkspace(tmp_path)


@pytest.mark.parametrize("refresh", [False, True])
def test_bootstrap_reaches_the_model_once(ws, refresh):
    model = FunctionModel(_three_turns)
    config = _config(True, prompt={"refresh_each_turn": refresh})
    result = asyncio.run(Agent(config, model, ws).run("do the three steps"))
    assert result.status.value == "completed"
    assert _calls_with_token(model) == [True, False, False]
    assert [e.type for e in result.events].count("session.bootstrap_delivered") == 1


def test_without_it_every_call_carries_the_bootstrap(ws):
    model = FunctionModel(_three_turns)
    asyncio.run(Agent(_config(False), model, ws).run("do the three steps"))
    assert _calls_with_token(model) == [True, True, True]


def test_the_transcript_records_the_completion_marker(ws, tmp_path):
    config = _config(True, transcript={"enabled": True})
    asyncio.run(Agent(config, FunctionModel(_three_turns), ws).run("do the three steps"))
    [path] = (tmp_path / ".looplab" / "sessions").glob("*.jsonl")
    records = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    assert any(r.get("marker") == BOOTSTRAP_COMPLETED_MARKER for r in records)


def test_later_messages_of_a_session_do_not_get_it_again(ws):
    model = FunctionModel(_three_turns)
    session = Session("s1", _config(True), model, ws)

    async def two_messages() -> None:
        await session.send("first task")
        await session.send("second task")

    asyncio.run(two_messages())
    assert len(model.inputs) >= 4
    assert _calls_with_token(model)[0] is True
    assert not any(_calls_with_token(model)[1:])
