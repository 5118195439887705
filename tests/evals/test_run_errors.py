"""Errors are errors, for real: a sandbox container removed mid-run, a SIGINT to a running
`python -m evals run`, and `kill -9` of one (its containers are reaped by the next start)."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from sandboxes.docker_engine import api_client, remove_container

pytestmark = pytest.mark.docker
ROOT = Path(__file__).resolve().parents[2]
SLOW = "sessions-interrupt-long-command"
"""Under `naive` this scenario's command runs 10 s: long enough to break things under it."""


def _start(tmp_path: Path, scenarios: str = SLOW, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "evals", "run", "--configs", "naive", "--scenarios", scenarios,
         "--processes", "1", "--no-setup", "--no-report", "--display", "none",
         "--log-dir", str(tmp_path / "logs" / "run")],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **env}, start_new_session=True,
        # As from a terminal: a test runner started in the background may ignore SIGINT, and
        # its children would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _containers(**labels: str) -> list[dict]:
    filters = [f"{k}={v}" for k, v in labels.items()]
    return api_client().containers(all=True, filters={"label": filters})


def _wait_for_containers(proc: subprocess.Popen[str], **labels: str) -> list[dict]:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        found = _containers(**labels)
        if found:
            return found
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    raise AssertionError(f"no container with {labels} appeared")


def _samples(tmp_path: Path) -> list:
    from inspect_ai.log import read_eval_log

    logs = [read_eval_log(p) for p in glob.glob(str(tmp_path / "logs" / "run" / "*.eval"))]
    return [(lg, s) for lg in logs for s in (lg.samples or [])]


def test_a_container_removed_mid_run_errors_the_sample_and_the_exit_code(tmp_path):
    proc = _start(tmp_path)
    try:
        _wait_for_containers(proc, **{"looplab.owner.pid": str(proc.pid)})
        time.sleep(3)  # the sample is inside its 10-second command now
        for c in _containers(**{"looplab.owner.pid": str(proc.pid)}):
            remove_container(c["Id"])  # as `docker rm -f` by hand or another user's cleanup
        out, err = proc.communicate(timeout=180)
    finally:
        proc.kill()
    assert proc.returncode == 1, out + err
    assert "errored sample" in err and SLOW in err
    [(log, sample)] = _samples(tmp_path)
    assert sample.error is not None and "sandbox" in sample.error.message
    assert not sample.scores  # nothing judged: neither pass nor fail
    assert not (tmp_path / "logs" / "latest").exists()


def test_sigint_to_a_running_eval_exits_130_and_leaves_latest_alone(tmp_path):
    proc = _start(tmp_path)
    try:
        _wait_for_containers(proc, **{"looplab.owner.pid": str(proc.pid)})
        time.sleep(3)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, out + err
    assert not (tmp_path / "logs" / "latest").exists()
    for log, sample in _samples(tmp_path):  # whatever was written: no verdict on a broken run
        assert sample.error is not None or log.status != "success"
        assert sample.error is not None or not sample.scores
    assert not _containers(**{"looplab.owner.pid": str(proc.pid)})


def test_kill_9_leaves_containers_that_the_next_start_reaps(tmp_path):
    proc = _start(tmp_path)
    try:
        found = _wait_for_containers(proc, **{"looplab.owner.pid": str(proc.pid)})
        run = found[0]["Labels"]["looplab.run"]
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=30)
        assert _containers(**{"looplab.run": run}), "kill -9 left nothing: the test proves nothing"
        nxt = _start(tmp_path / "next", "loop-repeat-failing-command")
        out, err = nxt.communicate(timeout=300)
        assert nxt.returncode == 0, out + err
    finally:
        proc.kill()
    assert _containers(**{"looplab.run": run}) == []
