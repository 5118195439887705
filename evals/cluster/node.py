"""What runs on a node of the cluster, inside a Ray task: a shard's eval, the node's sandbox
set-up, and the sweep of a run's containers. Each runs in a fresh worker process (the driver
asks for one task per process), so the environment a shard sets is its own.

A shard writes its inspect log into a temporary folder on its node and hands the file back as
its result: the driver writes it into the run's log directory. A shard lost with its node never
hands anything back, so its partial log never reaches the run; the run of it that finishes is
the only one there."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import ray

from evals.cluster.shards import Shard, ShardRun
from evals.evaluate import SUITE_OPTIONS, run_evals
from evals.task import looplab_suite
from sandboxes.docker_cleanup import reap_orphans, remove_labelled

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "sandboxes" / "setup.sh"
TAIL_CHARS = 2000


@dataclass(frozen=True)
class Where:
    """A node, as messages name it."""

    node_id: str
    ip: str
    host: str

    def __str__(self) -> str:
        return f"{self.ip} (node {self.node_id[:8]})"


def here() -> Where:
    return Where(ray.get_runtime_context().get_node_id(), ray.util.get_node_ip_address(),
                 socket.gethostname())


@dataclass(frozen=True)
class ShardResult:
    """A finished shard: its log file and where and how long it ran (node's clock)."""

    index: int
    log_name: str
    log_bytes: bytes
    where: Where
    pid: int
    started_at: float
    """When the task body began (``time.time()`` on the node)."""
    body_s: float
    """The whole task body on the node: imports, the eval, reading the log back."""
    eval_s: float
    """inspect's eval alone."""


def run_shard(shard: Shard, run: ShardRun) -> ShardResult:
    """Run ``shard``'s eval on this node with its sandboxes; hand its log back."""
    t0, started_at = time.monotonic(), time.time()
    os.environ.update(run.env)  # read when the eval starts: sandbox namespace, base URLs, keys
    if threading.current_thread() is threading.main_thread():
        # Ray cancels a running task by interrupting its main thread as SIGINT would; a node
        # started in the background (nohup, a service) hands its workers SIGINT ignored, which
        # would leave the eval deaf to it. With the default handler inspect stops its samples,
        # removes their containers and writes a cancelled log, as on Ctrl-C on one machine.
        signal.signal(signal.SIGINT, signal.default_int_handler)
    task = looplab_suite(config=shard.config, scenarios=",".join(shard.scenarios),
                         sandbox=run.sandbox, fallbacks=run.fallbacks, proxy=shard.proxy)
    with tempfile.TemporaryDirectory(prefix="looplab-shard-") as tmp:
        started = time.monotonic()
        [log] = run_evals(task, model=run.model, log_dir=Path(tmp), max_samples=run.max_samples,
                          display="none", epochs=run.epochs, model_base_url=shard.base_url or None,
                          **SUITE_OPTIONS)
        eval_s = time.monotonic() - started
        path = Path(log.location)
        data = path.read_bytes()
    return ShardResult(index=shard.index, log_name=path.name, log_bytes=data, where=here(),
                       pid=os.getpid(), started_at=started_at, body_s=time.monotonic() - t0,
                       eval_s=eval_s)


def prepare_node(env: dict[str, str]) -> tuple[Where, int, str]:
    """``sandboxes/setup.sh`` on this node (engine, base image, sandbox image; idempotent):
    where, its exit code and the tail of its output."""
    res = subprocess.run(["bash", str(SETUP)], capture_output=True, text=True,
                         env={**os.environ, **env}, cwd=ROOT)
    return here(), res.returncode, (res.stdout + res.stderr)[-TAIL_CHARS:]


def sweep_node(namespace: str) -> tuple[Where, list[str]]:
    """Remove the run's containers on this node (its sandbox namespace) and those of runs that
    are gone (``sandboxes.docker_cleanup``); the names removed."""
    os.environ["LOOPLAB_SANDBOX_NAMESPACE"] = namespace  # what remove_labelled removes
    return here(), remove_labelled(None) + reap_orphans()
