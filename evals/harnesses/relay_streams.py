"""A whole model answer as the event stream its provider API sends when a client asks for one
(``"stream": true``, or Gemini's ``:streamGenerateContent``).

The eval's model answers at once, so a stream carries the finished answer: the events each API
defines, in order, with text and arguments split into a few deltas as a provider would (clients
that only handle the first delta are caught out as they would be against the real service).
The model relay (``sandboxes/model_relay_server.py``) writes these chunks as they are.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

_TEXT_PIECE = 48
_ARGS_PIECE = 32


def _pieces(text: str, size: int) -> Iterator[str]:
    for i in range(0, len(text), size):
        yield text[i:i + size]


def _data(payload: Any) -> str:
    return f"data: {json.dumps(payload, ensure_ascii=False)}\n\n"


def _event(name: str, payload: Any) -> str:
    return f"event: {name}\ndata: {json.dumps(payload, ensure_ascii=False)}\n\n"


def stream_chunks(api: str, answer: dict[str, Any], request: dict[str, Any]) -> list[str]:
    """The server-sent events of ``answer`` (the API's non-streamed JSON answer) for ``api``
    (``completions``, ``responses``, ``anthropic``, ``google``)."""
    if api == "completions":
        return list(_chat_chunks(answer, request))
    if api == "responses":
        return list(_responses_events(answer))
    if api == "anthropic":
        return list(_anthropic_events(answer))
    return [_data(answer)]  # Gemini: the whole answer as one event


def _chat_chunks(completion: dict[str, Any], request: dict[str, Any]) -> Iterator[str]:
    base = {k: completion.get(k) for k in ("id", "created", "model")}
    base["object"] = "chat.completion.chunk"
    if completion.get("system_fingerprint") is not None:
        base["system_fingerprint"] = completion["system_fingerprint"]

    def chunk(index: int, delta: dict[str, Any], finish: str | None = None) -> str:
        return _data({**base, "choices": [{"index": index, "delta": delta,
                                           "finish_reason": finish}]})

    for index, choice in enumerate(completion.get("choices") or []):
        message = choice.get("message") or {}
        yield chunk(index, {"role": message.get("role") or "assistant"})
        content = message.get("content")
        if isinstance(content, str):
            for piece in _pieces(content, _TEXT_PIECE):
                yield chunk(index, {"content": piece})
        for n, call in enumerate(message.get("tool_calls") or []):
            function = call.get("function") or {}
            head = {"index": n, "id": call.get("id"), "type": call.get("type"),
                    "function": {"name": function.get("name", "")}}
            yield chunk(index, {"tool_calls": [head]})
            # the id and type come once, as OpenAI sends them: clients join what repeats
            for piece in _pieces(function.get("arguments") or "", _ARGS_PIECE):
                yield chunk(index, {"tool_calls": [{"index": n, "function": {"arguments": piece}}]})
        yield chunk(index, {}, choice.get("finish_reason"))
    if (request.get("stream_options") or {}).get("include_usage") and completion.get("usage"):
        yield _data({**base, "choices": [], "usage": completion["usage"]})
    yield "data: [DONE]\n\n"


def _responses_events(response: dict[str, Any]) -> Iterator[str]:
    sequence = 0

    def event(name: str, **fields: Any) -> str:
        nonlocal sequence
        sequence += 1
        return _event(name, {"type": name, "sequence_number": sequence, **fields})

    yield event("response.created", response={**response, "status": "in_progress", "output": []})
    yield event("response.in_progress", response={**response, "status": "in_progress", "output": []})
    for index, item in enumerate(response.get("output") or []):
        item_id = item.get("id", f"item_{index}")
        added = {**item, "status": "in_progress"} if "status" in item else dict(item)
        if item.get("type") == "message":
            added["content"] = []
        elif item.get("type") == "function_call":
            added["arguments"] = ""
        yield event("response.output_item.added", output_index=index, item=added)
        if item.get("type") == "message":
            for part_index, part in enumerate(item.get("content") or []):
                yield from _message_part(event, item_id, index, part_index, part)
        elif item.get("type") == "function_call":
            arguments = item.get("arguments") or ""
            for piece in _pieces(arguments, _ARGS_PIECE):
                yield event("response.function_call_arguments.delta", item_id=item_id,
                            output_index=index, delta=piece)
            yield event("response.function_call_arguments.done", item_id=item_id,
                        output_index=index, arguments=arguments)
        elif item.get("type") == "reasoning":
            for summary_index, part in enumerate(item.get("summary") or []):
                yield event("response.reasoning_summary_part.added", item_id=item_id,
                            output_index=index, summary_index=summary_index,
                            part={**part, "text": ""})
                yield event("response.reasoning_summary_text.done", item_id=item_id,
                            output_index=index, summary_index=summary_index,
                            text=part.get("text", ""))
                yield event("response.reasoning_summary_part.done", item_id=item_id,
                            output_index=index, summary_index=summary_index, part=part)
        done = {**item, "status": "completed"} if "status" in item else item
        yield event("response.output_item.done", output_index=index, item=done)
    yield event("response.completed", response={**response, "status": "completed"})


def _message_part(event: Any, item_id: str, index: int, part_index: int,
                  part: dict[str, Any]) -> Iterator[str]:
    where = {"item_id": item_id, "output_index": index, "content_index": part_index}
    kind = part.get("type")
    field = "refusal" if kind == "refusal" else "text"
    yield event("response.content_part.added", **where, part={**part, field: ""})
    if kind in ("output_text", "refusal"):
        text = part.get(field) or ""
        name = "response.output_text" if kind == "output_text" else "response.refusal"
        extra: dict[str, Any] = {"logprobs": []} if kind == "output_text" else {}
        for piece in _pieces(text, _TEXT_PIECE):
            yield event(f"{name}.delta", **where, delta=piece, **extra)
        yield event(f"{name}.done", **where, **{field: text}, **extra)
    yield event("response.content_part.done", **where, part=part)


def _anthropic_events(message: dict[str, Any]) -> Iterator[str]:
    usage = message.get("usage") or {}
    start = {k: message.get(k) for k in ("id", "type", "role", "model")}
    yield _event("message_start", {"type": "message_start", "message": {
        **start, "content": [], "stop_reason": None, "stop_sequence": None,
        "usage": {"input_tokens": usage.get("input_tokens", 0), "output_tokens": 1}}})
    for index, block in enumerate(message.get("content") or []):
        yield from _anthropic_block(index, block)
    delta_usage = {k: usage[k] for k in ("input_tokens", "output_tokens",
                                         "cache_creation_input_tokens",
                                         "cache_read_input_tokens") if k in usage}
    yield _event("message_delta", {"type": "message_delta", "delta": {
        "stop_reason": message.get("stop_reason"), "stop_sequence": message.get("stop_sequence")},
        "usage": {"output_tokens": usage.get("output_tokens", 0), **delta_usage}})
    yield _event("message_stop", {"type": "message_stop"})


def _anthropic_block(index: int, block: dict[str, Any]) -> Iterator[str]:
    kind = block.get("type")

    def delta(payload: dict[str, Any]) -> str:
        return _event("content_block_delta", {"type": "content_block_delta", "index": index,
                                              "delta": payload})

    if kind == "text":
        empty: dict[str, Any] = {"type": "text", "text": ""}
        pieces = [delta({"type": "text_delta", "text": p})
                  for p in _pieces(block.get("text") or "", _TEXT_PIECE)]
    elif kind in ("tool_use", "server_tool_use"):
        empty = {"type": kind, "id": block.get("id"), "name": block.get("name"), "input": {}}
        arguments = json.dumps(block.get("input") or {}, ensure_ascii=False)
        pieces = [delta({"type": "input_json_delta", "partial_json": p})
                  for p in _pieces(arguments, 20)]
    elif kind == "thinking":
        empty = {"type": "thinking", "thinking": ""}
        pieces = [delta({"type": "thinking_delta", "thinking": p})
                  for p in _pieces(block.get("thinking") or "", _TEXT_PIECE)]
        if block.get("signature"):
            pieces.append(delta({"type": "signature_delta", "signature": block["signature"]}))
    else:  # a block without deltas (e.g. redacted thinking): sent whole
        empty, pieces = block, []
    yield _event("content_block_start", {"type": "content_block_start", "index": index,
                                         "content_block": empty})
    yield from pieces
    yield _event("content_block_stop", {"type": "content_block_stop", "index": index})
