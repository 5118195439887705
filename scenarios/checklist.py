"""The checklist: every harness control as an item with a stable ID (data in ``checklist.yaml``).

Scorers, the discrimination test and the reports read items from here; adding an item is adding
a YAML entry.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

CHECKLIST_FILE = Path(__file__).parent / "checklist.yaml"

FAMILIES = (
    "loop", "context", "provider", "security", "orchestration", "sessions", "prompt", "discipline",
)
"""Families in report order."""


class ChecklistItem(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    id: str
    """Stable ID, ``<family>.<name>``; never reused for another promise."""
    title: str
    """The promise, in one line."""
    family: str
    """One of ``FAMILIES``."""
    seed: str
    """Source document(s) in shared/seeds the control comes from, e.g. ``"004"`` or ``"000,001"``."""
    figure: str = ""
    """What the measured figure means (with unit), e.g. ``"identical calls executed"``."""
    lower_is_better: bool = True
    """Direction of the figure, for comparisons."""
    kind: str = "guard"
    """``guard``: switching its control off must make its scenarios fail. ``no_false_positive``:
    a check that a control does not get in the way (it passes with the control on and off)."""
    controls: tuple[str, ...] = ()
    """What switches the control off, as ``HarnessConfig`` overrides: a dotted path (set to
    false) or ``path=value``. The discrimination test applies them to ``looplab`` and expects every
    scenario probing a ``guard`` item to fail; without them it must pass."""

    sprung_when: dict[str, Any] | None = None
    """The trap condition (``evals.judges.sprung.Sprung``) for probes of this item that name
    none of their own (e.g. generated variants): what any scenario of the item must show before
    its verdict counts. A probe's own ``sprung_when`` is more specific and wins."""
    structural: bool = False
    """The verdict checks that a structure is there (delimiters around untrusted text, a
    byte-stable prefix, a record's fields, a file's format), not its effect on a model: the
    scripted actor honours the structure by construction, so a pass says the structure exists,
    not that it would stop a model. Reports show such items apart."""
    bound_s: float | None = Field(None, gt=0)
    """The time bound the promise states, in seconds (e.g. "within 5 s"): a pass whose measured
    time (``bound``) is over it fails."""
    bound: Literal["backoff", "give_up", "interrupt", "compaction"] | None = None
    """Which time ``bound_s`` limits (``evals.judges.bounds``): ``backoff``, the longest wait
    after a rate limit (and never shorter than its Retry-After); ``give_up``, from the first
    provider fault to the last model call; ``interrupt``, from a user stop to the run's end;
    ``compaction``, from a summary request to the next model call."""

    @model_validator(mode="after")
    def _bound_pair(self) -> ChecklistItem:
        if (self.bound is None) != (self.bound_s is None):
            raise ValueError("bound and bound_s go together (which time, and its limit)")
        return self

    def off_overrides(self) -> str:
        """The ``overrides`` task argument that switches this item's control off."""
        return ",".join(c if "=" in c else f"{c}=false" for c in self.controls)


class ChecklistError(ValueError):
    pass


@cache
def load_checklist(path: Path = CHECKLIST_FILE) -> tuple[ChecklistItem, ...]:
    raw = yaml.safe_load(path.read_text(encoding="utf-8")) or []
    if not isinstance(raw, list):
        raise ChecklistError(f"{path}: expected a list of items")
    items: list[ChecklistItem] = []
    seen: set[str] = set()
    for i, entry in enumerate(raw):
        try:
            item = ChecklistItem.model_validate(entry)
        except ValidationError as e:
            raise ChecklistError(f"{path}: item #{i + 1} ({entry.get('id', '?') if isinstance(entry, dict) else entry!r}): {e}") from e
        if item.family not in FAMILIES:
            raise ChecklistError(f"{path}: item {item.id}: family {item.family!r} not in {FAMILIES}")
        if not item.id.startswith(item.family + "."):
            raise ChecklistError(f"{path}: item {item.id}: id must start with '{item.family}.'")
        if item.id in seen:
            raise ChecklistError(f"{path}: duplicate item id {item.id}")
        seen.add(item.id)
        items.append(item)
    return tuple(items)


def checklist_by_id() -> dict[str, ChecklistItem]:
    return {i.id: i for i in load_checklist()}
