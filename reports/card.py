"""The scorecard of a run: its tables (``reports.tables``) and charts, which the renderers
(``reports.markdown``, ``reports.html``) turn into files."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import pandas as pd

from reports import charts, tables
from reports.catalog import catalog
from reports.load import RunData
from reports.serving import serving_rows

CHARTS = {"heatmap": "heatmap.png", "families": "families.png", "cost": "cost.png"}
"""Chart name → file name in the report folder."""


@dataclass
class Scorecard:
    """Everything a renderer needs; the tables are plain DataFrames."""

    run: RunData
    out_dir: Path
    cells: pd.DataFrame
    summary: pd.DataFrame
    corpus: pd.DataFrame | None
    cost: pd.DataFrame
    failures: pd.DataFrame
    errors: pd.DataFrame
    unprobed: list[str]
    """Checklist items no configuration probed in this run."""
    splits: pd.DataFrame | None = None
    """Dev, untuned and fresh pass rates per configuration and generated family, when the run has any."""
    incomplete: list[str] = field(default_factory=list)
    """Why the run is incomplete (errored samples, logs that did not finish); empty when whole."""
    serving: list[dict] = field(default_factory=list)
    """Real-model serving figures per configuration (``reports.serving``); empty when scripted."""
    charts: dict[str, Path] = field(default_factory=dict)


def build(run: RunData, out_dir: Path) -> Scorecard:
    all_cells = tables.cells(run)
    probed = set(all_cells.loc[all_cells["state"] != "not_probed", "item"])
    # Rows probed by nobody would be a wall of grey once the checklist grows; they are listed
    # by name instead.
    cells = all_cells[all_cells["item"].isin(probed)].reset_index(drop=True)
    unprobed = [c.id for c in catalog([]) if c.id not in probed]
    return Scorecard(
        run=run, out_dir=out_dir, cells=cells, summary=tables.summary(run, cells),
        corpus=tables.corpus(run), cost=tables.cost(run), failures=tables.failures(run),
        errors=tables.errors(run), unprobed=unprobed, splits=tables.splits(run),
        incomplete=tables.incomplete(run),
        serving=serving_rows([str(p) for p in run.evals["log"]]),
    )


def draw(card: Scorecard) -> None:
    out = card.out_dir
    configs = card.run.configs
    if len(card.cells):
        card.charts["heatmap"] = charts.heatmap(card.cells, configs, out / CHARTS["heatmap"])
        card.charts["families"] = charts.family_bars(card.cells, configs, out / CHARTS["families"])
    card.charts["cost"] = charts.cost_bars(card.cost, out / CHARTS["cost"])
