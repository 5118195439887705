"""A real multi-node Ray cluster on this one machine, all on loopback, for trying ``--ray`` here
and for the cluster tests and benchmark: every node at 127.0.0.1 with the ``docker`` resource,
sharing this machine's Docker engine.

    python -m evals.cluster.local --nodes 3      # prints the address; Ctrl-C stops the cluster

A driver reaches it with ``DRIVER_ENV`` set: Ray resolves ``127.0.0.1`` in a driver's address to
the machine's outward address unless told the machine is not part of a wider cluster
(``RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER=0``, the switch Ray reads for that), and nothing listens
there."""

from __future__ import annotations

import argparse
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from ray.cluster_utils import Cluster

from evals.cluster.shards import DOCKER_RESOURCE

LOOPBACK = "127.0.0.1"
DRIVER_ENV = {"RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER": "0"}


def node_args(cpus: int = 1) -> dict[str, Any]:
    return {"node_ip_address": LOOPBACK, "num_cpus": cpus, "resources": {DOCKER_RESOURCE: 1}}


@contextmanager
def local_cluster(cpus: tuple[int, ...] = (1, 1, 1)) -> Iterator[Cluster]:
    """A head and one more node per further entry of ``cpus`` (each node's CPUs); all stopped on
    exit."""
    cluster = Cluster(initialize_head=True,
                      head_node_args={**node_args(cpus[0]), "include_dashboard": False})
    try:
        for n in cpus[1:]:
            cluster.add_node(**node_args(n))
        yield cluster
    finally:
        cluster.shutdown()


def main() -> int:
    p = argparse.ArgumentParser(prog="python -m evals.cluster.local", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--nodes", type=int, default=3)
    p.add_argument("--cpus", type=int, default=1, help="CPUs each node offers (default 1)")
    args = p.parse_args()
    with local_cluster((args.cpus,) * max(1, args.nodes)) as cluster:
        env = " ".join(f"{k}={v}" for k, v in DRIVER_ENV.items())
        print(f"Ray cluster of {args.nodes} node(s) at {cluster.address}; run:\n"
              f"  {env} looplab run --ray {cluster.address} ...\n(Ctrl-C stops it)", flush=True)
        try:
            signal.pause()
        except KeyboardInterrupt:
            pass
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
