"""What each node of the cluster does around a run's shards, inside small Ray tasks: set up its
sandboxes before them, remove the run's leftover containers after them. Kept apart from the
shard's eval (``evals.cluster.node``) so that these tasks' fresh worker processes import neither
looplab's eval stack nor inspect for the set-up (seconds each on a busy node)."""

from __future__ import annotations

import os
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import ray

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
    # Only here: the set-up task needs none of it, and it imports inspect.
    from sandboxes.docker_cleanup import reap_orphans, remove_labelled

    return here(), remove_labelled(None) + reap_orphans()
