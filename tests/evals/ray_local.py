"""Helpers for the cluster tests on a loopback Ray cluster (``evals.cluster.local``): nodes
added and killed, and the worker processes that run shards, found by their process titles."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from evals.cluster.local import DRIVER_ENV, node_args


def add_node(cluster: Any) -> Any:
    return cluster.add_node(**node_args())


def raylet_pid(node: Any) -> int:
    return int(node.all_processes["raylet"][0].process.pid)


def shard_workers(node: Any) -> dict[int, str]:
    """The worker processes of ``node`` running a shard: pid → shard name (Ray titles a worker
    ``ray::<task name>`` while it runs a task)."""
    parent = str(raylet_pid(node))
    found = {}
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            stat = (proc / "stat").read_text()
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        ppid = stat.rsplit(")", 1)[-1].split()[1]
        if ppid == parent and cmdline.startswith("ray::looplab-shard-"):
            found[int(proc.name)] = cmdline.split("\0")[0].removeprefix("ray::").strip()
    return found


def all_shard_workers() -> list[str]:
    """Every process on this machine titled as a running shard."""
    names = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().decode(errors="replace")
        except OSError:
            continue
        if cmdline.startswith("ray::looplab-shard-"):
            names.append(f"{proc.name} {cmdline.split(chr(0))[0]}")
    return names


def driver_env(**extra: str) -> dict[str, str]:
    return {**os.environ, **DRIVER_ENV, **extra}
