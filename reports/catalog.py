"""Which checklist items a report shows, in which order, with which titles.

The checklist (``scenarios/checklist.yaml``) is the catalogue; an item id found in a log but not
in the checklist (a retired or renamed item) is still shown, flagged, under its id's family.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from scenarios.checklist import FAMILIES, load_checklist

if TYPE_CHECKING:
    from collections.abc import Iterable

OTHER_FAMILY = "other"


@dataclass(frozen=True)
class CatalogItem:
    id: str
    family: str
    title: str
    figure: str
    lower_is_better: bool
    in_checklist: bool


def family_of(item_id: str) -> str:
    """Family of an item id: the checklist's, else the id's prefix, else ``other``."""
    known = {i.id: i.family for i in load_checklist()}
    if item_id in known:
        return known[item_id]
    prefix = item_id.split(".", 1)[0]
    return prefix if prefix in FAMILIES else OTHER_FAMILY


def families() -> tuple[str, ...]:
    """Families in report order (``other`` last)."""
    return (*FAMILIES, OTHER_FAMILY)


def catalog(seen: Iterable[str], *, all_items: bool = True) -> list[CatalogItem]:
    """Items to show: the checklist (all of it, or only ``seen`` ones) plus unknown ``seen`` ids.

    Ordered by family (``FAMILIES`` order), then checklist order, then id.
    """
    seen = set(seen)
    out: list[CatalogItem] = [
        CatalogItem(i.id, i.family, i.title, i.figure, i.lower_is_better, True)
        for i in load_checklist() if all_items or i.id in seen
    ]
    known = {c.id for c in out} | {i.id for i in load_checklist()}
    for item_id in sorted(seen - known):
        out.append(CatalogItem(item_id, family_of(item_id), "(not in the checklist)", "",
                               True, False))
    rank = {f: n for n, f in enumerate(families())}
    position = {c.id: n for n, c in enumerate(out)}
    return sorted(out, key=lambda c: (rank[c.family], c.in_checklist is False, position[c.id]))
