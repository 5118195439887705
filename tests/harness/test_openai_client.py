"""The stdlib OpenAI-compatible client, against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import email.utils
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai_stub_server import StubServer, completion, error, ok

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.messages import Message, ToolCall
from harness.model import ProviderError, ToolSpec
from harness.openai_client import INVALID_JSON_KEY, OpenAICompatModel, api_urls

TOOLS = [ToolSpec(name="bash", description="Run a command.",
                  parameters={"type": "object", "properties": {"command": {"type": "string"}},
                              "required": ["command"]})]


@pytest.fixture
def server() -> Iterator[StubServer]:
    with StubServer() as s:
        yield s


def generate(model: OpenAICompatModel, messages: list[Message] | None = None):
    return asyncio.run(model.generate(messages or [Message.user("hi")], TOOLS))


def fault(model: OpenAICompatModel) -> ProviderError:
    with pytest.raises(ProviderError) as e:
        generate(model)
    return e.value


def test_tool_calls_usage_and_request_shape(server: StubServer) -> None:
    server.script = [ok(completion(None, [("bash", '{"command": "ls -la"}')], prompt_tokens=321,
                                   completion_tokens=12, cached=256, reasoning="list first"))]
    model = OpenAICompatModel(server.url + "/v1", "stub-model", "sk-test", profile_id="K")
    reply = generate(model)
    (tc,) = reply.message.tool_calls
    assert tc.name == "bash" and tc.arguments == {"command": "ls -la"}
    assert tc.id == "chatcmpl-tool-0" and reply.message.content == ""
    assert reply.message.thoughts == "list first" and reply.stop_reason == "tool_calls"
    assert (reply.usage.input_tokens, reply.usage.output_tokens, reply.usage.cached_tokens) == \
        (321, 12, 256)
    ((payload, headers),) = server.chat_requests()
    assert headers["authorization"] == "Bearer sk-test"
    assert payload["model"] == "stub-model" and payload["tool_choice"] == "auto"
    assert payload["tools"][0] == {"type": "function", "function": {
        "name": "bash", "description": "Run a command.", "parameters": TOOLS[0].parameters}}


def test_history_is_sent_in_openai_format(server: StubServer) -> None:
    model = OpenAICompatModel(server.url, "m")  # base URL without /v1 works too
    tc = ToolCall(id="c1", name="bash", arguments={"command": "ls"})
    history = [Message.system("sys"), Message.user("task"),
               Message(role="assistant", tool_calls=[tc], thoughts="hidden"),
               Message.tool(tc, "a.txt\n"), ]
    generate(model, history)
    ((payload, headers),) = server.chat_requests()
    assert "authorization" not in headers  # no key: none sent (vLLM without --api-key)
    assert payload["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "task"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "bash", "arguments": '{"command": "ls"}'}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "a.txt\n"},
    ]


def test_bad_json_arguments_become_a_model_visible_error(server: StubServer,
                                                         tmp_path: Path) -> None:
    server.script = [ok(completion(None, [("bash", '{"command": "ls" ')]))]
    model = OpenAICompatModel(server.url, "m")
    res = asyncio.run(Agent(HarnessConfig(), model, LocalWorkspace(tmp_path)).run("t"))
    assert res.status == ExitStatus.COMPLETED  # no crash: the run goes on
    (call,) = res.messages[2].tool_calls
    assert INVALID_JSON_KEY in call.arguments and "not valid JSON" in call.arguments["_error"]
    tool_msg = res.messages[3]
    assert tool_msg.role == "tool" and tool_msg.is_error
    assert "Invalid arguments for bash" in tool_msg.content
    # the next request carries the answered call back to the server as valid JSON
    payload, _ = server.chat_requests()[1]
    assert payload["messages"][3]["role"] == "tool"


@pytest.mark.parametrize("status, message, kind", [
    (429, "Rate limit reached for requests", "rate_limit"),
    (429, "You exceeded your current quota (insufficient_quota)", "quota_exceeded"),
    (401, "Incorrect API key provided", "auth_error"),
    (403, "Forbidden", "auth_error"),
    (400, "This model's maximum context length is 4096 tokens. However, you requested 5000",
     "context_overflow"),
    (400, "Invalid value for 'tool_choice'", "bad_request"),
    (404, "The model `x` does not exist.", "bad_request"),
    (503, "Service Unavailable", "overloaded"),
    (529, "Overloaded", "overloaded"),
    (500, "Internal Server Error", "other"),
])
def test_http_errors_map_to_fault_kinds(server: StubServer, status: int, message: str,
                                        kind: str) -> None:
    server.script = [error(status, message)]
    e = fault(OpenAICompatModel(server.url, "m"))
    assert (e.kind, e.status) == (kind, status) and message in e.message


def test_retry_after_seconds_and_http_date(server: StubServer) -> None:
    when = email.utils.formatdate(time.time() + 120, usegmt=True)
    server.script = [error(429, "slow down", {"Retry-After": "7"}),
                     error(429, "slow down", {"Retry-After": when}),
                     error(429, "slow down", {"retry-after-ms": "1500"})]
    model = OpenAICompatModel(server.url, "m")
    assert fault(model).retry_after == 7
    assert 100 < (fault(model).retry_after or 0) <= 120
    assert fault(model).retry_after == 1.5


def test_connection_refused_and_timeouts_are_timeout_faults(server: StubServer) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again at once: nothing listens there
    assert fault(OpenAICompatModel(f"http://127.0.0.1:{port}", "m")).kind == "timeout"
    server.delay_s = 2.0
    assert fault(OpenAICompatModel(server.url, "m", timeout_s=0.2)).kind == "timeout"


def test_count_tokens_uses_tokenize_when_offered(server: StubServer) -> None:
    server.tokenize = True
    model = OpenAICompatModel(server.url + "/v1", "m")
    n = asyncio.run(model.count_tokens([Message.user("x" * 400)]))
    assert n == 104
    assert server.requests[-1][0] == "/tokenize"


def test_count_tokens_tries_once_and_remembers(server: StubServer) -> None:
    model = OpenAICompatModel(server.url, "m")
    assert asyncio.run(model.count_tokens([Message.user("hi")])) is None
    assert asyncio.run(model.count_tokens([Message.user("hi")])) is None
    assert [p for p, _, _ in server.requests] == ["/tokenize"]


def test_api_urls() -> None:
    assert api_urls("http://h:8000") == ("http://h:8000/v1", "http://h:8000")
    assert api_urls("http://h:8000/v1/") == ("http://h:8000/v1", "http://h:8000")
    assert api_urls("https://h/v1/chat/completions") == ("https://h/v1", "https://h")
    with pytest.raises(ValueError, match="base_url"):
        api_urls("localhost:8000")


def test_profiles_rotate_over_real_http(server: StubServer, tmp_path: Path) -> None:
    def by_key(payload, headers):
        if headers.get("authorization") == "Bearer key-a":
            return 429, {"error": {"message": "Rate limit reached"}}, {"Retry-After": "30"}
        return 200, completion("done with key b"), {}

    server.default = by_key
    models = [OpenAICompatModel(server.url, "m", "key-a", profile_id="A"),
              OpenAICompatModel(server.url, "m", "key-b", profile_id="B")]
    cfg = HarnessConfig(failover={"enabled": True}, observability={"enabled": True})
    res = asyncio.run(Agent(cfg, models, LocalWorkspace(tmp_path)).run("t"))
    assert res.status == ExitStatus.COMPLETED and res.message == "done with key b"
    cooldown = next(e for e in res.events if e.type == "auth.cooldown")
    assert cooldown.data["profile"] == "A" and cooldown.data["seconds"] == 30
    record = next(e for e in res.events if e.type == "run.record")
    assert record.data["auth_profile_id"] == "B" and record.data["provider"] == "openai-compat"
