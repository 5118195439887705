"""The whole real serving path on this machine's CPU: a tiny random-weight model made here, vLLM
started by ``vllm_serve.sh`` (tool parser, prefix caching), and ``python -m evals real`` driving a
provider scenario through the fault proxy. Needs the vLLM environment (``make vllm-env``); CI
installs it and sets ``LOOPLAB_REQUIRE_VLLM=1`` so that this test cannot be skipped there."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from inspect_ai.log import list_eval_logs, read_eval_log

from evals.cli import main
from evals.realmodel.server import PREFIX_KEY
from evals.state import ProxyLog, RunRecord, in_log

ROOT = Path(__file__).resolve().parents[2]
VLLM_PY = ROOT / ".venv-vllm" / "bin" / "python"
# One worker holds both tests, so the module-scoped server starts once (about 70 s of CPU).
pytestmark = [pytest.mark.vllm, pytest.mark.xdist_group("vllm")]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def vllm_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    model = tmp_path_factory.mktemp("model") / "tiny-llama"
    subprocess.run([str(VLLM_PY), "evals/realmodel/tiny_model.py", str(model)], cwd=ROOT,
                   check=True, capture_output=True, timeout=600)
    port = _free_port()
    # tiny_model.py gives the model the Hermes-style tool template: the hermes parser reads it.
    env = {**os.environ, "VLLM_SERVED_NAME": "tiny", "PYTHON": sys.executable,
           "VLLM_TOOL_PARSER": "hermes",
           "VLLM_EXTRA_ARGS": "--max-model-len 16384"}
    env.pop("VLLM_BASE_URL", None)
    started = subprocess.run(["bash", "evals/realmodel/vllm_serve.sh", str(model), str(port)],
                             cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    assert started.returncode == 0, started.stdout[-2000:] + started.stderr[-2000:]
    try:
        yield started.stdout.strip().splitlines()[-1]
    finally:
        subprocess.run(["bash", "evals/realmodel/vllm_serve.sh", "--stop", str(port)], cwd=ROOT,
                       capture_output=True, timeout=120)


def test_a_provider_scenario_through_the_proxy_against_vllm(vllm_server, tmp_path):
    rc = main(["real", "--base-url", vllm_server, "--configs", "naive,looplab",
               "--scenarios", "provider-quota-fallback", "--sandbox", "local",
               "--log-dir", str(tmp_path / "logs"), "--no-report", "--display", "none",
               "--max-tokens", "16"])
    assert rc == 0
    logs = {(lg := read_eval_log(info.name)).eval.task_args["config"]: lg
            for info in list_eval_logs(str(tmp_path / "logs"))}
    verdicts = {}
    for config, log in logs.items():
        [sample] = log.samples or []
        verdicts[config] = sample.scores["checklist"].metadata["items"]["provider.quota_fallback"]
        proxy_log = in_log(ProxyLog, sample).entries
        assert proxy_log[0]["action"] == "quota_exceeded" and proxy_log[0]["model"] == "tiny"
        figures = log.eval.metadata[PREFIX_KEY]
        assert figures["reason"] is None or config == "naive", figures
    # looplab fails over to the second served name, and vLLM answered it (the proxy saw a 200);
    # naive has no fallback chain and stops at the quota error.
    assert verdicts["looplab"]["passed"] is True, verdicts["looplab"]
    assert verdicts["naive"]["passed"] is False, verdicts["naive"]
    assert logs["looplab"].eval.metadata[PREFIX_KEY]["queries"] > 0


@pytest.mark.docker
def test_a_harness_spec_meets_a_proxied_fault_from_vllm(vllm_server, tmp_path):
    """``make real`` with a harness spec: looplab's harness runs in its container, its model is
    vLLM reached through the sample's fault proxy, and the proxy's 429s reach it with their
    Retry-After header and OpenAI body (the wire relay replays them) before vLLM answers."""
    rc = main(["real", "--base-url", vllm_server, "--configs", "looplab-sandboxed",
               "--scenarios", "provider-rate-limit-backoff", "--sandbox", "docker",
               "--log-dir", str(tmp_path / "logs"), "--no-report", "--display", "none",
               "--max-tokens", "16", "--max-samples", "1"])
    assert rc == 0
    [info] = list_eval_logs(str(tmp_path / "logs"))
    [sample] = read_eval_log(info.name).samples or []
    proxy_log = in_log(ProxyLog, sample).entries
    assert [e["action"] for e in proxy_log][:3] == ["rate_limit", "rate_limit", "forwarded"]
    assert proxy_log[2]["model"] == "tiny" and proxy_log[2]["status"] == 200  # vLLM answered
    tail = in_log(RunRecord, sample).run["output_tail"]
    assert tail.count("kind=rate_limit status=429 retry_after=1.0") == 2, tail
    verdict = sample.scores["checklist"].metadata["items"]["provider.rate_limit_backoff"]
    assert verdict["state"] == "pass", verdict
