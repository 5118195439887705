"""A harness ``Model`` backed by an inspect ``Model`` (scripted, vLLM, any provider)."""

from __future__ import annotations

import re

from inspect_ai.model import GenerateConfig
from inspect_ai.model import Model as InspectAIModel

from evals.convert import from_inspect, to_inspect, tool_info
from harness.messages import Message
from harness.model import FaultKind, ModelReply, ProviderError, ToolSpec, Usage

_CONTEXT = re.compile(r"context length|maximum context|context window|too many tokens|too long", re.I)
_QUOTA = re.compile(r"quota|insufficient_quota|billing", re.I)


def _unwrap(e: BaseException) -> BaseException:
    """The provider's own exception: inspect wraps the last attempt's in tenacity's
    ``RetryError`` once its retries (none here) are used up."""
    last = getattr(e, "last_attempt", None)
    if last is not None and callable(getattr(last, "exception", None)):
        inner = last.exception()
        if isinstance(inner, BaseException):
            return inner
    return e


def classify_error(e: BaseException, model: str) -> ProviderError:
    """Classify any provider exception into a harness ``ProviderError``."""
    e = _unwrap(e)
    text = str(e)
    kind: FaultKind | None = getattr(e, "looplab_kind", None)
    status = getattr(e, "status_code", None) or getattr(e, "status", None)
    retry_after = getattr(e, "retry_after", None)
    response = getattr(e, "response", None)
    if retry_after is None and response is not None:
        try:
            retry_after = float(response.headers.get("retry-after"))
        except (TypeError, ValueError, AttributeError):
            retry_after = None
    if kind is None:
        if status == 429:
            kind = "quota_exceeded" if _QUOTA.search(text) else "rate_limit"
        elif status in (503, 529):
            kind = "overloaded"
        elif status in (401, 403):
            kind = "auth_error"
        elif status == 400:
            kind = "context_overflow" if _CONTEXT.search(text) else "bad_request"
        elif "timeout" in type(e).__name__.lower() or "connection" in type(e).__name__.lower():
            kind = "timeout"
        else:
            kind = "other"
    return ProviderError(kind, text[:2000], status=status if isinstance(status, int) else None,
                         retry_after=retry_after, model=model)


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
