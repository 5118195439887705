"""The eval's end of the model relay: a harness spec's model requests, served by the eval's model.

The relay in the sample's container (``sandboxes/model_relay_server.py``, started once per
container) forwards each HTTP request on its attached stream; ``relay_bridge`` takes them while
the sample runs and answers each with inspect's own request handlers for the four APIs
(``inspect_completions_api_request``, ``..._responses_...``, ``..._anthropic_...``,
``..._google_...``, called as inspect's sandbox bridge service calls them), so the eval's model
(the scripted actor, or a real model through the sample's fault proxy) answers, and the
transcript and ``state.messages`` are kept as inspect's bridge keeps them. No polling, nothing
copied into the container, no server started per sample.

A provider fault is decided here and played by the relay as the provider sends it: its status,
headers (``Retry-After``) and error body in the API the client speaks (``evals.wire_faults``),
or a reset connection, a dropped one, a stream cut mid-way.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import json
import logging
import re
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio
from inspect_ai.agent import AgentState
from inspect_ai.util import SandboxEnvironment, sandbox

from evals.harnesses.relay_streams import stream_chunks
from evals.wire_faults import cut_stream, wire_fault

logger = logging.getLogger(__name__)

TESTED_INSPECT = ">=0.3.285,<0.4"
"""inspect-ai versions whose bridge internals the relay calls (checked at the first use)."""
_GOOGLE = re.compile(r"^/(?:v1beta/|v1/)?models/([^/:]+):(generateContent|streamGenerateContent)")
_JSON = ["Content-Type", "application/json"]
_ANTHROPIC_TYPES = {400: "invalid_request_error", 401: "authentication_error",
                    403: "permission_error", 404: "not_found_error", 413: "request_too_large",
                    429: "rate_limit_error", 529: "overloaded_error"}
_GOOGLE_STATUS = {400: "INVALID_ARGUMENT", 401: "UNAUTHENTICATED", 403: "PERMISSION_DENIED",
                  404: "NOT_FOUND", 429: "RESOURCE_EXHAUSTED", 503: "UNAVAILABLE"}


class RelayUnsupportedError(RuntimeError):
    """The installed inspect-ai lacks the bridge internals the relay calls."""


class _Internals:
    """inspect's bridge pieces the relay uses, imported once (they are not public API)."""

    def __init__(self) -> None:
        try:
            # Private modules: imported here, once, so a layout without them is one clear error.
            from inspect_ai._util.working import untracked_sandbox_execs
            from inspect_ai.agent._bridge._errors import provider_error_payload
            from inspect_ai.agent._bridge.sandbox.service import (
                generate_anthropic,
                generate_completions,
                generate_google,
                generate_responses,
            )
            from inspect_ai.agent._bridge.sandbox.types import SandboxAgentBridge
            from inspect_ai.util._limit import LimitExceededError
            from inspect_ai.util._sandbox.service import find_control_flow
        except ImportError as err:
            from importlib.metadata import version  # only to name the installed inspect

            raise RelayUnsupportedError(
                f"looplab's model relay calls inspect's sandbox bridge handlers, which inspect-ai "
                f"{version('inspect-ai')} does not have ({err}); install inspect-ai{TESTED_INSPECT}"
            ) from err
        _cache_installed_versions()
        self.untracked = untracked_sandbox_execs
        self.payload = provider_error_payload
        self.bridge_class = SandboxAgentBridge
        self.limit_error = LimitExceededError
        self.find_control_flow = find_control_flow
        self.factories = {"completions": lambda b: generate_completions(b),
                          "responses": lambda b: generate_responses(None, None, b),
                          "anthropic": lambda b: generate_anthropic(None, None, b),
                          "google": lambda b: generate_google(None, None, b)}


def _cache_installed_versions() -> None:
    """inspect's OpenAI handlers check the installed openai version on every request, reading
    and parsing the package's metadata file each time (about 5 ms on this machine, twice a
    call). An installed version does not change while a process runs: remember it. Without the
    helper (another inspect layout) nothing changes but the speed."""
    import functools  # used only here

    try:
        # Private: a layout without it changes nothing but the speed.
        from inspect_ai._util import version as versions
    except ImportError:
        return
    found = getattr(versions, "_installed_version", None)
    if callable(found) and not hasattr(found, "cache_info"):
        versions._installed_version = functools.cache(found)  # type: ignore[attr-defined]


_internals: _Internals | None = None


def internals() -> _Internals:
    global _internals
    if _internals is None:
        _internals = _Internals()
    return _internals


_HANDLER_MODULES = {"openai-chat": "inspect_ai.model._openai",
                    "openai-responses": "inspect_ai.agent._bridge.responses_impl",
                    "anthropic": "inspect_ai.agent._bridge.anthropic_api_impl",
                    "google": "inspect_ai.agent._bridge.google_api_impl"}


def load_handlers(api: str) -> None:
    """Import inspect's handler for ``api`` (a spec's ``api``) now: it imports the provider's
    SDK types on first use (seconds on a small machine), which would otherwise fall on the
    first sample's first model call. Raises ``RelayUnsupportedError`` as ``internals``."""
    import importlib  # only where a spec's API is known

    internals()
    if api in _HANDLER_MODULES:
        importlib.import_module(_HANDLER_MODULES[api])


@dataclass
class RelaySession:
    """One sample's use of the relay."""

    bridge: Any
    """inspect's ``SandboxAgentBridge``: its ``state`` follows the conversation."""
    requests: list[tuple[float, float, str]] = field(default_factory=list)
    """Each request served: (arrival, answer sent; ``time.time()``), the API."""


ANSWER_TAP: Callable[[float, dict[str, Any], dict[str, Any]], None] | None = None
"""Called with each (arrival time, request, answer) when set: ``benchmarks/spec_phases.py`` replays the
answers to the same harness against an instant server (the floor)."""


def route(method: str, path: str) -> str | None:
    """Which API a request is for (``completions``, ``responses``, ``anthropic``, ``google``)."""
    bare = path.split("?", 1)[0].rstrip("/")
    if method != "POST":
        return None
    if bare.endswith("/chat/completions"):
        return "completions"
    if bare.endswith("/responses"):
        return "responses"
    if bare.endswith("/v1/messages"):
        return "anthropic"
    return "google" if _GOOGLE.match(bare) else None


def client_dialect(api: str, dialect: str) -> str:
    """The provider format a fault is answered in: the scenario's, unless the client speaks
    another provider's API (an Anthropic client always gets Anthropic's, a Gemini client
    Google's)."""
    if api in ("anthropic", "google"):
        return api
    return dialect if dialect in ("openai", "azure", "vllm", "llamacpp") else "openai"


@contextlib.asynccontextmanager
async def relay_bridge(state: AgentState, *, model_aliases: dict[str, Any] | None = None,
                       model_resolver: Any = None, filter: Any = None) -> AsyncIterator[RelaySession]:
    """Serve the sample's container's model relay until the block ends; yields the session
    (inspect's ``SandboxAgentBridge`` as ``bridge``: its ``state`` follows the conversation, as
    with inspect's ``sandbox_agent_bridge``). Raises ``RelayUnsupportedError`` (inspect without the handlers)
    or RuntimeError (a sandbox without a relay); a limit or termination raised by the model
    ends the block, as it would end inspect's bridge."""
    parts = internals()
    # inspect hands out an event-logging proxy; as_type reaches the provider behind it.
    provider = sandbox().as_type(SandboxEnvironment)  # type: ignore[type-abstract]
    relay = getattr(provider, "model_relay", None)
    if relay is None:
        raise RuntimeError("harness specs need the looplab-docker sandbox with model_relay=True "
                           "(evals.harnesses.configs.spec_sandbox)")
    bridge = parts.bridge_class(state=state, filter=filter, retry_refusals=None, compaction=None,
                                port=13131, model=None, model_aliases=model_aliases,
                                model_resolver=model_resolver)
    generate: dict[str, Callable[..., Awaitable[Any]]] = {
        api: make(bridge) for api, make in parts.factories.items()}
    session = RelaySession(bridge)
    loop = asyncio.get_running_loop()
    inbox: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
    relay.attach(lambda message: loop.call_soon_threadsafe(inbox.put_nowait, message))
    try:
        async with anyio.create_task_group() as tg:
            async def dispatch() -> None:
                while True:
                    message = await inbox.get()
                    tg.start_soon(serve, relay, generate, message, session)

            tg.start_soon(dispatch)
            with parts.untracked():
                yield session
            tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the task group's wrapping: raise what happened
        raise _first(group) from None
    finally:
        relay.detach()
        with anyio.CancelScope(shield=True):
            # Every connection a harness still holds is reset: the next sample starts clean.
            with contextlib.suppress(Exception):
                await asyncio.to_thread(relay.drop_connections)


def _first(group: BaseExceptionGroup) -> BaseException:
    """The exception that ended the block (a limit, the body's own error), not the
    cancellations it caused."""
    leaves: list[BaseException] = []
    stack: list[BaseException] = [group]
    while stack:
        e = stack.pop()
        if isinstance(e, BaseExceptionGroup):
            stack.extend(reversed(e.exceptions))
        else:
            leaves.append(e)
    return next((e for e in leaves if not isinstance(e, asyncio.CancelledError)), leaves[0])


async def serve(relay: Any, generate: dict[str, Callable[..., Awaitable[Any]]],
                message: dict[str, Any], session: RelaySession) -> None:
    """Answer one forwarded request; a limit or termination is raised after the answer."""
    arrived = time.time()
    answer, raised = await answer_for(generate, message)
    relay.answer({"id": message["id"], **answer})
    session.requests.append((arrived, time.time(), route(str(message.get("method")),
                                                          str(message.get("path"))) or "other"))
    if ANSWER_TAP is not None:
        ANSWER_TAP(arrived, message, answer)
    if raised is not None:
        raise raised


async def answer_for(generate: dict[str, Callable[..., Awaitable[Any]]],
                     message: dict[str, Any]) -> tuple[dict[str, Any], BaseException | None]:
    """The relay's answer to one request, and an exception that must end the sample (a limit,
    a termination) or None."""
    path = str(message.get("path", ""))
    api = route(str(message.get("method", "")), path)
    if api is None:
        return _json(404, {"error": {"message": f"Path {path.split('?')[0]} not found",
                                     "type": "not_found", "code": 404}}), None
    try:
        request = json.loads(_body(message) or "{}")
    except ValueError as err:
        return _error(api, 400, f"the request body is not JSON: {err}", False), None
    if not isinstance(request, dict):
        return _error(api, 400, "the request body is not a JSON object", False), None
    headers = {str(k).lower(): str(v) for k, v in message.get("headers", [])}
    stream = bool(request.get("stream"))
    if api == "completions":
        # as inspect's own model proxy does: some clients join the arguments of parallel
        # streamed tool calls
        request["parallel_tool_calls"] = False
    elif api == "google":
        found = _GOOGLE.match(path.split("?", 1)[0])
        request["model"] = found.group(1) if found else "inspect"
        stream = bool(found and found.group(2) == "streamGenerateContent")
    try:
        result = await generate[api](request, headers)
    except Exception as ex:
        parts = internals()
        ends = isinstance(ex, parts.limit_error) or parts.find_control_flow(ex) is not None
        return fault_answer(ex, api, stream), (ex if ends else None)
    if stream:
        return {"status": 200, "headers": [["Content-Type", "text/event-stream; charset=utf-8"],
                                           ["Cache-Control", "no-cache"]],
                "chunks": stream_chunks(api, result, request)}, None
    return _json(200, result), None


def _body(message: dict[str, Any]) -> str:
    if "body_b64" in message:
        return base64.b64decode(message["body_b64"]).decode("utf-8", errors="replace")
    return str(message.get("body", ""))


def _json(status: int, body: Any, headers: list[list[str]] | None = None) -> dict[str, Any]:
    return {"status": status, "headers": [_JSON, *(headers or [])], "body": json.dumps(body)}


def wire_record_of(ex: BaseException) -> dict[str, Any] | None:
    """The wire form of the provider fault behind ``ex`` (``wire_record`` on the scripted
    provider's faults and on the real-model proxy's), through inspect's wrapping."""
    seen: set[int] = set()
    stack: list[BaseException | None] = [ex]
    while stack:
        e = stack.pop()
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        record = getattr(e, "wire_record", None)
        if isinstance(record, dict):
            return record
        last = getattr(e, "last_attempt", None)  # tenacity's RetryError
        if last is not None and last.done() and last.exception() is not None:
            stack.append(last.exception())
        stack += [e.__cause__, e.__context__]
    return None


def fault_answer(ex: BaseException, api: str, stream: bool) -> dict[str, Any]:
    """What the client gets for a failed model call: the provider fault as the provider sends
    it, or for any other failure the status and message in the API's error format."""
    record = wire_record_of(ex)
    if record is not None and "transport" in record:
        if record["transport"] == "stream_cut":
            return {"raw_b64": base64.b64encode(cut_stream()).decode("ascii"), "then": "reset"}
        return {"then": "reset" if record["transport"] == "connection_reset" else "close"}
    if record is not None:
        wire = wire_fault(str(record["kind"]), client_dialect(api, str(record.get("dialect"))),
                          model=record.get("model") or "model",
                          retry_after=record.get("retry_after"), n_ctx=record.get("n_ctx") or 16_384,
                          prompt_tokens=record.get("prompt_tokens"), status=record.get("status"))
        return _json(wire.status, wire.body, [[k, v] for k, v in wire.headers.items()])
    payload = internals().payload(ex) if isinstance(ex, Exception) else {"status": None, "message": str(ex)}
    if payload["status"] is None:
        logger.warning("model relay: a model request failed without a provider status "
                       "(answered 400): %s", ex, exc_info=ex)
    return _error(api, int(payload["status"] or 400), str(payload["message"]), stream,
                  payload.get("body"))


def _error(api: str, status: int, message: str, stream: bool, body: Any = None) -> dict[str, Any]:
    """An error in the API's own envelope (inspect's proxy's forms: on an Anthropic stream, an
    ``error`` event after a 200)."""
    if api == "anthropic":
        envelope = {"type": "error", "error": {"type": _ANTHROPIC_TYPES.get(
            status, "api_error" if status >= 500 else "invalid_request_error"), "message": message}}
        if stream:
            return {"status": 200, "headers": [["Content-Type", "text/event-stream; charset=utf-8"]],
                    "chunks": [f"event: error\ndata: {json.dumps(envelope)}\n\n"]}
        return _json(status, envelope)
    if api == "google":
        return _json(status, {"error": {"code": status, "message": message, "status":
                                        _GOOGLE_STATUS.get(status, "INTERNAL")}})
    error: dict[str, Any] = {"message": message, "type": "invalid_request_error"
                             if status < 500 else "server_error", "param": None, "code": None}
    if isinstance(body, dict):
        error.update(body)
    return _json(status, {"error": error})
