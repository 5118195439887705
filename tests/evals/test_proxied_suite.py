"""Scenarios against a real local OpenAI-style server, each sample through its own fault proxy:
the provider items are judged from what the proxy saw, and ``python -m evals real`` writes the
prefix-cache figures into the logs."""

from __future__ import annotations

import asyncio
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import list_eval_logs, read_eval_log

from evals.cli import main
from evals.judges import Evidence
from evals.judges.base import JUDGES, make_judge
from evals.realmodel.server import PREFIX_KEY
from evals.state import ProxyLog, in_log
from evals.task import looplab_suite
from harness.workspace import LocalWorkspace
from reports.serving import serving_rows
from scenarios.loader import load_library
from tests.evals.evidence import scenario as scenario_of
from tests.evals.openai_upstream import url


@pytest.fixture(autouse=True)
def _vllm_env(monkeypatch: pytest.MonkeyPatch, upstream: ThreadingHTTPServer) -> None:
    # inspect's openai-api/vllm provider wants these; the proxy replaces the URL per sample.
    monkeypatch.setenv("VLLM_BASE_URL", url(upstream) + "/v1")
    monkeypatch.setenv("VLLM_API_KEY", "looplab")


def _run(tmp_path: Path, upstream: ThreadingHTTPServer, config: str, scenario: str) -> dict:
    task = looplab_suite(config=config, scenarios=scenario, sandbox="local",
                         fallbacks="openai-api/vllm/m1-fallback", proxy=url(upstream))
    [log] = inspect_eval(task, model="openai-api/vllm/m1", model_args={"max_retries": 0},
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    [sample] = log.samples or []
    assert sample.error is None, sample.error
    return {"items": sample.scores["checklist"].metadata["items"], "proxy": in_log(ProxyLog, sample).entries}


@pytest.mark.parametrize("scenario, item", [
    ("provider-quota-fallback", "provider.quota_fallback"),
    ("provider-auth-fallback", "provider.auth_fallback"),
    ("provider-overloaded-fallback", "provider.overloaded_fallback"),
])
def test_failover_is_judged_from_the_proxy(tmp_path, upstream, scenario, item):
    looplab = _run(tmp_path, upstream, "looplab", scenario)
    assert looplab["items"][item]["passed"] is True, looplab["items"][item]
    assert [e["model"] for e in looplab["proxy"]][-1] == "m1-fallback"
    naive = _run(tmp_path, upstream, "naive", scenario)  # no fallback chain in naive
    assert naive["items"][item]["passed"] is False, naive["items"][item]
    assert {e["model"] for e in naive["proxy"]} == {"m1"}


def test_rate_limit_backoff_waits_for_retry_after(tmp_path, upstream):
    looplab = _run(tmp_path, upstream, "looplab", "provider-rate-limit-backoff")
    verdict = looplab["items"]["provider.rate_limit_backoff"]
    assert verdict["passed"] is True, verdict
    assert verdict["figure"] >= 0.9
    assert [e["action"] for e in looplab["proxy"]] == ["rate_limit", "rate_limit", "forwarded"]
    naive = _run(tmp_path, upstream, "naive", "provider-rate-limit-backoff")
    assert naive["items"]["provider.rate_limit_backoff"]["passed"] is False


def test_bad_request_is_not_retried(tmp_path, upstream):
    looplab = _run(tmp_path, upstream, "looplab", "provider-bad-request-stops")
    assert looplab["items"]["provider.non_retriable_stops"]["passed"] is True
    assert [e["action"] for e in looplab["proxy"]] == ["bad_request"]


def _evidence(tmp_path: Path, log: list[dict], exit_status: str = "completed") -> Evidence:
    return Evidence(scenario_of("s"), LocalWorkspace(tmp_path), [], exit_status, "", run={"proxy_log": log})


def _judge(name: str, params: dict, ev: Evidence):
    return asyncio.run(make_judge(name, params)(ev))


def _entry(ts: float, model: str, action: str, status: int | None) -> dict:
    return {"ts": ts, "model": model, "key_id": None, "action": action, "status": status,
            "latency_s": 0.01}


def test_proxy_judges_fail_what_they_should(tmp_path):
    hammer = [_entry(0, "m1", "quota_exceeded", 429), _entry(0.1, "m1", "quota_exceeded", 429),
              _entry(0.2, "m1-fallback", "forwarded", 200)]
    v = _judge("proxy_failover", {"faults": ["quota_exceeded"]}, _evidence(tmp_path, hammer))
    assert v.passed is False and v.figure == 1
    eager = [_entry(0, "m1", "rate_limit", 429), _entry(0.2, "m1", "forwarded", 200)]
    v = _judge("proxy_backoff", {"retry_after_s": 1}, _evidence(tmp_path, eager))
    assert v.passed is False and v.figure == pytest.approx(0.19, abs=0.01)
    retried = [_entry(0, "m1", "bad_request", 400), _entry(0.1, "m1-fallback", "forwarded", 200)]
    v = _judge("proxy_no_retry", {}, _evidence(tmp_path, retried, "completed"))
    assert v.passed is False and v.figure == 1
    v = _judge("proxy_bounded", {"faults": ["quota_exceeded"], "max_after": 0},
               _evidence(tmp_path, hammer, "fallbacks_exhausted"))
    assert v.passed is False and v.figure == 2
    v = _judge("proxy_failover", {"faults": ["quota_exceeded"]},
               Evidence(scenario_of("s"), LocalWorkspace(tmp_path), [], None, ""))
    assert v.passed is None  # not a proxied run: not scored


def test_every_real_model_probe_names_a_known_judge_with_valid_params():
    for s in load_library().values():
        for item, spec in (s.real_model.probes if s.real_model else {}).items():
            assert spec.judge in JUDGES, f"{s.id}: real_model.probes.{item}: {spec.judge}"
            make_judge(spec.judge, spec.params)


def test_real_command_annotates_logs_with_prefix_cache_figures(tmp_path, upstream):
    rc = main(["real", "--base-url", url(upstream), "--configs", "looplab",
               "--scenarios", "provider-bad-request-stops,provider-quota-fallback",
               "--sandbox", "local", "--log-dir", str(tmp_path / "logs"), "--no-report",
               "--display", "none"])
    assert rc == 0
    [info] = list_eval_logs(str(tmp_path / "logs"))
    figures = read_eval_log(info.name).eval.metadata[PREFIX_KEY]
    # one forwarded request (the quota fallback's) moved the counters by 10 queries, 4 hits
    assert (figures["queries"], figures["hits"]) == (10, 4)
    assert figures["hit_rate"] == pytest.approx(0.4)
    assert figures["cache_reset_before"] is True
    # the report reads them back, with the serving figures from the model events and usage
    [row] = serving_rows([info.name])
    assert row["config"] == "looplab" and row["prefix_hit_rate"] == pytest.approx(0.4)
    assert row["model_calls"] == 1 and row["output_tokens"] == 1
    assert row["cached_share"] == pytest.approx(4 / 7)  # the upstream's usage: 4 of 7 cached
    assert 0 <= row["harness_share"] <= 1


def test_real_command_says_when_no_server_answers(tmp_path, capsys):
    rc = main(["real", "--base-url", "http://127.0.0.1:9", "--sandbox", "local",
               "--log-dir", str(tmp_path / "logs")])
    assert rc == 2
    assert "make vllm" in capsys.readouterr().err


def test_prefix_reuse_is_judged_from_the_proxy(tmp_path, upstream):
    """The scenario's real-model conditions make every configuration run five turns; seed 004
    rebuilds its system prompt each turn, looplab keeps the prefix stable."""
    looplab = _run(tmp_path, upstream, "looplab", "prompt-prefix-stability")
    seed004 = _run(tmp_path, upstream, "seed004", "prompt-prefix-stability")
    assert len(looplab["proxy"]) == len(seed004["proxy"]) == 5
    assert looplab["items"]["prompt.prefix_stable"]["passed"] is True, looplab["items"]
    assert seed004["items"]["prompt.prefix_stable"]["passed"] is False, seed004["items"]
    assert seed004["items"]["prompt.prefix_stable"]["figure"] < 0.9


def test_profile_cooldown_order_is_judged_from_the_proxy(tmp_path, upstream):
    """Three keys of the fallback model, each rate-limited once with a different Retry-After:
    looplab waits for the soonest (key-b, 2 s); naive has no fallback chain at all."""
    looplab = _run(tmp_path, upstream, "looplab", "provider-profile-cooldown-order")
    verdict = looplab["items"]["provider.cooldown_order"]
    assert verdict["passed"] is True, (verdict, looplab["proxy"])
    assert [e["action"] for e in looplab["proxy"]][:4] == ["quota_exceeded"] + ["rate_limit"] * 3
    naive = _run(tmp_path, upstream, "naive", "provider-profile-cooldown-order")
    assert naive["items"]["provider.cooldown_order"]["passed"] is False
