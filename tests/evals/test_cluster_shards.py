"""The parts of a cluster run that need no cluster: how a run is cut into shards, what travels to
the nodes, the log of a shard that handed none back as the reports read it, the flags' refusals,
and that a run without ``--ray`` never imports Ray."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from evals.cluster.shards import MIN_SHARD, ShardRun, forwarded_env, plan, shard_size
from evals.cluster.standin import write_standin
from reports.load import load_run
from tests.reports.logbuilder import Item, Run, write_run_log

ROOT = Path(__file__).resolve().parents[2]
IDS = [f"s{i:02d}" for i in range(10)]


def test_every_configuration_and_scenario_is_in_exactly_one_shard():
    shards = plan(["looplab", "naive"], IDS, 3)
    seen = Counter((s.config, sid) for s in shards for sid in s.scenarios)
    assert set(seen.values()) == {1}
    assert set(seen) == {(c, sid) for c in ("looplab", "naive") for sid in IDS}
    assert [s.index for s in shards] == list(range(len(shards)))
    assert max(len(s.scenarios) for s in shards) <= 3


def test_configurations_are_interleaved_and_scenarios_dealt_round_robin():
    shards = plan(["looplab", "naive"], IDS, 5)
    assert [s.config for s in shards] == ["looplab", "naive", "looplab", "naive"]
    # round-robin: neighbouring scenarios (often one family) land in different shards
    assert shards[0].scenarios == ("s00", "s02", "s04", "s06", "s08")
    assert shards[2].scenarios == ("s01", "s03", "s05", "s07", "s09")


def test_shards_take_the_servers_round_robin():
    shards = plan(["naive"], IDS, 2, base_urls=("http://a/v1", "http://b/v1"),
                  proxies=("http://a", "http://b"))
    assert [s.base_url for s in shards] == ["http://a/v1", "http://b/v1"] * 2 + ["http://a/v1"]
    assert [s.proxy for s in shards] == ["http://a", "http://b"] * 2 + ["http://a"]
    assert {s.base_url for s in plan(["naive"], IDS, 2)} == {""}


def test_shard_size_makes_two_shards_per_cpu_but_no_tiny_ones():
    # 460 scenarios, 2 configurations, 12 CPUs: 12 shards per configuration of 39
    assert shard_size(460, 2, 12) == 39
    # a small run on a big cluster: shards never drop below MIN_SHARD scenarios
    assert shard_size(10, 2, 64) == MIN_SHARD
    assert shard_size(3, 2, 64) == 3  # fewer scenarios than that: one shard each
    assert shard_size(460, 2, 12, given=5) == 5
    assert shard_size(0, 2, 4) == 1


def test_the_nodes_get_looplab_inspect_and_model_settings_only():
    env = forwarded_env({"LOOPLAB_SANDBOX_IMAGE": "img", "INSPECT_LOG_LEVEL": "info",
                         "VLLM_BASE_URL": "http://gpu:8000/v1", "OPENAI_API_KEY": "k",
                         "HOME": "/root", "PATH": "/bin", "SSH_AUTH_SOCK": "/tmp/x"})
    assert env == {"LOOPLAB_SANDBOX_IMAGE": "img", "INSPECT_LOG_LEVEL": "info",
                   "VLLM_BASE_URL": "http://gpu:8000/v1", "OPENAI_API_KEY": "k"}


def test_a_shard_without_a_log_shows_its_samples_as_errors_and_the_run_incomplete(tmp_path):
    # One shard of naive finished (a real log); the other never handed one back.
    write_run_log(tmp_path, "naive", [Run("s00", {"loop.identical_repeat": Item(False, 12)})],
                  planned=["s00"])
    [lost] = plan(["naive"], ["s00", "s01"], 1)[1:]
    run = ShardRun(model="scripted/suite", sandbox="docker", epochs=1, max_samples=4)
    log = write_standin(lost, run, "error", "shard 1 lost after 3 retries: NodeDiedError", tmp_path)
    assert log.status == "error" and log.eval.dataset.sample_ids == ["s01"]
    data = load_run(tmp_path)
    rows = data.samples.set_index("scenario_id")
    assert rows.loc["s00", "status"] == "scored"
    assert rows.loc["s01", "status"] == "error"
    assert "NodeDiedError" in rows.loc["s01", "error"]
    assert data.configs == ["naive"]  # both logs are one configuration


def _looplab(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evals", "run", *args], cwd=ROOT,
                          capture_output=True, text=True, timeout=300)


def test_ray_needs_the_docker_sandbox():
    res = _looplab("--ray", "auto", "--sandbox", "local", "--scenarios", "loop-ping-pong")
    assert res.returncode == 2, res.stderr
    assert "--ray" in res.stderr and "--sandbox local" in res.stderr


def test_several_urls_need_a_cluster():
    res = _looplab("--proxy", "http://a:8000,http://b:8000", "--scenarios", "loop-ping-pong")
    assert res.returncode == 2, res.stderr
    assert "--ray" in res.stderr


def test_an_address_where_no_cluster_answers_is_bad_input_named_at_once():
    # a port nothing listens on (bound, never listening): refused at once, not retried for minutes
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
        res = _looplab("--ray", f"127.0.0.1:{port}", "--scenarios", "loop-ping-pong", "--no-setup")
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"127.0.0.1:{port}" in res.stderr
    assert "no Ray cluster answers" in res.stderr or "needs Ray" in res.stderr


PROBE = """
import json, sys
from evals.cli import main
rc = main(sys.argv[1:])
print(json.dumps({"rc": rc, "ray": sorted(m for m in sys.modules if m == "ray" or m.startswith("ray.")),
                  "cluster": sorted(m for m in sys.modules if m.startswith("evals.cluster."))}))
"""


def test_a_run_without_the_flag_never_imports_ray(tmp_path):
    res = subprocess.run(
        [sys.executable, "-c", PROBE, "run", "--configs", "naive", "--scenarios",
         "loop-repeat-failing-command", "--sandbox", "local", "--processes", "1", "--no-report",
         "--display", "none", "--log-dir", str(tmp_path / "logs" / "run")],
        cwd=ROOT, capture_output=True, text=True, timeout=300)
    out = json.loads(res.stdout.strip().splitlines()[-1])
    assert out["rc"] == 0, res.stderr
    assert out["ray"] == []
    assert out["cluster"] == ["evals.cluster.shards"]  # the plan's arithmetic only: no Ray in it


@pytest.mark.parametrize("flag", ["--ray", "--shard-size", "--model-base-url", "--proxy"])
def test_the_cluster_flags_are_documented(flag):
    res = _looplab("--help")
    assert flag in res.stdout
