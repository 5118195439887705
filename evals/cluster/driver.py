"""A looplab run spread over a Ray cluster (``looplab run --ray ADDRESS``).

Each shard (``evals.cluster.shards``) is one Ray task on a node that offers the ``docker``
resource; Ray places the tasks, runs a shard again elsewhere when its node is lost (up to
``RETRIES`` times), and cancels them; looplab schedules nothing itself. The driver writes the
log every shard hands back into the run's one log directory, and a stand-in log for a shard that
handed none back (``evals.cluster.standin``), so ``evals.runs`` judges the run's outcome and
writes its scorecard as for a run on one machine.

Ctrl-C cancels every shard (a KeyboardInterrupt in its eval: inspect stops its samples, removes
their containers and writes a cancelled log, which the shard still hands back); shards still
running after ``STOP_GRACE_S`` are killed. Then, after every run, each node removes whatever
container of the run is left (``evals.cluster.upkeep.sweep_node``), so none stays behind.
"""

from __future__ import annotations

import json
import logging
import socket
import sys
import time
import uuid
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import ray
from inspect_ai.log import EvalLog, read_eval_log
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from evals.cluster.node import ShardResult, run_shard
from evals.cluster.shards import DOCKER_RESOURCE, DOCKER_SHARE, Shard, ShardRun
from evals.cluster.standin import write_standin
from evals.cluster.upkeep import prepare_node, sweep_node

RETRIES = 3
"""Times Ray runs a shard again when its worker or node is lost (Ray's own default for tasks)."""
POLL_S = 1.0
"""The driver's waits return at least this often, so that Ctrl-C reaches it at once."""
STOP_GRACE_S = 120.0
"""After Ctrl-C, how long shards get to stop their samples and write their logs."""
NODE_TASK_S = 900.0
"""Longest a node's set-up (it may install Docker and build the image) or sweep may take."""
CONNECT_S = 10.0
MANIFEST = "shards.jsonl"
"""Beside the logs: one line per shard (node, status, log file, timings). Not a log file."""
NAMESPACE = "LOOPLAB_SANDBOX_NAMESPACE"

# One task per worker process: a shard's environment, inspect's state and the sandbox
# provider's tracked containers are its own.
_run_shard = ray.remote(max_calls=1)(run_shard)
_prepare_node = ray.remote(max_calls=1, num_cpus=0, max_retries=0)(prepare_node)
_sweep_node = ray.remote(max_calls=1, num_cpus=0, max_retries=0)(sweep_node)


class ClusterError(ValueError):
    """The cluster cannot run the evals (no answer at the address, no node with Docker, a node
    whose sandbox set-up fails): the command line prints it and exits 2; nothing ran."""


@dataclass(frozen=True)
class Node:
    node_id: str
    ip: str
    cpus: float


class RayCluster:
    """A connection to a Ray cluster and the nodes of it that offer Docker."""

    def __init__(self, address: str) -> None:
        self.address = address
        _check_reachable(address)
        try:
            ray.init(address=address, namespace="looplab", logging_level=logging.WARNING)
        except Exception as e:  # ConnectionError, RuntimeError, ValueError (ray[client] missing)
            raise ClusterError(f"--ray {address}: cannot connect: {_gist(e)}") from e
        self.nodes = docker_nodes()
        if not self.nodes:
            ray.shutdown()
            raise ClusterError(
                f"--ray {address}: no live node of the cluster offers the {DOCKER_RESOURCE!r} "
                f"resource; start the nodes that have Docker with "
                f"`ray start ... --resources='{{\"{DOCKER_RESOURCE}\": 1}}'` (docs/cluster.md)")

    @property
    def cpus(self) -> float:
        return sum(n.cpus for n in self.nodes)

    def describe(self) -> str:
        return f"Ray cluster {self.address}: {len(self.nodes)} node(s) with Docker, {self.cpus:g} CPUs"

    def prepare(self, env: dict[str, str]) -> None:
        """``sandboxes/setup.sh`` on every node, at once; a node that fails is named."""
        refs = [_prepare_node.options(scheduling_strategy=_on(n)).remote(env) for n in self.nodes]
        failed = []
        for node, ref in zip(self.nodes, refs, strict=True):
            try:
                where, rc, tail = ray.get(ref, timeout=NODE_TASK_S)
            except ray.exceptions.RayError as e:
                failed.append(f"node {node.ip} ({node.node_id[:8]}): {_gist(e)}")
                continue
            if rc != 0:
                failed.append(f"node {where}: sandboxes/setup.sh exited {rc}:\n{tail}")
        if failed:
            raise ClusterError("no usable Docker engine or sandbox image on "
                               + "; ".join(failed))

    def run(self, shards: list[Shard], run: ShardRun, log_dir: Path) -> tuple[list[EvalLog], bool]:
        """Every shard as a Ray task: their logs (or stand-ins), written into ``log_dir``, in
        shard order, and whether Ctrl-C stopped them."""
        namespace = run.env.get(NAMESPACE) or f"run-{log_dir.name}-{uuid.uuid4().hex[:6]}"
        run = replace(run, env={**run.env, NAMESPACE: namespace})
        try:
            gathered = _Gathering(shards, run, log_dir)
            gathered.wait()
            return [gathered.logs[s.index] for s in shards], gathered.interrupted
        finally:
            sweep(namespace)
            ray.shutdown()


class _Gathering:
    """The shards of one run in flight: submitted, waited for, collected one by one."""

    def __init__(self, shards: list[Shard], run: ShardRun, log_dir: Path) -> None:
        self.run, self.log_dir = run, log_dir
        self.logs: dict[int, EvalLog] = {}
        self.interrupted = False
        self.submitted, self.submitted_at = time.monotonic(), time.time()
        self.refs = {
            _run_shard.options(name=s.name, num_cpus=1, resources={DOCKER_RESOURCE: DOCKER_SHARE},
                               max_retries=RETRIES, retry_exceptions=False).remote(s, run): s
            for s in shards}

    def wait(self) -> None:
        pending = list(self.refs)
        try:
            while pending:
                done, pending = ray.wait(pending, num_returns=1, timeout=POLL_S)
                for ref in done:
                    self.collect(ref)
        except KeyboardInterrupt:
            self.interrupted = True
            left = [r for r, s in self.refs.items() if s.index not in self.logs]
            print(f"\nlooplab: interrupted: stopping {len(left)} shard(s) on the cluster "
                  "(Ctrl-C again to kill them at once)", file=sys.stderr, flush=True)
            stop(left)
            for ref in left:
                self.collect(ref)

    def collect(self, ref: Any) -> None:
        """The shard's log, written into the run's directory; a stand-in when it has none."""
        shard = self.refs[ref]
        if shard.index in self.logs:
            return
        line: dict[str, Any] = {"shard": shard.index, "name": shard.name, "config": shard.config,
                                "scenarios": list(shard.scenarios),
                                "submitted_at": round(self.submitted_at, 3)}
        try:
            result: ShardResult = ray.get(ref, timeout=POLL_S if self.interrupted else None)
        except ray.exceptions.TaskCancelledError:
            log = self.standin(shard, "cancelled", "cancelled: the run was interrupted (Ctrl-C)")
        except ray.exceptions.RayTaskError as e:  # an exception in the shard's own code
            why = _gist(e.cause if e.cause is not None else e)
            log = (self.standin(shard, "cancelled", f"cancelled: {why}") if self.interrupted
                   else self.standin(shard, "error", f"shard {shard.index} failed: {why}"))
        except (ray.exceptions.RayError, TimeoutError) as e:  # lost more often than RETRIES
            log = (self.standin(shard, "cancelled", "cancelled: the run was interrupted (Ctrl-C)")
                   if self.interrupted else
                   self.standin(shard, "error", f"shard {shard.index} lost after {RETRIES} "
                                f"retries: {_gist(e)}"))
        else:
            path = self.log_dir / result.log_name
            path.write_bytes(result.log_bytes)
            log = read_eval_log(str(path))
            line.update(node_id=result.where.node_id, ip=result.where.ip, host=result.where.host,
                        pid=result.pid, started_at=round(result.started_at, 3),
                        body_s=round(result.body_s, 3),
                        eval_s=round(result.eval_s, 3))
        round_trip = time.monotonic() - self.submitted
        line.update(status=log.status, log=Path(log.location).name, round_trip_s=round(round_trip, 3))
        if log.error is not None and log.status != "success":
            line["why"] = log.error.message
        self.logs[shard.index] = log
        with (self.log_dir / MANIFEST).open("a", encoding="utf-8") as f:
            f.write(json.dumps(line) + "\n")
        where = f" on {line['ip']} (node {line['node_id'][:8]})" if "ip" in line else ""
        print(f"looplab: shard {shard.index + 1}/{len(self.refs)} {shard.config} "
              f"({len(shard.scenarios)} scenarios): {log.status}{where} at {round_trip:.1f} s",
              flush=True)

    def standin(self, shard: Shard, status: Any, why: str) -> EvalLog:
        return write_standin(shard, self.run, status, why, self.log_dir)


def stop(refs: list) -> None:
    """Cancel ``refs``: a KeyboardInterrupt in each running shard, then, for those still running
    after ``STOP_GRACE_S`` (or at a second Ctrl-C), their worker killed."""
    for ref in refs:
        ray.cancel(ref, force=False)
    pending = list(refs)
    deadline = time.monotonic() + STOP_GRACE_S
    try:
        while pending and time.monotonic() < deadline:
            _, pending = ray.wait(pending, num_returns=len(pending), timeout=POLL_S)
    except KeyboardInterrupt:
        pass
    for ref in pending:
        ray.cancel(ref, force=True)


def sweep(namespace: str) -> None:
    """Each live node removes the run's containers that are left (normally none)."""
    nodes = docker_nodes()
    refs = [_sweep_node.options(scheduling_strategy=_on(n)).remote(namespace) for n in nodes]
    for node, ref in zip(nodes, refs, strict=True):
        try:
            where, removed = ray.get(ref, timeout=NODE_TASK_S)
        except ray.exceptions.RayError as e:
            print(f"looplab: could not sweep node {node.ip} ({node.node_id[:8]}) for containers "
                  f"of the run: {_gist(e)}", file=sys.stderr)
            continue
        if removed:
            print(f"looplab: removed {len(removed)} container(s) left on node {where}",
                  file=sys.stderr)


def docker_nodes() -> list[Node]:
    """The live nodes that offer the ``docker`` resource."""
    return [Node(n["NodeID"], n.get("NodeManagerAddress", ""), float(n["Resources"].get("CPU", 0)))
            for n in ray.nodes()
            if n.get("Alive") and n.get("Resources", {}).get(DOCKER_RESOURCE)]


def _on(node: Node) -> NodeAffinitySchedulingStrategy:
    return NodeAffinitySchedulingStrategy(node.node_id, soft=False)


def _check_reachable(address: str) -> None:
    """Fail fast, naming the address, when nothing listens there: Ray itself retries a dead
    address for minutes."""
    host_port = _bootstrap(address)
    if host_port is None:
        return
    host, _, port = host_port.rpartition(":")
    try:
        socket.create_connection((host.strip("[]"), int(port)), timeout=CONNECT_S).close()
    except (OSError, ValueError) as e:
        raise ClusterError(
            f"--ray {address}: no Ray cluster answers at {host_port} ({e}); start one "
            f"(`ray start --head --resources='{{\"{DOCKER_RESOURCE}\": 1}}'`) or see docs/cluster.md"
        ) from None


def _bootstrap(address: str) -> str | None:
    """``host:port`` that ``address`` names, or None when only Ray can tell."""
    if address.startswith("ray://"):
        return address.removeprefix("ray://").split("/", 1)[0]
    if address == "auto":
        try:
            # Ray's own reading of where `ray start` recorded the cluster it started here: a
            # private helper, hence the broad except below.
            from ray._private.services import get_ray_address_from_environment

            return get_ray_address_from_environment("auto", None)
        except Exception:  # a private helper: when it moves or finds nothing, Ray says why
            return None
    return address if ":" in address else None


def _gist(e: BaseException) -> str:
    lines = [ln for ln in str(e).strip().splitlines() if ln.strip()]
    return f"{type(e).__name__}: {lines[-1] if lines else ''}".strip()


def manifest(log_dir: Path) -> list[dict]:
    """The shard lines a cluster run wrote beside its logs."""
    path = log_dir / MANIFEST
    if not path.exists():
        return []
    return [json.loads(ln) for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]

