"""A ``Model`` for any OpenAI-compatible chat-completions server (vLLM, llama.cpp, ...).

Pure stdlib (``urllib`` in a worker thread): the harness needs no SDK. HTTP failures become
classified ``ProviderError``s (``harness.provider_errors.classify_http_error``: status, headers
and body in each server's dialect, retry hints included) so failover decides on kinds. No HTTP
answer (refused, reset, timed out, a body cut short) is a retriable ``timeout`` fault.
"""

from __future__ import annotations

import asyncio
import http.client
import itertools
import json
import re
import urllib.error
import urllib.request
from typing import Any

from harness.events import subsystem_logger
from harness.messages import Message, ToolCall
from harness.model import ModelReply, ProviderError, ToolSpec, Usage
from harness.provider_errors import classify_http_error
from harness.tool_arguments import INVALID_JSON_KEY

log = subsystem_logger("openai-client")

__all__ = ["INVALID_JSON_KEY", "OpenAICompatModel", "api_urls", "parse_arguments", "parse_reply"]

_ids = itertools.count(1)


def api_urls(base_url: str) -> tuple[str, str]:
    """``(api, root)`` for a base URL given with or without ``/v1``: chat completions live at
    ``api + "/chat/completions"``, vLLM's ``/tokenize`` at ``root + "/tokenize"``."""
    b = base_url.strip().rstrip("/")
    if not re.match(r"^https?://[^/\s]+", b):
        raise ValueError(f"base_url {base_url!r}: expected http(s)://host[:port][/v1]")
    b = re.sub(r"/chat/completions$", "", b)
    api = b if re.search(r"/v\d+$", b) else b + "/v1"
    return api, re.sub(r"/v\d+$", "", api)


def _read_error_body(e: urllib.error.HTTPError) -> bytes:
    try:
        return e.read() if e.fp else b""
    except (OSError, http.client.HTTPException):  # the error body itself was cut short
        return b""


def to_openai(message: Message) -> dict[str, Any]:
    if message.role == "tool":
        return {"role": "tool", "tool_call_id": message.tool_call_id or "", "content": message.content}
    out: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.role == "assistant" and message.tool_calls:
        out["content"] = message.content or None
        out["tool_calls"] = [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in message.tool_calls
        ]
    return out


def parse_arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return {}
    try:
        value = json.loads(raw)
    except (TypeError, ValueError) as e:
        return {INVALID_JSON_KEY: str(raw)[:4000], "_error": f"arguments are not valid JSON: {e}"}
    if not isinstance(value, dict):
        return {INVALID_JSON_KEY: str(raw)[:4000], "_error": "arguments must be a JSON object"}
    return value


def parse_reply(data: Any, model: str) -> ModelReply:
    try:
        choice = data["choices"][0]
        msg = choice["message"]
    except (KeyError, IndexError, TypeError) as e:
        raise ProviderError("other", f"malformed chat completion ({e!r}): {str(data)[:300]}",
                            model=model) from None
    calls = []
    for tc in msg.get("tool_calls") or []:
        fn = tc.get("function") or {}
        calls.append(ToolCall(id=tc.get("id") or f"call_{next(_ids)}", name=fn.get("name") or "",
                              arguments=parse_arguments(fn.get("arguments"))))
    thoughts = msg.get("reasoning_content") or msg.get("reasoning") or None
    u = data.get("usage") or {}
    details = u.get("prompt_tokens_details") or {}
    usage = Usage(input_tokens=u.get("prompt_tokens") or 0,
                  output_tokens=u.get("completion_tokens") or 0,
                  cached_tokens=details.get("cached_tokens") or 0)
    return ModelReply(
        message=Message(role="assistant", content=msg.get("content") or "", tool_calls=calls,
                        thoughts=thoughts),
        usage=usage, model=data.get("model") or model,
        stop_reason=choice.get("finish_reason") or "stop",
    )


class OpenAICompatModel:
    """``POST {base}/v1/chat/completions``. One instance is one auth profile: several instances
    with the same ``model`` and different ``profile_id``/``api_key`` rotate on failures."""

    provider = "openai-compat"

    def __init__(
        self,
        base_url: str,
        model: str,
        api_key: str | None = None,
        *,
        profile_id: str | None = None,
        timeout_s: float = 300.0,
    ) -> None:
        self.api_url, self.root_url = api_urls(base_url)
        self.name = model
        self.api_key = api_key
        self.profile_id = profile_id
        self.timeout_s = timeout_s
        self._tokenize: bool | None = None
        """Whether the server has ``/tokenize``: unknown until tried once, then remembered."""

    def _headers(self) -> dict[str, str]:
        h = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            h["Authorization"] = f"Bearer {self.api_key}"
        return h

    def _post(self, url: str, payload: dict[str, Any]) -> Any:
        req = urllib.request.Request(url, data=json.dumps(payload).encode(), method="POST",
                                     headers=self._headers())
        try:
            with urllib.request.urlopen(req, timeout=self.timeout_s) as resp:
                body = resp.read().decode("utf-8", errors="replace")
        except urllib.error.HTTPError as e:
            raw = _read_error_body(e)
            raise classify_http_error(e.code, e.headers, raw, model=self.name) from None
        except (urllib.error.URLError, OSError, http.client.HTTPException) as e:
            # No (complete) HTTP answer: refused, reset, timed out, or the body was cut short.
            reason = getattr(e, "reason", None) or e
            raise classify_http_error(None, {}, None, model=self.name,
                                      transport_error=f"{url}: {type(e).__name__}: {reason}") from None
        try:
            return json.loads(body)
        except ValueError:
            cut = not body.strip() or body.lstrip().startswith(("{", "["))
            if cut:  # an empty or truncated JSON answer is a stream cut, worth a retry
                raise classify_http_error(None, {}, body, model=self.name,
                                          transport_error=f"{url}: truncated response") from None
            raise ProviderError("other", f"{url}: response is not JSON: {body[:300]}",
                                model=self.name) from None

    def payload(self, messages: list[Message], tools: list[ToolSpec]) -> dict[str, Any]:
        p: dict[str, Any] = {"model": self.name, "messages": [to_openai(m) for m in messages]}
        if tools:
            p["tools"] = [{"type": "function", "function": {
                "name": t.name, "description": t.description, "parameters": t.parameters}}
                for t in tools]
            p["tool_choice"] = "auto"
        return p

    async def generate(self, messages: list[Message], tools: list[ToolSpec]) -> ModelReply:
        url = self.api_url + "/chat/completions"
        data = await asyncio.to_thread(self._post, url, self.payload(messages, tools))
        return parse_reply(data, self.name)

    async def count_tokens(self, messages: list[Message]) -> int | None:
        if self._tokenize is False:
            return None
        payload = {"model": self.name, "messages": [to_openai(m) for m in messages],
                   "add_generation_prompt": True}
        try:
            data = await asyncio.to_thread(self._post, self.root_url + "/tokenize", payload)
            count = int(data["count"])
        except (ProviderError, KeyError, TypeError, ValueError) as e:
            if self._tokenize is None:
                log.info("no usable /tokenize at %s (%s): estimating tokens", self.root_url, e)
                self._tokenize = False
            return None
        self._tokenize = True
        return count
