"""What to do about a failing item: the control that prevents it, where the promise comes from,
and the command that reproduces the failure.

The checklist holds the knowledge (``controls``: the switches of the control; ``seed``: the
write-up in ``shared/seeds`` it comes from; ``title``: the promise); this module only phrases
it for a report line. For a harness spec (a harness under test, not looplab's own) the controls
are looplab's settings, which that harness does not have: its advice is the behaviour the item
asks of the harness itself, and its repro names the spec's folder when it is the user's.
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from evals.harnesses.spec import SPECS_DIR, HarnessSpec, load_specs
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
    promise: str = ""
    """For a harness spec: what the item asks of the harness itself (its title); empty for
    looplab's presets, whose advice is ``controls``."""


@cache
def _item(item_id: str) -> tuple[tuple[str, ...], tuple[str, ...], str]:
    item = checklist_by_id().get(item_id)
    if item is None:
        return (), (), ""
    controls = tuple(dict.fromkeys(c.split("=", 1)[0] for c in item.controls))
    seeds = tuple(s.strip() for s in item.seed.split(",") if s.strip())
    return controls, seeds, item.title


def _spec(name: str) -> HarnessSpec | None:
    """The harness spec called ``name`` (shipped or on ``LOOPLAB_HARNESSES``), or None."""
    return load_specs().get(name)


def _config_ref(name: str, spec: HarnessSpec | None) -> str:
    """What ``CONFIG=`` takes for ``name``: a user spec's folder (relative to the current
    directory when below it), so the repro works without exporting ``LOOPLAB_HARNESSES``."""
    if spec is None or spec.folder.resolve().parent == SPECS_DIR.resolve():
        return name
    folder = spec.folder.resolve()
    try:
        return os.path.join(".", folder.relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(folder)


def split_label(label: str) -> tuple[str, str]:
    """``looplab[a.b=false]`` (or ``looplab[a.b=false] @ model``) → (``looplab``, ``a.b=false``)."""
    m = _LABEL.match(label.strip())
    return (m.group("name"), m.group("overrides") or "") if m else (label, "")


def advice(item_id: str, config_label: str, scenario_id: str) -> Advice:
    controls, seeds, title = _item(item_id)
    name, overrides = split_label(config_label)
    spec = _spec(name)
    command = (f"make repro SCENARIO={shlex.quote(scenario_id)} "
               f"CONFIG={shlex.quote(_config_ref(name, spec))}")
    if overrides:
        command += f" OVERRIDES={shlex.quote(overrides)}"
    if spec is not None:
        return Advice((), seeds, command, promise=title)
    return Advice(controls, seeds, command)


def phrase(a: Advice) -> str:
    """One line: ``control: `x` (on in looplab) · source: seed 000 · repro: `make repro ...` ``."""
    parts = []
    if a.promise:
        parts.append(f"asked of the harness itself: “{a.promise}”")
    if a.controls:
        parts.append("prevented by: " + ", ".join(f"`{c}`" for c in a.controls))
    if a.seeds:
        parts.append("source: " + ", ".join(f"seed {s}" for s in a.seeds))
    parts.append(f"repro: `{a.repro}`")
    return " · ".join(parts)
