"""The event streams the model relay sends, read back by each provider's own SDK (openai,
anthropic, google-genai): a client that asked for a stream rebuilds the same answer it would
have got whole. The relay's own HTTP layer (``sandboxes/model_relay_server.py``) serves them on
this machine, as in a container."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from typing import Any

import pytest

from evals.harnesses.relay_streams import stream_chunks
from sandboxes import model_relay_server as relay_server

CALL_ARGS = json.dumps({"command": "ls -la data && cat notes/README.md | head -n 40"})
TEXT = "I will look at the data folder first, then read the notes before changing anything."

CHAT = {"id": "chatcmpl-1", "object": "chat.completion", "created": 1, "model": "inspect",
        "choices": [{"index": 0, "finish_reason": "tool_calls", "message": {
            "role": "assistant", "content": TEXT, "tool_calls": [
                {"id": "call_1", "type": "function",
                 "function": {"name": "bash", "arguments": CALL_ARGS}}]}}],
        "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}
RESPONSE = {"id": "resp_1", "object": "response", "created_at": 1, "status": "completed",
            "model": "inspect", "parallel_tool_calls": False, "tool_choice": "auto", "tools": [],
            "output": [
                {"type": "message", "id": "msg_1", "role": "assistant", "status": "completed",
                 "content": [{"type": "output_text", "text": TEXT, "annotations": []}]},
                {"type": "function_call", "id": "fc_1", "call_id": "call_1", "name": "bash",
                 "arguments": CALL_ARGS, "status": "completed"}],
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                      "input_tokens_details": {"cached_tokens": 0},
                      "output_tokens_details": {"reasoning_tokens": 0}}}
MESSAGE = {"id": "msg_1", "type": "message", "role": "assistant", "model": "inspect",
           "stop_reason": "tool_use", "stop_sequence": None,
           "content": [{"type": "text", "text": TEXT},
                       {"type": "tool_use", "id": "toolu_1", "name": "Bash",
                        "input": json.loads(CALL_ARGS)}],
           "usage": {"input_tokens": 10, "output_tokens": 5}}
GEMINI = {"candidates": [{"index": 0, "finishReason": "STOP", "content": {"role": "model", "parts": [
    {"text": TEXT}, {"functionCall": {"name": "run_shell_command", "args": json.loads(CALL_ARGS)}}]}}],
    "usageMetadata": {"promptTokenCount": 10, "candidatesTokenCount": 5, "totalTokenCount": 15}}


class _Answers(relay_server.Relay):
    """The relay's HTTP layer with the eval's side replaced by fixed answers per API."""

    async def forward(self, method: str, path: str, headers: list[list[str]], body: bytes) -> dict[str, Any]:
        request = json.loads(body or b"{}")
        api, whole = (("completions", CHAT) if path.endswith("/chat/completions") else
                      ("responses", RESPONSE) if path.endswith("/responses") else
                      ("anthropic", MESSAGE) if path.endswith("/messages") else ("google", GEMINI))
        if request.get("stream") or "streamGenerateContent" in path:
            return {"status": 200, "headers": [["Content-Type", "text/event-stream"]],
                    "chunks": stream_chunks(api, whole, request)}
        return {"status": 200, "headers": [["Content-Type", "application/json"]],
                "body": json.dumps(whole)}


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    loop = asyncio.new_event_loop()
    port: list[int] = []
    ready = threading.Event()

    async def start() -> None:
        server = await asyncio.start_server(_Answers(loop).serve, "127.0.0.1", 0)
        port.append(server.sockets[0].getsockname()[1])
        ready.set()

    thread = threading.Thread(target=lambda: (loop.run_until_complete(start()), loop.run_forever()),
                              daemon=True)
    thread.start()
    assert ready.wait(10)
    yield f"http://127.0.0.1:{port[0]}"
    loop.call_soon_threadsafe(loop.stop)


def test_chat_completions_stream_rebuilds_the_answer(base_url: str) -> None:
    import openai

    client = openai.OpenAI(base_url=base_url + "/v1", api_key="x", max_retries=0)
    whole = client.chat.completions.create(model="inspect", messages=[{"role": "user", "content": "go"}])
    with client.chat.completions.stream(model="inspect", messages=[{"role": "user", "content": "go"}],
                                        stream_options={"include_usage": True}) as stream:
        streamed = stream.get_final_completion()
    for answer in (whole, streamed):
        message = answer.choices[0].message
        assert message.content == TEXT and answer.choices[0].finish_reason == "tool_calls"
        [call] = message.tool_calls or []
        assert (call.id, call.function.name, call.function.arguments) == ("call_1", "bash", CALL_ARGS)
    assert streamed.usage is not None and streamed.usage.total_tokens == 15


def test_responses_stream_rebuilds_the_answer(base_url: str) -> None:
    import openai

    client = openai.OpenAI(base_url=base_url + "/v1", api_key="x", max_retries=0)
    with client.responses.stream(model="inspect", input="go") as stream:
        events = [event.type for event in stream]
        streamed = stream.get_final_response()
    assert events[0] == "response.created" and events[-1] == "response.completed"
    assert "response.function_call_arguments.delta" in events
    assert streamed.output_text == TEXT
    [call] = [item for item in streamed.output if item.type == "function_call"]
    assert (call.call_id, call.name, call.arguments) == ("call_1", "bash", CALL_ARGS)


def test_anthropic_stream_rebuilds_the_answer(base_url: str) -> None:
    import anthropic

    client = anthropic.Anthropic(base_url=base_url, api_key="x", max_retries=0)
    with client.messages.stream(model="inspect", max_tokens=100,
                                messages=[{"role": "user", "content": "go"}]) as stream:
        streamed = stream.get_final_message()
    assert streamed.stop_reason == "tool_use"
    text, call = streamed.content
    assert text.type == "text" and text.text == TEXT
    assert call.type == "tool_use" and call.name == "Bash" and call.input == json.loads(CALL_ARGS)


def test_gemini_stream_rebuilds_the_answer(base_url: str) -> None:
    from google import genai
    from google.genai import types

    client = genai.Client(api_key="x", http_options=types.HttpOptions(base_url=base_url))
    chunks = list(client.models.generate_content_stream(model="gemini-2.5-pro", contents="go"))
    parts = [p for c in chunks for p in (c.candidates[0].content.parts or [])]
    assert parts[0].text == TEXT
    assert parts[1].function_call.name == "run_shell_command"
    assert parts[1].function_call.args == json.loads(CALL_ARGS)


def test_a_kept_alive_connection_serves_one_request_after_another(base_url: str) -> None:
    import http.client

    host, port = base_url.removeprefix("http://").split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=10)
    for _ in range(3):
        conn.request("POST", "/v1/chat/completions", json.dumps({"model": "inspect"}),
                     {"Content-Type": "application/json"})
        answer = conn.getresponse()
        assert answer.status == 200 and json.loads(answer.read())["id"] == "chatcmpl-1"
    conn.close()
