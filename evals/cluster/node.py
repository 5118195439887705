"""A shard's eval, as it runs on a node of the cluster inside a Ray task, in a fresh worker
process (the driver asks for one task per process), so the environment it sets is its own.

A shard writes its inspect log into a temporary folder on its node and hands the file back as
its result: the driver writes it into the run's log directory. A shard lost with its node never
hands anything back, so its partial log never reaches the run; the run of it that finishes is
the only one there."""

from __future__ import annotations

import os
import signal
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from evals.cluster.shards import Shard, ShardRun
from evals.cluster.upkeep import Where, here
from evals.evaluate import SUITE_OPTIONS, run_evals
from evals.task import looplab_suite


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
    """The task body on the node: the eval and reading its log back (the worker process's start
    and its imports of looplab and inspect come before it)."""
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
