"""What to do about a failing item: the control that prevents it, where the promise comes from,
and the command that reproduces the failure.

The checklist holds the knowledge (``controls``: the switches of the control; ``seed``: the
write-up in ``shared/seeds`` it comes from); this module only phrases it for a report line.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from functools import cache

from scenarios.checklist import checklist_by_id

_LABEL = re.compile(r"^(?P<name>[^\[\s@]+)(?:\[(?P<overrides>[^\]]*)\])?")


@dataclass(frozen=True)
class Advice:
    controls: tuple[str, ...]
    """Configuration paths whose control prevents the failure (e.g. ``loop_detection.ping_pong``)."""
    seeds: tuple[str, ...]
    """Source write-ups (``shared/seeds/<id>_*.txt``) the promise comes from."""
    repro: str
    """The command that reruns this one scenario on this configuration, transcript printed."""


@cache
def _item(item_id: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    item = checklist_by_id().get(item_id)
    if item is None:
        return (), ()
    controls = tuple(dict.fromkeys(c.split("=", 1)[0] for c in item.controls))
    seeds = tuple(s.strip() for s in item.seed.split(",") if s.strip())
    return controls, seeds


def split_label(label: str) -> tuple[str, str]:
    """``looplab[a.b=false]`` (or ``looplab[a.b=false] @ model``) → (``looplab``, ``a.b=false``)."""
    m = _LABEL.match(label.strip())
    return (m.group("name"), m.group("overrides") or "") if m else (label, "")


def advice(item_id: str, config_label: str, scenario_id: str) -> Advice:
    controls, seeds = _item(item_id)
    name, overrides = split_label(config_label)
    command = f"make repro SCENARIO={shlex.quote(scenario_id)} CONFIG={shlex.quote(name)}"
    if overrides:
        command += f" OVERRIDES={shlex.quote(overrides)}"
    return Advice(controls, seeds, command)


def phrase(a: Advice) -> str:
    """One line: ``control: `x` (on in looplab) · source: seed 000 · repro: `make repro ...` ``."""
    parts = []
    if a.controls:
        parts.append("prevented by: " + ", ".join(f"`{c}`" for c in a.controls))
    if a.seeds:
        parts.append("source: " + ", ".join(f"seed {s}" for s in a.seeds))
    parts.append(f"repro: `{a.repro}`")
    return " · ".join(parts)
