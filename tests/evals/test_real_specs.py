"""Harness specs against a real server through the fault proxy: the harness runs in its container,
the bridge's model calls go through the sample's proxy, and a fault the proxy plays reaches the
harness with its status, headers and provider body (``evals.realmodel.bridge_models``). The
upstream is a real local OpenAI-style server (``openai_upstream``); the vLLM run is in
``test_vllm_integration.py``."""

from __future__ import annotations

import argparse
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval

from evals.realmodel.bridge_models import harness_fallbacks
from evals.realmodel.server import RealModelError
from evals.runs import RunError, real_configs, run_bench
from evals.state import ProxyLog, RunRecord, in_log
from evals.task import looplab_suite
from scenarios.loader import get_scenario
from tests.evals.openai_upstream import url


def test_fallback_names_keep_the_scripted_names_and_their_keys() -> None:
    cooldown = get_scenario("provider-profile-cooldown-order")
    real = harness_fallbacks(cooldown, ["openai-api/vllm/m1-fallback"])
    assert real == {f"backup@key-{k}": f"openai-api/vllm/m1-fallback@key-{k}" for k in "abc"}
    # a role the server has no model for is not offered to the harness at all
    assert harness_fallbacks(get_scenario("provider-quota-fallback"), []) == {}


def test_real_refuses_what_cannot_go_through_the_proxy() -> None:
    with pytest.raises(RealModelError, match="--configs: inspect-react"):
        real_configs(["looplab", "inspect-react"], everything=False, sandbox="docker")
    with pytest.raises(RealModelError, match="--sandbox local: harness specs"):
        real_configs(["naive", "openai-agents"], everything=False, sandbox="local")
    assert real_configs(["naive", "inspect-react", "openai-agents"], everything=True,
                        sandbox="docker") == ["naive", "openai-agents"]


def test_bench_refuses_overrides_for_a_harness_spec() -> None:
    args = argparse.Namespace(configs="looplab,mini-swe-agent", overrides="context_window=2048",
                              epochs=1, max_samples=1)
    with pytest.raises(RunError, match="--overrides: not supported for harness spec"):
        run_bench(args)


@pytest.mark.docker
def test_a_rate_limit_reaches_the_sandboxed_harness_as_sent(
        tmp_path: Path, upstream: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("VLLM_BASE_URL", url(upstream) + "/v1")
    monkeypatch.setenv("VLLM_API_KEY", "looplab")
    task = looplab_suite(config="looplab-sandboxed", scenarios="provider-rate-limit-backoff",
                         sandbox="docker", proxy=url(upstream))
    [log] = inspect_eval(task, model="openai-api/vllm/m1", model_args={"max_retries": 0},
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    [sample] = log.samples or []
    proxy = in_log(ProxyLog, sample).entries
    assert [e["action"] for e in proxy] == ["rate_limit", "rate_limit", "forwarded"]
    # the harness in the container classified a 429 with the Retry-After header and the body's
    # OpenAI text, not a bridge error: status, header and body all reached it
    tail = in_log(RunRecord, sample).run["output_tail"]
    assert tail.count("kind=rate_limit status=429 retry_after=1.0") == 2, tail
    assert "Rate limit reached for m1" in tail
    verdict = sample.scores["checklist"].metadata["items"]["provider.rate_limit_backoff"]
    assert verdict["state"] == "pass", verdict
    assert len(upstream.seen) == 1  # type: ignore[attr-defined]  # nothing retried behind its back


@pytest.mark.docker
def test_transport_faults_and_an_overflow_reach_the_sandboxed_harness(
        tmp_path: Path, upstream: ThreadingHTTPServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """A reset connection and a stall (one sample), a vLLM context-overflow 400 (another): the
    harness's own client meets each one; inspect neither retries them nor turns the 400 into an
    empty reply."""
    from inspect_ai import Task
    from inspect_ai.dataset import Sample

    from evals.harnesses.bridge_agent import bridge_agent
    from evals.harnesses.configs import spec_sandbox
    from evals.harnesses.spec import get_spec
    from scenarios.schema import FaultRule, RealModelSpec

    monkeypatch.setenv("VLLM_BASE_URL", url(upstream) + "/v1")
    monkeypatch.setenv("VLLM_API_KEY", "looplab")
    base = get_scenario("provider-rate-limit-backoff")
    schedules = {
        "transport": [FaultRule(model="primary", kind="connection_reset", from_call=1, until_call=1),
                      FaultRule(model="primary", kind="stall", from_call=2, until_call=2, stall_s=2)],
        "overflow": [FaultRule(model="primary", kind="context_overflow", from_call=1, until_call=1)]}
    scenarios = {k: base.model_copy(update={"dialect": "vllm", "real_model": RealModelSpec(faults=f)})
                 for k, f in schedules.items()}
    task = Task(dataset=[Sample(id=k, input=base.prompt, metadata={"scenario_id": base.id})
                         for k in schedules],
                solver=bridge_agent(get_spec("looplab-sandboxed"), proxy=url(upstream),
                                    scenario_of=lambda state: scenarios[str(state.sample_id)]),
                sandbox=spec_sandbox("looplab-sandboxed", "docker"))
    [log] = inspect_eval(task, model="openai-api/vllm/m1", model_args={"max_retries": 0},
                         log_dir=str(tmp_path / "logs"), display="none")
    assert log.status == "success", log.error
    runs = {str(s.id): (in_log(ProxyLog, s).entries, in_log(RunRecord, s).run["output_tail"])
            for s in log.samples or []}
    proxy, tail = runs["transport"]
    assert [e["action"] for e in proxy][:2] == ["connection_reset", "stall"], (proxy, tail)
    assert tail.count("kind=timeout status=None") == 2, tail  # both met as transport failures
    proxy, tail = runs["overflow"]
    assert proxy[0]["action"] == "context_overflow", proxy
    assert "kind=context_overflow status=400" in tail, tail
    assert "maximum context length" in tail, tail  # vLLM's own wording, from the relay
