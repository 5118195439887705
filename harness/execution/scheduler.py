"""Wave scheduling of one turn's tool calls (seed 003 ``ToolScheduler``).

Consecutive READ_ONLY calls whose resource keys do not overlap form one parallel wave; a
LOCAL_WRITE, NETWORK or DESTRUCTIVE call (or a call to an unknown tool) is a wave of its own, so
two writers never interleave and a read never races a write. Waves keep the model's order, and
results are appended in that order whatever finishes first.

Source: seed 003, ``ToolScheduler`` "READ_ONLY ... parallel wave; LOCAL_WRITE / NETWORK / DESTRUCTIVE ... sequential".
"""

from __future__ import annotations

import posixpath
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from harness.messages import ToolCall
from harness.tools.base import Tool


@dataclass
class Wave:
    indices: list[int] = field(default_factory=list)
    """Positions of the wave's calls in the turn's call list."""
    parallel: bool = False
    keys: set[str] = field(default_factory=set)


def resource_keys(call: ToolCall, key_args: Sequence[str]) -> frozenset[str]:
    """What a call touches: its path/URL-like argument values, normalised (``./a`` == ``a``)."""
    keys = set()
    for arg in key_args:
        value = call.arguments.get(arg)
        if isinstance(value, str) and value:
            keys.add(value if "://" in value else posixpath.normpath(value))
    return frozenset(keys)


def schedule(calls: Sequence[ToolCall], tools: Mapping[str, Tool], key_args: Sequence[str],
             parallel: bool = True) -> list[Wave]:
    """Partition ``calls`` into waves. With ``parallel=False`` every call is its own wave."""
    waves: list[Wave] = []
    current: Wave | None = None
    for i, call in enumerate(calls):
        tool = tools.get(call.name)
        if not parallel or tool is None or tool.effect != "read_only":
            current = None
            waves.append(Wave([i]))
            continue
        keys = resource_keys(call, key_args)
        if current is None or current.keys & keys:
            current = Wave(parallel=True)
            waves.append(current)
        current.indices.append(i)
        current.keys |= keys
    return waves
