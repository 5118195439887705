"""vLLM ``/metrics`` read from a real local HTTP server."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from evals.realmodel.metrics import (
    HitRate,
    cached_tokens,
    metrics_url,
    parse_exposition,
    prefix_cache_hit_rate,
    scrape,
)

# Modelled on vLLM's exposition: counters with _created companions, one label set per model,
# histograms and gauges around them.
EXPOSITION = """\
# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{{engine="0",model_name="smollm2"}} 0.0
# HELP vllm:prefix_cache_queries_total Prefix cache queries, in terms of number of queried tokens.
# TYPE vllm:prefix_cache_queries_total counter
vllm:prefix_cache_queries_total{{engine="0",model_name="smollm2"}} {queries_a}
vllm:prefix_cache_queries_total{{engine="0",model_name="other \\"b\\""}} {queries_b}
vllm:prefix_cache_queries_created{{engine="0",model_name="smollm2"}} 1.7562e+09
# HELP vllm:prefix_cache_hits_total Prefix cache hits, in terms of number of cached tokens.
# TYPE vllm:prefix_cache_hits_total counter
vllm:prefix_cache_hits_total{{engine="0",model_name="smollm2"}} {hits_a}
vllm:prefix_cache_hits_total{{engine="0",model_name="other \\"b\\""}} {hits_b}
# HELP vllm:time_to_first_token_seconds Histogram of time to first token in seconds.
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{{engine="0",le="0.001",model_name="smollm2"}} 0.0
vllm:time_to_first_token_seconds_bucket{{engine="0",le="+Inf",model_name="smollm2"}} 4.0
vllm:time_to_first_token_seconds_sum{{engine="0",model_name="smollm2"}} 1.25
process_cpu_seconds_total 12.5
"""


class _Metrics(BaseHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass

    def do_GET(self) -> None:
        text = self.server.text if self.path == "/metrics" else None  # type: ignore[attr-defined]
        if text is None:
            self.send_error(404)
            return
        payload = text.encode()
        self.send_response(200)
        self.send_header("Content-Type", "text/plain; version=0.0.4")
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    srv = ThreadingHTTPServer(("127.0.0.1", 0), _Metrics)
    srv.text = ""  # type: ignore[attr-defined]
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    yield srv
    srv.shutdown()
    srv.server_close()


def _set(srv: ThreadingHTTPServer, **values: float) -> None:
    srv.text = EXPOSITION.format(**values)  # type: ignore[attr-defined]


def test_hit_rate_between_two_scrapes(server: ThreadingHTTPServer) -> None:
    base = f"http://127.0.0.1:{server.server_address[1]}/v1"
    _set(server, queries_a=100.0, hits_a=10.0, queries_b=50.0, hits_b=0.0)
    before = scrape(base)
    _set(server, queries_a=400.0, hits_a=250.0, queries_b=150.0, hits_b=50.0)
    after = scrape(base)
    both = prefix_cache_hit_rate(before, after)
    assert (both.value, both.hits, both.queries, both.reason) == (290 / 400, 290, 400, None)
    one = prefix_cache_hit_rate(before, after, {"model_name": "smollm2"})
    assert one.value == 240 / 300
    quoted = prefix_cache_hit_rate(before, after, {"model_name": 'other "b"'})
    assert quoted.value == 0.5


def test_parser_keeps_labels_and_skips_comments() -> None:
    snap = parse_exposition(EXPOSITION.format(queries_a=1, hits_a=2, queries_b=3, hits_b=4))
    assert snap.total(["process_cpu_seconds"]) == 12.5
    assert snap.total(["vllm:prefix_cache_hits"]) == 6
    assert {s.labels["model_name"] for s in snap.samples["vllm:prefix_cache_queries_total"]} == {
        "smollm2", 'other "b"'}
    assert "# HELP" not in str(snap.samples)


def test_older_names_without_total_suffix_are_accepted() -> None:
    before = parse_exposition('vllm:gpu_prefix_cache_queries{model_name="m"} 10\n'
                              'vllm:gpu_prefix_cache_hits{model_name="m"} 0\n')
    after = parse_exposition('vllm:gpu_prefix_cache_queries{model_name="m"} 30\n'
                             'vllm:gpu_prefix_cache_hits{model_name="m"} 5\n')
    assert prefix_cache_hit_rate(before, after).value == 0.25


def test_missing_metrics_give_none_with_a_reason(server: ThreadingHTTPServer) -> None:
    base = f"http://127.0.0.1:{server.server_address[1]}"
    server.text = "process_cpu_seconds_total 1\n"  # type: ignore[attr-defined]
    plain = scrape(base)
    rate = prefix_cache_hit_rate(plain, plain)
    assert rate.value is None and "vllm:prefix_cache_hits_total" in (rate.reason or "")

    server.text = None  # type: ignore[attr-defined]  # /metrics answers 404
    failed = scrape(base)
    assert failed.error and "404" in failed.error
    rate = prefix_cache_hit_rate(failed, plain)
    assert rate.value is None and "before snapshot failed" in (rate.reason or "")


def test_no_queries_and_restarts_give_none() -> None:
    snap = parse_exposition(EXPOSITION.format(queries_a=5, hits_a=1, queries_b=0, hits_b=0))
    idle = prefix_cache_hit_rate(snap, snap)
    assert idle == HitRate(None, 0, 0, reason="no prefix-cache queries between the snapshots")
    restarted = parse_exposition(EXPOSITION.format(queries_a=1, hits_a=0, queries_b=0, hits_b=0))
    assert "restarted" in (prefix_cache_hit_rate(snap, restarted).reason or "")


def test_metrics_url_and_cached_tokens() -> None:
    assert metrics_url("http://127.0.0.1:8000/v1/") == "http://127.0.0.1:8000/metrics"
    responses = [
        {"usage": {"prompt_tokens": 10, "prompt_tokens_details": {"cached_tokens": 8}}},
        {"usage": {"prompt_tokens": 10, "prompt_tokens_details": None}},
        {"usage": None},
        {"usage": {"prompt_tokens": 12, "prompt_tokens_details": {"cached_tokens": 10}}},
    ]
    assert cached_tokens(responses) == 18
