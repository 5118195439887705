"""The model of ``looplab check-harness``, inside the harness's container: every model request
gets at once a final answer with the text ``done`` and no tool call, in the API and the form
(a stream or one body) the request asked for (standard library; run by the image's python3
beside ``model_relay_server.py``, whose HTTP layer it shares).

    python3 check_server.py TIMES_FILE PORT

Each model request's arrival (``time.time()``, the path) is appended to TIMES_FILE, one per line.
``GET .../models`` gets a list naming the model ``inspect``; any other request a 404.
"""

import asyncio
import json
import sys
import time

import model_relay_server as relay  # beside this file in the container

TEXT = "done"
USAGE = {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}
JSON = [["Content-Type", "application/json"]]
SSE = [["Content-Type", "text/event-stream"]]


def sse(events, named=True):
    """Server-sent events: (name, data) pairs; ``named`` adds the ``event:`` line."""
    out = []
    for name, data in events:
        text = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if named and name else "") + f"data: {text}\n\n")
    return out


def chat(stream):
    if not stream:
        return {"id": "chatcmpl-check", "object": "chat.completion", "created": 0,
                "model": "inspect", "usage": USAGE, "choices": [{
                    "index": 0, "finish_reason": "stop",
                    "message": {"role": "assistant", "content": TEXT}}]}
    base = {"id": "chatcmpl-check", "object": "chat.completion.chunk", "created": 0,
            "model": "inspect"}
    return sse([(None, {**base, "choices": [{"index": 0, "finish_reason": None, "delta": {
                    "role": "assistant", "content": TEXT}}]}),
                (None, {**base, "usage": USAGE, "choices": [{
                    "index": 0, "finish_reason": "stop", "delta": {}}]}),
                (None, "[DONE]")], named=False)


def responses(stream):
    item = {"type": "message", "id": "msg_check", "status": "completed", "role": "assistant",
            "content": [{"type": "output_text", "text": TEXT, "annotations": []}]}
    done = {"id": "resp_check", "object": "response", "created_at": 0, "status": "completed",
            "model": "inspect", "output": [item], "tools": [], "tool_choice": "auto",
            "parallel_tool_calls": True, "usage": {
                "input_tokens": 1, "output_tokens": 1, "total_tokens": 2,
                "input_tokens_details": {"cached_tokens": 0},
                "output_tokens_details": {"reasoning_tokens": 0}}}
    if not stream:
        return done
    started = {**done, "status": "in_progress", "output": []}
    return sse([("response.created", {"type": "response.created", "response": started}),
                ("response.output_item.added", {"type": "response.output_item.added",
                                                "output_index": 0, "item": item}),
                ("response.output_item.done", {"type": "response.output_item.done",
                                               "output_index": 0, "item": item}),
                ("response.completed", {"type": "response.completed", "response": done})])


def messages(stream):
    message = {"id": "msg_check", "type": "message", "role": "assistant", "model": "inspect",
               "content": [{"type": "text", "text": TEXT}], "stop_reason": "end_turn",
               "stop_sequence": None, "usage": {"input_tokens": 1, "output_tokens": 1}}
    if not stream:
        return message
    start = {**message, "content": [], "stop_reason": None}
    return sse([("message_start", {"type": "message_start", "message": start}),
                ("content_block_start", {"type": "content_block_start", "index": 0,
                                         "content_block": {"type": "text", "text": ""}}),
                ("content_block_delta", {"type": "content_block_delta", "index": 0,
                                         "delta": {"type": "text_delta", "text": TEXT}}),
                ("content_block_stop", {"type": "content_block_stop", "index": 0}),
                ("message_delta", {"type": "message_delta", "usage": {"output_tokens": 1},
                                   "delta": {"stop_reason": "end_turn", "stop_sequence": None}}),
                ("message_stop", {"type": "message_stop"})])


def gemini(stream):
    answer = {"candidates": [{"index": 0, "finishReason": "STOP", "content": {
                  "role": "model", "parts": [{"text": TEXT}]}}],
              "usageMetadata": {"promptTokenCount": 1, "candidatesTokenCount": 1,
                                "totalTokenCount": 2}, "modelVersion": "inspect"}
    return sse([(None, answer)], named=False) if stream else answer


def answer_for(method, path, body):
    """→ (the answer for the relay's HTTP layer, whether it was a model request)."""
    route = path.split("?", 1)[0]
    if method == "GET" and route.endswith("/models"):
        return {"status": 200, "headers": JSON, "body": json.dumps(
            {"object": "list", "data": [{"id": "inspect", "object": "model"}]})}, False
    try:
        request = json.loads(body or b"{}")
    except ValueError:
        request = {}
    stream = bool(isinstance(request, dict) and request.get("stream"))
    if route.endswith("/chat/completions"):
        made = chat(stream)
    elif route.endswith("/responses"):
        made = responses(stream)
    elif route.endswith("/messages"):
        made = messages(stream)
    elif ":streamGenerateContent" in route or ":generateContent" in route:
        stream = ":stream" in route
        made = gemini(stream)
    else:
        return {"status": 404, "headers": JSON, "body": json.dumps(
            {"error": {"message": f"looplab check-harness: no model at {route}"}})}, False
    if stream:
        return {"status": 200, "headers": SSE, "chunks": made}, True
    return {"status": 200, "headers": JSON, "body": json.dumps(made)}, True


class Check(relay.Relay):
    def __init__(self, loop, times):
        super().__init__(loop)
        self.times = times

    async def forward(self, method, path, headers, body):
        answer, model_call = answer_for(method, path, body)
        if model_call:
            self.times.write(f"{time.time()} {path}\n")
            self.times.flush()
        return answer


async def main(path, port):
    with open(path, "a", encoding="utf-8") as times:
        check = Check(asyncio.get_running_loop(), times)
        server = await asyncio.start_server(check.serve, "127.0.0.1", port, limit=relay.MAX_HEAD)
        print("ready", flush=True)
        async with server:
            await server.serve_forever()


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], int(sys.argv[2])))
