"""A client inside a real container, through the model relay, gets the eval's model in each
provider API it may speak (whole and streamed), and a scripted provider fault as the provider
sends it: HTTP 429 with ``Retry-After`` and the error body of the API it speaks."""

from __future__ import annotations

import json
from typing import Any

import pytest
from inspect_ai import Task
from inspect_ai import eval as inspect_eval
from inspect_ai.agent import AgentState
from inspect_ai.dataset import Sample
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.util import SandboxEnvironmentSpec, sandbox

from evals.harnesses.model_relay import client_dialect, fault_answer, relay_bridge, route
from evals.scripted_provider import ScriptedConnectionError, ScriptedFault
from evals.wire_faults import cut_stream, wire_fault

# A raw urllib client (the sandbox image has no SDK): one request per line of REQUESTS; the
# scenario answers model calls 2 and 3 with a 429 (Retry-After 1 s).
CLIENT = r"""
import json, sys, urllib.error, urllib.request
for line in sys.stdin:
    method, path, body = json.loads(line)
    req = urllib.request.Request("http://127.0.0.1:13131" + path, None if body is None else
                                 json.dumps(body).encode(), {"Content-Type": "application/json"},
                                 method=method)
    try:
        r = urllib.request.urlopen(req, timeout=60)
        out = {"status": r.status, "headers": dict(r.headers), "body": r.read().decode()}
    except urllib.error.HTTPError as e:
        out = {"status": e.code, "headers": {k.lower(): v for k, v in e.headers.items()},
               "body": e.read().decode()}
    print(json.dumps({"path": path, **out}), flush=True)
"""
USER = [{"role": "user", "content": "Write the report."}]
REQUESTS = [
    ("POST", "/v1/chat/completions", {"model": "inspect", "messages": USER}),
    ("POST", "/v1/chat/completions", {"model": "inspect", "messages": USER}),  # call 2: 429
    ("POST", "/v1/messages", {"model": "inspect", "max_tokens": 100, "messages": USER}),  # 3: 429
    ("POST", "/v1/responses", {"model": "inspect", "input": "Write the report.", "stream": True}),
    ("POST", "/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse",
     {"contents": [{"role": "user", "parts": [{"text": "Write the report."}]}]}),
    ("POST", "/v1/messages", {"model": "inspect", "max_tokens": 100, "messages": USER,
                              "stream": True}),
    ("GET", "/v1/models", None),
]


def _run_client() -> tuple[list[dict[str, Any]], int]:
    from sandboxes.docker_provider import DockerSandboxConfig

    seen: list[dict[str, Any]] = []
    kept: list[int] = []

    @solver
    def client() -> Any:
        async def solve(state: TaskState, generate: Generate) -> TaskState:
            async with relay_bridge(AgentState(messages=state.messages)) as session:
                await sandbox().write_file("/tmp/client.py", CLIENT)
                lines = "".join(json.dumps(r) + "\n" for r in REQUESTS)
                out = await sandbox().exec(["python3", "/tmp/client.py"], input=lines, timeout=240)
                assert out.success, out.stderr
                seen.extend(json.loads(line) for line in out.stdout.splitlines() if line.strip())
            kept.append(len(session.bridge.state.messages))
            return state
        return solve

    task = Task(dataset=[Sample(input="probe")], solver=client(),
                sandbox=SandboxEnvironmentSpec("looplab-docker", DockerSandboxConfig(model_relay=True)))
    [log] = inspect_eval(task, model="scripted/provider-rate-limit-backoff", display="none",
                         log_dir="logs/tests-model-relay")
    assert log.status == "success", log.error
    return seen, kept[0]


@pytest.mark.docker
def test_a_client_in_the_container_gets_each_api_and_the_fault_as_sent() -> None:
    answers, messages = _run_client()
    chat, limited, anthropic_limited, responses, gemini, anthropic, models = answers
    assert chat["status"] == 200 and json.loads(chat["body"])["object"] == "chat.completion"
    # OpenAI's 429: its retry headers and error object
    assert limited["status"] == 429
    assert limited["headers"]["retry-after"] == "1" and limited["headers"]["retry-after-ms"] == "1000"
    error = json.loads(limited["body"])["error"]
    assert error["code"] == "rate_limit_exceeded" and "Please try again in 1s" in error["message"]
    # an Anthropic client gets Anthropic's 429
    assert anthropic_limited["status"] == 429 and anthropic_limited["headers"]["retry-after"] == "1"
    assert json.loads(anthropic_limited["body"])["error"]["type"] == "rate_limit_error"
    # streams, as each API sends them
    assert responses["headers"]["Content-Type"].startswith("text/event-stream")
    assert "event: response.completed" in responses["body"]
    assert json.loads(gemini["body"].removeprefix("data: "))["candidates"]
    assert anthropic["body"].startswith("event: message_start") and "event: message_stop" in anthropic["body"]
    assert models["status"] == 404
    assert messages >= 2  # the bridge's state followed the conversation


def test_requests_are_routed_by_api_and_faults_answered_in_the_clients_format() -> None:
    assert route("POST", "/v1/chat/completions") == "completions"
    assert route("POST", "/v1/responses") == "responses"
    assert route("POST", "/v1/messages?beta=true") == "anthropic"
    assert route("POST", "/v1beta/models/gemini-2.5-pro:generateContent") == "google"
    assert route("POST", "/models/x:streamGenerateContent?alt=sse") == "google"
    assert route("GET", "/v1/chat/completions") is None and route("POST", "/v1/embeddings") is None
    assert client_dialect("anthropic", "openai") == "anthropic"
    assert client_dialect("completions", "azure") == "azure"
    assert client_dialect("responses", "google") == "openai"


def _scripted(kind: str, dialect: str = "openai") -> ScriptedFault:
    record = {"kind": kind, "dialect": dialect, "model": "m", "retry_after": 2, "n_ctx": 1000,
              "prompt_tokens": 1200}
    return ScriptedFault(wire_fault(kind, dialect, model="m", retry_after=2), "m", record)


def test_a_provider_fault_is_answered_as_that_provider_sends_it_to_this_client() -> None:
    wrapped = RuntimeError("inspect's wrapping")
    wrapped.__cause__ = _scripted("rate_limit", "azure")
    answer = fault_answer(wrapped, "completions", stream=False)  # found through the wrapping
    headers = dict(answer["headers"])
    assert answer["status"] == 429 and headers["retry-after"] == "2" and "x-ms-retry-after-ms" in headers
    # the same fault to an Anthropic client: Anthropic's status, headers and body
    answer = fault_answer(_scripted("overloaded", "azure"), "anthropic", stream=True)
    assert answer["status"] == 529 and '"overloaded_error"' in answer["body"]
    answer = fault_answer(_scripted("context_overflow"), "google", stream=False)
    assert answer["status"] == 400 and "1200" in answer["body"] and "INVALID_ARGUMENT" in answer["body"]


def test_transport_faults_are_played_as_the_link_fails() -> None:
    assert fault_answer(ScriptedConnectionError("connection_reset"), "completions", False) == {
        "then": "reset"}
    assert fault_answer(ScriptedConnectionError("stall"), "responses", True) == {"then": "close"}
    cut = fault_answer(ScriptedConnectionError("stream_cut"), "completions", True)
    assert cut["then"] == "reset"
    import base64

    assert base64.b64decode(cut["raw_b64"]) == cut_stream()


def test_any_other_failure_is_its_status_and_message_in_the_apis_envelope() -> None:
    class Limited(Exception):
        status_code = 400

    limit = Limited("looplab: model call limit 80 reached")
    openai_answer = fault_answer(limit, "responses", stream=True)
    assert openai_answer["status"] == 400
    assert json.loads(openai_answer["body"])["error"]["message"] == str(limit)
    # on an Anthropic stream, as inspect's bridge answers: a 200 whose one event is the error
    streamed = fault_answer(limit, "anthropic", stream=True)
    assert streamed["status"] == 200 and streamed["chunks"][0].startswith("event: error")
    assert json.loads(fault_answer(limit, "google", False)["body"])["error"]["code"] == 400
