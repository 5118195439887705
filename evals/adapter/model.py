"""A harness ``Model`` backed by an inspect ``Model`` (scripted, vLLM, any provider)."""

from __future__ import annotations

import re
from typing import Any

from inspect_ai.model import GenerateConfig
from inspect_ai.model import Model as InspectAIModel

from evals.convert import from_inspect, to_inspect, tool_info
from harness.messages import Message
from harness.model import ModelReply, ProviderError, ToolSpec, Usage
from harness.provider_errors import classify_http_error

_TRANSPORT_TYPES = re.compile(r"timeout|connection|connect|remote|protocol|readerror|"
                             r"incomplete|oserror", re.IGNORECASE)


def _unwrap(e: BaseException) -> BaseException:
    """The provider's own exception: inspect wraps the last attempt's in tenacity's
    ``RetryError`` once its retries (none here) are used up."""
    last = getattr(e, "last_attempt", None)
    if last is not None and callable(getattr(last, "exception", None)):
        inner = last.exception()
        if isinstance(inner, BaseException):
            return inner
    return e


def wire_of(e: BaseException) -> tuple[int | None, dict[str, str], Any]:
    """``(status, headers, body)`` as the client received them: the SDKs (openai, anthropic,
    google-genai) keep the HTTP response on the exception; others only a status attribute."""
    response = getattr(e, "response", None)
    status = getattr(response, "status_code", None)
    if not isinstance(status, int):
        status = next((v for v in (getattr(e, "status_code", None), getattr(e, "status", None),
                                   getattr(e, "code", None)) if isinstance(v, int)), None)
    headers = getattr(response, "headers", None) or getattr(e, "headers", None) or {}
    body: Any = None
    try:
        body = response.text if response is not None else None
    except Exception:  # a streamed response that was never read
        body = None
    if body is None:
        body = getattr(e, "body", None)
    return status, dict(headers.items()) if hasattr(headers, "items") else {}, body


def classify_error(e: BaseException, model: str) -> ProviderError:
    """What a real client sees of a failed call (status, headers, body, or the transport
    failure), classified by the harness's own classifier."""
    e = _unwrap(e)
    status, headers, body = wire_of(e)
    transport = None
    if status is None and _TRANSPORT_TYPES.search(type(e).__name__):
        transport = f"{type(e).__name__}: {e}"
    if status is None and transport is None and body is None:
        body = str(e)  # not a provider answer at all: the classifier calls it "other"
    return classify_http_error(status, headers, body, model=model, transport_error=transport)


class InspectModel:
    """Adapts an inspect model. Inspect's own retries are off (``max_retries=0``): the harness
    under test must see provider faults to fail over."""

    def __init__(self, model: InspectAIModel) -> None:
        self.model = model
        self.name = str(model)

    async def generate(self, messages: list[Message], tools: list[ToolSpec]) -> ModelReply:
        try:
            out = await self.model.generate(
                [to_inspect(m) for m in messages], tools=[tool_info(t) for t in tools],
                config=GenerateConfig(max_retries=0),
            )
        except Exception as e:
            raise classify_error(e, self.name) from e
        if out.stop_reason == "model_length" and not out.message.tool_calls:
            raise ProviderError("context_overflow", out.completion or "model_length",
                                status=400, model=self.name)
        usage = out.usage
        return ModelReply(
            message=from_inspect(out.message),
            usage=Usage(
                input_tokens=usage.input_tokens if usage else 0,
                output_tokens=usage.output_tokens if usage else 0,
                cached_tokens=(usage.input_tokens_cache_read or 0) if usage else 0,
            ),
            model=self.name,
            stop_reason=out.stop_reason,
        )

    async def count_tokens(self, messages: list[Message]) -> int | None:
        try:
            return await self.model.count_tokens([to_inspect(m) for m in messages])
        except Exception:
            return None
