"""What the actor records as answered: a call is keyed as the actor asked for it, whatever the
harness calls it in its conversation (a relabelled tool, a text action read back), and a call
the harness moved past with a message of its own counts as dealt with (evals.scripted_provider;
the sprung conditions in evals.judges.sprung read these keys)."""

from __future__ import annotations

import pytest
from inspect_ai.util import Store, store_as
from inspect_ai.util._store import init_subtask_store

from evals.scripted_provider import answered_calls, carry_unshown, remember_requests
from evals.state import ActorState
from harness.messages import Message, ToolCall
from scenarios.actor import ActorView
from scenarios.actor.actions import RawCall, Run
from scenarios.actor.dialects import Style, normalise
from scenarios.actor.dialects import reply as dialect_reply


@pytest.fixture(autouse=True)
def _fresh_store() -> None:
    init_subtask_store(Store())  # the actor's state of one sample


def _view(messages: list[Message]) -> ActorView:
    return ActorView(messages, [], prompt="task")


def test_a_relabelled_call_is_keyed_as_the_actor_asked_for_it() -> None:
    # The actor asks for run_tests; the harness (opencode) turns it into its own `invalid` tool
    # call with the same id and answers that.
    asked = Message(role="assistant", tool_calls=[ToolCall(id="actor_1", name="run_tests",
                                                          arguments={"path": "."})])
    assert remember_requests("primary", asked, RawCall("run_tests", {"path": "."}), None) == ["run_tests ."]
    shown = [Message(role="user", content="task"),
             Message(role="assistant", tool_calls=[ToolCall(
                 id="actor_1", name="invalid",
                 arguments={"tool": "run_tests", "error": "Model tried to call unavailable tool"})]),
             Message(role="tool", tool_call_id="actor_1", content="unavailable tool 'run_tests'")]
    counts = answered_calls(_view(shown), store_as(ActorState).aliases)
    assert counts == {"run_tests .": 1}
    # Without what the actor remembered, the harness's label is all there is.
    assert list(answered_calls(_view(shown))) == [
        "invalid run_tests Model tried to call unavailable tool"]


def test_a_text_action_is_keyed_as_the_command_the_actor_asked_to_run() -> None:
    style = Style(dialect="fenced-shell")
    action = RawCall("run_tests", {"path": "."})
    reply = dialect_reply(action, [], style)
    asked = remember_requests("primary", reply, action, style)
    assert asked == ["run_tests --path=."]
    transcript = normalise([Message(role="user", content="task"), reply,
                            Message(role="user", content="run_tests: not found")], style)
    assert answered_calls(_view(transcript), store_as(ActorState).aliases) == {"run_tests --path=.": 1}


def test_a_refusal_sent_as_a_message_answers_the_call() -> None:
    # mini-swe-agent answers an unknown tool with a new user message, not a tool result.
    call = ToolCall(id="actor_7", name="run_tests", arguments={"path": "."})
    refused = [Message(role="user", content="task"),
               Message(role="assistant", tool_calls=[call]),
               Message(role="user", content="Tool call error: unknown tool 'run_tests'")]
    assert answered_calls(_view(refused)) == {"run_tests .": 1}
    # A call still waiting for its result (nothing after it) is not answered.
    pending = refused[:2] + [Message(role="tool", tool_call_id="other", content="x")]
    assert answered_calls(_view(pending)) == {}


def test_a_shell_call_with_its_result_is_answered_once() -> None:
    call = ToolCall(id="actor_9", name="bash", arguments={"command": "./build.sh"})
    ran = [Message(role="user", content="task"), Message(role="assistant", tool_calls=[call]),
           Message(role="tool", tool_call_id="actor_9", content="5 MB of output")]
    remember_requests("primary", Message(role="assistant", tool_calls=[call]), Run("./build.sh"), None)
    assert answered_calls(_view(ran), store_as(ActorState).aliases) == {"bash ./build.sh": 1}


def test_a_call_dropped_and_answered_with_a_message_counts_while_the_conversation_goes_on() -> None:
    # mini-swe-agent drops a call to an unknown tool from its history and answers with a user
    # message: the next input repeats the previous one whole and adds that message.
    task = [Message(role="system", content="s"), Message(role="user", content="task")]
    error = Message(role="user", content="Tool call error: unknown tool 'run_tests'")
    state = store_as(ActorState)
    state.aliases = {f"id:actor_{n}": "run_tests ." for n in (1, 2, 3, 4)}
    state.pending = {"primary": ["actor_1"]}
    first = carry_unshown("primary", _view([*task, error]), True, {})
    assert first == {"run_tests .": 1}
    state.pending = {"primary": ["actor_2"]}
    assert carry_unshown("primary", _view([*task, error, error]), True, {}) == {"run_tests .": 2}
    # The task sent again in a fresh conversation (not a continuation) answers nothing.
    state.pending = {"primary": ["actor_3"]}
    assert carry_unshown("primary", _view(task), False, {}) == {}
    # A call the input shows (with its result) is counted by answered_calls, not carried.
    shown = [*task, Message(role="assistant", tool_calls=[ToolCall(id="actor_4", name="run_tests",
                                                                   arguments={"path": "."})]),
             Message(role="tool", tool_call_id="actor_4", content="no such tool")]
    state.pending = {"primary": ["actor_4"]}
    assert carry_unshown("primary", _view(shown), True, {"run_tests .": 1}) == {"run_tests .": 1}
