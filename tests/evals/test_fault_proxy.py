"""The fault proxy between a real local client and a real local OpenAI-style upstream."""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import threading
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest

from evals.realmodel.proxy import LOG_PATH, main, running_proxy
from evals.realmodel.schedule import ProxyRule, Schedule, from_scenario, key_id
from harness.messages import Message
from harness.model import ProviderError
from harness.openai_client import OpenAICompatModel
from tests.evals.openai_upstream import url

_url = url


def _post(port: int, model: str = "m1", key: str | None = "sk-one", stream: bool = False,
          timeout: float = 30) -> http.client.HTTPResponse:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    headers = {"Content-Type": "application/json"}
    if key:
        headers["Authorization"] = f"Bearer {key}"
    body = {"model": model, "messages": [{"role": "user", "content": "ping"}], "stream": stream}
    conn.request("POST", "/v1/chat/completions", json.dumps(body), headers)
    return conn.getresponse()


def _log(port: int) -> list[dict]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    conn.request("GET", LOG_PATH)
    return json.loads(conn.getresponse().read())["entries"]


def test_forwards_a_chat_completion_and_logs_it(upstream: ThreadingHTTPServer, tmp_path: Path) -> None:
    log_file = tmp_path / "proxy.jsonl"
    with running_proxy(_url(upstream), log_file=log_file) as proxy:
        resp = _post(proxy.port)
        assert resp.status == 200
        assert json.loads(resp.read())["choices"][0]["message"]["content"] == "pong"
        entries = _log(proxy.port)
    assert upstream.seen[0]["body"]["messages"][0]["content"] == "ping"  # type: ignore[attr-defined]
    assert upstream.seen[0]["auth"] == "Bearer sk-one"  # type: ignore[attr-defined]
    assert [(e["action"], e["status"], e["call"], e["model"]) for e in entries] == [
        ("forwarded", 200, 1, "m1")]
    assert entries[0]["key_id"] == key_id("sk-one") and "sk-one" not in log_file.read_text()
    assert [json.loads(line) for line in log_file.read_text().splitlines()] == entries


def test_an_entry_is_whole_while_its_answer_still_streams(upstream, tmp_path: Path) -> None:
    """The entry is published once, complete, when the client gets the answer's head: what the
    log endpoint and the log file say then is what they say after the body ended."""
    log_file = tmp_path / "proxy.jsonl"
    upstream.gate = threading.Event()  # type: ignore[attr-defined]
    with running_proxy(_url(upstream), log_file=log_file) as proxy:
        resp = _post(proxy.port, stream=True)  # the head has arrived; the last event waits
        during = _log(proxy.port)
        in_file = [json.loads(line) for line in log_file.read_text().splitlines()]
        upstream.gate.set()  # type: ignore[attr-defined]
        assert resp.read().decode().endswith("data: [DONE]\n\n")
        after = _log(proxy.port)
    assert [(e["action"], e["status"], e["stream"]) for e in during] == [("forwarded", 200, True)]
    assert during == in_file == after
    assert [json.loads(line) for line in log_file.read_text().splitlines()] == after


def test_streams_chunked_responses_through(upstream: ThreadingHTTPServer) -> None:
    with running_proxy(_url(upstream)) as proxy:
        resp = _post(proxy.port, stream=True)
        assert resp.status == 200
        assert resp.getheader("Transfer-Encoding") == "chunked"
        events = [line for line in resp.read().decode().split("\n\n") if line]
    contents = [json.loads(e[6:])["choices"][0]["delta"]["content"] for e in events[:-1]]
    assert contents == ["Hel", "lo"] and events[-1] == "data: [DONE]"


def _error(resp: http.client.HTTPResponse) -> dict:
    return json.loads(resp.read())["error"]


@pytest.mark.parametrize("rule, status, check", [
    (ProxyRule(kind="rate_limit", retry_after=2), 429,
     lambda r, e: r.getheader("Retry-After") == "2" and e["code"] == "rate_limit_exceeded"),
    (ProxyRule(kind="overloaded", dialect="anthropic"), 529,
     lambda r, e: e["type"] == "overloaded_error"),
    (ProxyRule(kind="overloaded"), 503,
     lambda r, e: "overloaded" in e["message"] and e["type"] == "server_error"),
    (ProxyRule(kind="quota_exceeded"), 429,
     lambda r, e: e["type"] == e["code"] == "insufficient_quota"
     and e["message"].startswith("You exceeded your current quota")),
    (ProxyRule(kind="auth_error"), 401, lambda r, e: e["code"] == "invalid_api_key"),
    (ProxyRule(kind="context_overflow", max_context=2048), 400,
     lambda r, e: e["message"].startswith("This model's maximum context length is 2048 tokens. "
                                          "However, your messages resulted in 2049 tokens")
     and e["code"] == "context_length_exceeded"),
    (ProxyRule(kind="bad_request"), 400, lambda r, e: e["type"] == "invalid_request_error"),
], ids=["rate_limit", "overloaded-529", "overloaded-503", "quota", "auth", "context", "bad_request"])
def test_each_fault_kind_answers_like_a_provider(upstream, rule, status, check) -> None:
    with running_proxy(_url(upstream), Schedule(rules=[rule])) as proxy:
        resp = _post(proxy.port)
        assert resp.status == status
        assert check(resp, _error(resp))
        assert [(e["action"], e["status"]) for e in _log(proxy.port)] == [(rule.kind, status)]
    assert upstream.seen == []  # type: ignore[attr-defined]


def test_calls_are_counted_per_model_and_key(upstream: ThreadingHTTPServer) -> None:
    rule = ProxyRule(model="m1", api_key="sk-one", kind="rate_limit", from_call=2, until_call=3)
    calls = [("m1", "sk-one"), ("m1", "sk-two"), ("m2", "sk-one"), ("m1", "sk-one"),
             ("m1", "sk-one"), ("m1", "sk-one"), ("m1", None)]
    with running_proxy(_url(upstream), Schedule(rules=[rule])) as proxy:
        statuses = [_post(proxy.port, model, key).status for model, key in calls]
        entries = _log(proxy.port)
    assert statuses == [200, 200, 200, 429, 429, 200, 200]
    assert [e["call"] for e in entries] == [1, 1, 1, 2, 3, 4, 1]
    assert [e["key_id"] for e in entries][-1] is None
    assert len(upstream.seen) == 5  # type: ignore[attr-defined]


def test_stall_holds_the_request(upstream: ThreadingHTTPServer) -> None:
    held = ProxyRule(kind="stall", stall_s=60, until_call=1)
    late = ProxyRule(kind="stall", stall_s=0.2, after_stall="forward", from_call=2)
    with running_proxy(_url(upstream), Schedule(rules=[held, late])) as proxy:
        with pytest.raises(TimeoutError):
            _post(proxy.port, timeout=0.5).read()
        assert _post(proxy.port).status == 200  # second call: held 0.2 s, then forwarded
        entries = [e for e in _log(proxy.port) if e["call"] == 2]
    assert entries[0]["action"] == "stall" and entries[0]["status"] == 200
    assert entries[0]["latency_s"] >= 0.2


@pytest.mark.parametrize("kind", ["reset", "connection_reset"])
def test_reset_drops_the_connection(upstream: ThreadingHTTPServer, kind: str) -> None:
    with running_proxy(_url(upstream), Schedule(rules=[ProxyRule(kind=kind, until_call=1)])) as proxy:
        with pytest.raises(ConnectionError):
            _post(proxy.port).read()
        assert _post(proxy.port).status == 200
        assert [e["action"] for e in _log(proxy.port)] == [kind, "forwarded"]


def test_stream_cut_stops_a_streamed_answer_mid_way(upstream: ThreadingHTTPServer) -> None:
    with running_proxy(_url(upstream), Schedule(rules=[ProxyRule(kind="stream_cut")])) as proxy:
        resp = _post(proxy.port, stream=True)
        assert resp.status == 200 and resp.getheader("Content-Type") == "text/event-stream"
        with pytest.raises((http.client.IncompleteRead, ConnectionError)):
            resp.read()
        assert [e["action"] for e in _log(proxy.port)] == ["stream_cut"]
    assert upstream.seen == []  # type: ignore[attr-defined]


@pytest.mark.parametrize("dialect, status, check", [
    ("anthropic", 429, lambda r, b: b["type"] == "error" and b["error"]["type"] == "rate_limit_error"
     and r.getheader("anthropic-ratelimit-requests-remaining") == "0"),
    ("google", 429, lambda r, b: b["error"]["status"] == "RESOURCE_EXHAUSTED"
     and b["error"]["details"][-1]["retryDelay"] == "2s"),
    ("azure", 429, lambda r, b: b["error"]["code"] == "429" and r.getheader("x-ms-retry-after-ms") == "2000"),
    ("llamacpp", 429, lambda r, b: b["error"]["code"] == 429),
], ids=["anthropic", "google", "azure", "llamacpp"])
def test_rate_limit_in_each_dialect(upstream, dialect, status, check) -> None:
    rule = ProxyRule(kind="rate_limit", retry_after=2, dialect=dialect)
    with running_proxy(_url(upstream), Schedule(rules=[rule])) as proxy:
        resp = _post(proxy.port)
        assert resp.status == status
        assert check(resp, json.loads(resp.read()))


def test_unreachable_upstream_is_a_logged_502() -> None:
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        dead = s.getsockname()[1]
    with running_proxy(f"http://127.0.0.1:{dead}") as proxy:
        resp = _post(proxy.port)
        assert resp.status == 502 and _error(resp)["type"] == "upstream_error"
        assert _log(proxy.port)[0]["action"] == "upstream_error"


def test_harness_client_classifies_the_proxy_quota_fault(upstream: ThreadingHTTPServer) -> None:
    schedule = Schedule(rules=[ProxyRule(model="served-m", kind="quota_exceeded", from_call=2)])
    with running_proxy(_url(upstream), schedule) as proxy:
        model = OpenAICompatModel(f"http://127.0.0.1:{proxy.port}/v1", "served-m", api_key="sk-h")
        messages = [Message(role="user", content="hi")]
        reply = asyncio.run(model.generate(messages, []))
        assert reply.message.content == "pong" and reply.usage.cached_tokens == 4
        with pytest.raises(ProviderError) as err:
            asyncio.run(model.generate(messages, []))
    assert err.value.kind == "quota_exceeded" and err.value.status == 429


def test_schedule_from_a_library_scenario() -> None:
    quota = from_scenario("provider-all-exhausted", "served-m", {"backup": "served-b"})
    assert [(r.model, r.kind, r.from_call) for r in quota.rules] == [
        ("served-m", "quota_exceeded", 3), ("served-b", "quota_exceeded", 1)]
    summary_only = from_scenario("context-summariser-overloaded", "served-m")
    assert summary_only.rules == [] and "summary" in summary_only.notes[0]
    with pytest.raises(ValueError, match="no-such-scenario"):
        from_scenario("no-such-scenario", "served-m")


def test_cli_rejects_a_non_loopback_listen_address(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--upstream", "http://127.0.0.1:1", "--listen", "0.0.0.0:8100"]) == 2
    assert "--listen" in capsys.readouterr().err
    assert main(["--upstream", "http://127.0.0.1:1", "--scenario", "provider-all-exhausted"]) == 2
    assert "--model" in capsys.readouterr().err


def test_openai_sdk_streams_and_sees_rate_limits(upstream: ThreadingHTTPServer) -> None:
    import openai

    schedule = Schedule(rules=[ProxyRule(kind="rate_limit", from_call=3, retry_after=0)])
    with running_proxy(_url(upstream), schedule) as proxy:
        client = openai.OpenAI(base_url=f"http://127.0.0.1:{proxy.port}/v1", api_key="sk-sdk",
                               max_retries=0)
        messages = [{"role": "user", "content": "ping"}]
        first = client.chat.completions.create(model="m1", messages=messages)
        chunks = client.chat.completions.create(model="m1", messages=messages, stream=True)
        text = "".join(c.choices[0].delta.content or "" for c in chunks)
        with pytest.raises(openai.RateLimitError):
            client.chat.completions.create(model="m1", messages=messages)
    assert first.choices[0].message.content == "pong" and text == "Hello"


@pytest.mark.parametrize("rule", [
    ProxyRule(kind="rate_limit", retry_after=3, dialect="anthropic"),
    ProxyRule(kind="context_overflow", max_context=2048, dialect="vllm"),
    ProxyRule(kind="overloaded", status=529, retry_after=2),
])
def test_the_fault_hook_record_replays_the_answer_the_client_got(upstream, rule) -> None:
    """What ``on_fault`` is told is enough for the sandbox's wire relay to give a harness the
    very answer the proxy sent (status, retry headers, provider body)."""
    from evals.wire_faults import wire_fault

    told: list[dict] = []

    async def on_fault(record: dict) -> None:
        told.append(record)

    with running_proxy(_url(upstream), Schedule(rules=[rule]), on_fault=on_fault) as proxy:
        resp = _post(proxy.port)
        got = (resp.status, resp.getheader("retry-after"), json.loads(resp.read()))
    [record] = told
    replay = wire_fault(record["kind"], record["dialect"], model=record["model"],
                        retry_after=record["retry_after"], n_ctx=record["n_ctx"],
                        prompt_tokens=record["prompt_tokens"], status=record["status"])
    assert got == (replay.status, replay.headers.get("retry-after"), replay.body)
    assert got[0] == (rule.status or wire_fault(rule.kind, rule.dialect).status)


def test_the_fault_hook_names_transport_faults(upstream) -> None:
    told: list[dict] = []

    async def on_fault(record: dict) -> None:
        told.append(record)

    with running_proxy(_url(upstream), Schedule(rules=[ProxyRule(kind="reset", until_call=1)]),
                       on_fault=on_fault) as proxy:
        with pytest.raises((ConnectionError, http.client.HTTPException)):
            _post(proxy.port).read()
        assert _post(proxy.port).status == 200  # the next call is not a fault: no record
    assert told == [{"transport": "connection_reset"}]
