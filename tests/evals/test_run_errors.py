"""Errors are errors, for real: a sandbox container removed mid-run, a SIGINT to a running
`python -m evals run`, SIGTERM, SIGINT and SIGHUP to a run in one or two processes (every
process stops, no container is left), and `kill -9` of one (its containers are reaped by the
next start). Each signal lands while the scenario's command runs: the tests wait for the file
the command writes as it starts, in the container."""

from __future__ import annotations

import contextlib
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
"""Under `naive` (and `seed003`: no interrupt either) this scenario's command runs 10 s: long
enough to break things under it."""
STARTED = ["test", "-e", "/workspace/.looplab/export.started"]
"""Succeeds in a container once the scenario's command has started."""
DEADLINE_S = 600
"""For a run to reach its command: generous, the machine may be shared and loaded."""


def _start(tmp_path: Path, scenarios: str = SLOW, configs: str = "naive", processes: int = 1,
           *extra: str, **env: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "evals", "run", "--configs", configs, "--scenarios", scenarios,
         "--processes", str(processes), "--no-setup", "--no-report", "--display", "none",
         "--log-dir", str(tmp_path / "logs" / "run"), *extra],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, **env}, start_new_session=True,
        # As from a terminal: a test runner started in the background may ignore SIGINT, and
        # its children would inherit that.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))


def _containers(**labels: str) -> list[dict]:
    filters = [f"{k}={v}" for k, v in labels.items()]
    return api_client().containers(all=True, filters={"label": filters})


def _wait_for_containers(proc: subprocess.Popen[str], **labels: str) -> list[dict]:
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        found = _containers(**labels)
        if found:
            return found
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)  # polling a real event (the container exists), not waiting for one
    raise AssertionError(f"no container with {labels} appeared")


def _started(container_id: str) -> bool:
    client = api_client()
    try:
        exec_id = client.exec_create(container_id, STARTED)["Id"]
        client.exec_start(exec_id)
        return client.exec_inspect(exec_id)["ExitCode"] == 0
    except Exception:  # the container went away meanwhile: not started (yet)
        return False


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (Linux ``/proc``)."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        if int(fields[1]) == pid:
            found.add(int(stat.parent.name))
    return found


def _wait_inside_the_command(proc: subprocess.Popen[str], owners: int) -> set[int]:
    """The pids of the run's eval processes (``proc`` or its children), once a container of
    each one has started the scenario's command."""
    deadline = time.monotonic() + DEADLINE_S
    inside: set[int] = set()
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        pids = ({proc.pid} | _children(proc.pid)) - inside
        inside |= {int(c["Labels"]["looplab.owner.pid"])
                   for c in api_client().containers(filters={"label": "looplab.owner.pid"})
                   if int(c["Labels"]["looplab.owner.pid"]) in pids and _started(c["Id"])}
        if len(inside) == owners:
            return inside
        time.sleep(0.2)  # polling a real event (the command started), not waiting for one
    raise AssertionError(f"no {owners} eval process(es) reached the scenario's command")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def _samples(tmp_path: Path) -> list:
    from inspect_ai.log import read_eval_log

    logs = [read_eval_log(p) for p in glob.glob(str(tmp_path / "logs" / "run" / "*.eval"))]
    return [(lg, s) for lg in logs for s in (lg.samples or [])]


def test_a_container_removed_mid_run_errors_the_sample_and_the_exit_code(tmp_path):
    proc = _start(tmp_path)
    try:
        _wait_inside_the_command(proc, 1)
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
        _wait_inside_the_command(proc, 1)
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


@pytest.mark.parametrize("configs, to, sig, code", [
    ("naive,seed003", "parent", signal.SIGTERM, 143),  # `kill PID`, a supervisor, `timeout`
    ("naive,seed003", "group", signal.SIGINT, 130),  # Ctrl-C in the terminal
    ("naive", "parent", signal.SIGHUP, 129),  # the terminal closed, one process
], ids=["split-sigterm", "split-ctrl-c", "single-sighup"])
def test_a_signal_stops_every_process_of_the_run_and_leaves_no_container(tmp_path, configs, to,
                                                                         sig, code):
    n = len(configs.split(","))
    # Three epochs, one sample at a time in each process: each process runs its 10-second
    # command three times over, so every one is still running when the signal lands.
    proc = _start(tmp_path, SLOW, configs, n, "--epochs", "3", "--max-samples", str(n))
    try:
        owners = _wait_inside_the_command(proc, n)
        assert (proc.pid in owners) == (n == 1)  # two configurations: two child processes
        if to == "group":
            os.killpg(proc.pid, sig)
        else:
            proc.send_signal(sig)
        out, err = proc.communicate(timeout=DEADLINE_S)
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
    assert proc.returncode == code, out + err
    assert "interrupted" in err
    assert not [pid for pid in owners if _alive(pid)], "a process of the run outlived it"
    for pid in owners:
        assert not _containers(**{"looplab.owner.pid": str(pid)})
    assert not (tmp_path / "logs" / "latest").exists()


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
