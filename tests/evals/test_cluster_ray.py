"""``looplab run --ray`` on a real multi-node Ray cluster on this machine (``ray_local``: three
nodes on loopback sharing the Docker engine): the matrix's verdicts are those of the same run on
one machine; a node whose raylet is killed mid-shard loses nothing and counts nothing twice; Ctrl-C
on the driver stops every shard and leaves no container; a real model is reached by URL, each
sample through its own fault proxy.

The tests share one cluster (``xdist_group``: ``make test`` runs them on one worker with
``--dist loadgroup``). Nothing waits on time: each step waits for what it needs to see (a
shard's worker, its container), with generous deadlines for a loaded machine."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import Counter
from http.server import ThreadingHTTPServer
from pathlib import Path

import pytest
from inspect_ai.log import read_eval_log

if importlib.util.find_spec("ray") is None and not os.environ.get("LOOPLAB_REQUIRE_RAY"):
    pytest.skip("Ray not installed (pip install -e '.[ray]'; make test does)",
                allow_module_level=True)

from evals.cluster.driver import manifest  # noqa: E402  (imports Ray)
from evals.cluster.local import local_cluster  # noqa: E402
from reports.load import load_run  # noqa: E402
from sandboxes.docker_engine import api_client  # noqa: E402
from tests.evals import ray_local  # noqa: E402
from tests.evals.openai_upstream import Upstream, url  # noqa: E402

pytestmark = [pytest.mark.ray, pytest.mark.docker, pytest.mark.xdist_group("ray")]
ROOT = Path(__file__).resolve().parents[2]
CONFIGS = "naive,looplab"
SLOW = "sessions-interrupt-long-command"
"""Under ``naive`` its command runs 10 s: a shard holding it is mid-run long enough to act on."""
SCENARIOS = (SLOW, "loop-repeat-failing-command", "context-huge-output-tail-error",
             "destructive-spellings--find-delete")
RUN_S = 900
"""Deadline of one run on the cluster (a loaded two-core machine; minutes when idle)."""


@pytest.fixture(scope="module")
def cluster():
    with local_cluster((1, 1, 1)) as c:
        yield c


def _log_dir(tmp: Path) -> Path:
    """A run's log directory (its scorecard goes beside its logs, in ``report/``)."""
    return tmp / "logs" / f"ray-test-{uuid.uuid4().hex[:8]}"


@pytest.fixture(scope="module")
def single_machine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The matrix run on this machine, without Ray: the verdicts a cluster run must match."""
    log_dir = _log_dir(tmp_path_factory.mktemp("single"))
    res = _looplab(log_dir, "--processes", "1")
    assert res.returncode == 0, res.stdout + res.stderr
    return log_dir


def _args(log_dir: Path, *extra: str, scenarios: tuple[str, ...] = SCENARIOS) -> list[str]:
    return [sys.executable, "-m", "evals", "run", "--configs", CONFIGS,
            "--scenarios", ",".join(scenarios), "--log-dir", str(log_dir), "--display", "none",
            "--max-samples", "4", *extra]


def _looplab(log_dir: Path, *extra: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(_args(log_dir, *extra), cwd=ROOT, capture_output=True, text=True,
                          env=ray_local.driver_env(**env), timeout=RUN_S)


def _start(log_dir: Path, *extra: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        _args(log_dir, *extra), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        text=True, env=ray_local.driver_env(**env), start_new_session=True,
        # As from a terminal: a test runner started in the background may ignore SIGINT, and
        # its children would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _verdicts(log_dir: Path) -> set[tuple]:
    items = load_run(log_dir.resolve()).items
    return set(zip(items["config"], items["scenario_id"], items["epoch"], items["item"],
                   items["state"], strict=True))


def _samples(log_dir: Path) -> Counter:
    """(configuration, scenario, epoch) → in how many samples of the run's logs it appears."""
    seen: Counter = Counter()
    for path in log_dir.glob("*.eval"):
        log = read_eval_log(str(path))
        for s in log.samples or []:
            seen[(log.eval.task_args["config"], str(s.id), s.epoch)] += 1
    return seen


def _containers(namespace: str) -> list[dict]:
    return api_client().containers(all=True, filters={"label": f"looplab.sandbox={namespace}"})


def _wait_for(what: str, found, proc: subprocess.Popen[str], seconds: float = RUN_S):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = found()
        if value:
            return value
        if proc.poll() is not None:
            raise AssertionError(f"the run ended before {what}: " + "".join(proc.communicate()))
        time.sleep(0.2)
    raise AssertionError(f"no {what} within {seconds} s")


def test_a_cluster_run_has_the_verdicts_and_scorecard_of_a_single_machine_run(
        cluster, single_machine, tmp_path):
    log_dir = _log_dir(tmp_path)
    res = _looplab(log_dir, "--ray", cluster.address, "--shard-size", "2")
    assert res.returncode == 0, res.stdout + res.stderr
    lines = manifest(log_dir)
    assert len(lines) == 4 and all(ln["status"] == "success" for ln in lines), lines
    assert len({ln["node_id"] for ln in lines}) >= 2, "the shards did not spread over the nodes"
    assert _verdicts(log_dir) == _verdicts(single_machine)
    assert set(_samples(log_dir).values()) == {1}
    assert len(_samples(log_dir)) == 2 * len(SCENARIOS)
    # The same scorecard: its summary table and every item's verdict per configuration (the
    # figures beside them include seconds, which no two runs share).
    assert _scorecard(log_dir) == _scorecard(single_machine)
    assert "INCOMPLETE" not in res.stdout


def _scorecard(log_dir: Path) -> tuple[list[str], list[list[str]]]:
    text = (log_dir / "report" / "scorecard.md").read_text(encoding="utf-8")
    summary = text.split("## Summary", 1)[1].split("![", 1)[0].strip().splitlines()
    items = text.split("## Checklist items", 1)[1].split("Not probed", 1)[0]
    rows = [[cell.split("·")[0].strip() for cell in row.split("|")]
            for row in items.splitlines() if row.startswith("| `")]
    return summary, rows


def test_a_lost_node_loses_no_shard_and_judges_no_sample_twice(cluster, single_machine, tmp_path):
    victim = ray_local.add_node(cluster)
    namespace = f"looplab-test-lost-{tmp_path.name}"
    log_dir = _log_dir(tmp_path)
    proc = _start(log_dir, "--ray", cluster.address, "--shard-size", "2", "--no-setup",
                  LOOPLAB_SANDBOX_NAMESPACE=namespace)
    try:
        def mid_run() -> dict[int, str]:
            # A shard on the victim whose eval has a sandbox: it is inside its samples. Its
            # samples take seconds (one runs a 10-second command): killed while they run.
            owners = {c["Labels"].get("looplab.owner.pid") for c in _containers(namespace)}
            return {pid: name for pid, name in ray_local.shard_workers(victim).items()
                    if str(pid) in owners}
        [(pid, killed)] = list(_wait_for("shard mid-run on the added node", mid_run, proc).items())[:1]
        victim.kill_raylet()
        out, err = proc.communicate(timeout=RUN_S)
    finally:
        proc.kill()
        cluster.remove_node(victim, allow_graceful=False)
    assert proc.returncode == 0, out + err
    lines = {ln["name"]: ln for ln in manifest(log_dir)}
    assert len(lines) == 4 and all(ln["status"] == "success" for ln in lines.values()), lines
    assert lines[killed]["node_id"] != victim.node_id, "the killed shard did not run again elsewhere"
    assert set(_samples(log_dir).values()) == {1}, "a sample was judged twice"
    assert _verdicts(log_dir) == _verdicts(single_machine)
    assert not _containers(namespace)


def test_ctrl_c_stops_every_shard_and_leaves_no_container(cluster, tmp_path):
    namespace = f"looplab-test-sigint-{tmp_path.name}"
    log_dir = _log_dir(tmp_path)
    proc = _start(log_dir, "--ray", cluster.address, "--shard-size", "1", "--no-setup",
                  LOOPLAB_SANDBOX_NAMESPACE=namespace)
    try:
        _wait_for("container of the run", lambda: _containers(namespace), proc)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=RUN_S)
    finally:
        proc.kill()
    assert proc.returncode == 130, out + err
    assert "interrupted: stopping" in err
    assert "INCOMPLETE run" in out  # the scorecard's banner: written, and marked
    assert not _containers(namespace)
    deadline = time.monotonic() + 120  # the workers of cancelled shards exit after their task
    while ray_local.all_shard_workers() and time.monotonic() < deadline:
        time.sleep(0.5)
    assert not ray_local.all_shard_workers()
    lines = manifest(log_dir)
    assert len(lines) == 2 * len(SCENARIOS)  # every shard has a log: its own or a stand-in
    assert any(ln["status"] == "cancelled" for ln in lines)
    assert not (log_dir.parent / "latest").exists()


@pytest.fixture
def servers():
    """Two real local OpenAI-style servers (``openai_upstream``), as two vLLM replicas."""
    out = []
    for _ in range(2):
        server = ThreadingHTTPServer(("127.0.0.1", 0), Upstream)
        server.seen = []  # type: ignore[attr-defined]
        server.counters = (0, 0)  # type: ignore[attr-defined]
        threading.Thread(target=server.serve_forever, daemon=True).start()
        out.append(server)
    yield out
    for server in out:
        server.shutdown()
        server.server_close()


def test_shards_reach_real_servers_by_url_through_a_fault_proxy_per_sample(
        cluster, servers, tmp_path):
    log_dir = _log_dir(tmp_path)
    cmd = _args(log_dir, "--ray", cluster.address, "--shard-size", "1", "--no-setup",
                "--model", "openai-api/vllm/m1", "--fallbacks", "openai-api/vllm/m1-fallback",
                "--proxy", ",".join(url(s) for s in servers),
                scenarios=("provider-quota-fallback", "provider-auth-fallback"))
    cmd[cmd.index("--configs") + 1] = "looplab"
    res = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=RUN_S,
                         env=ray_local.driver_env(VLLM_BASE_URL=url(servers[0]) + "/v1",
                                                  VLLM_API_KEY="looplab"))
    assert res.returncode == 0, res.stdout + res.stderr
    # Shard i took server i: each replica served one shard's samples.
    assert all(s.seen for s in servers), [len(s.seen) for s in servers]  # type: ignore[attr-defined]
    states = {(r["scenario_id"], r["item"]): r["state"]
              for r in load_run(log_dir.resolve()).items.to_dict("records")}
    assert states[("provider-quota-fallback", "provider.quota_fallback")] == "pass", states
    assert states[("provider-auth-fallback", "provider.auth_fallback")] == "pass", states
