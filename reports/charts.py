"""PNG charts (matplotlib, Agg backend): checklist heatmap, pass share by family, cost.

Every chart is a plain function of the report tables, so the Markdown and HTML show the same
numbers as the pictures.
"""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # no display on CI machines; must precede pyplot
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402
from matplotlib.colors import ListedColormap  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402

from reports.by_harness import config_order  # noqa: E402
from reports.catalog import families  # noqa: E402
from reports.fmt import counts  # noqa: E402
from reports.tables import CELL_STATES  # noqa: E402

STATE_STYLE = {
    # state: (colour, legend label, cell mark). Blue/orange rather than green/red alone, and a
    # mark in each cell, so the chart reads without colour vision.
    "pass": ("#1b9e77", "pass", "✓"),
    "fail": ("#d95f02", "fail", "✗"),
    "error": ("#7b3294", "error (sample errored / cancelled)", "!"),
    "unjudged": ("#e6ab02", "not applicable", "–"),
    "not_probed": ("#e8e8e8", "not probed", ""),
}


MANY_CONFIGS = 8
"""Beyond this many configurations the heatmap's columns narrow and its cells carry the state's
mark only (the counts stay in the tables)."""
DARK_TEXT = {"unjudged", "not_probed"}
"""States whose colour is light: their marks are written dark."""


def _score_label(cells: pd.DataFrame, config: str) -> str:
    states = cells.loc[cells["config"] == config, "state"]
    passed, judged = int((states == "pass").sum()), int(states.isin(["pass", "fail"]).sum())
    return f"{config}  {passed}/{judged}" if judged else f"{config}  –"


def item_order(cells: pd.DataFrame) -> list[str]:
    """Items grouped by family in the checklist's family order, each family's items in the
    order the cells give them."""
    rank = {f: n for n, f in enumerate(families())}
    first = {item: n for n, item in enumerate(dict.fromkeys(cells["item"]))}
    fam = dict(zip(cells["item"], cells["family"], strict=False))
    return sorted(first, key=lambda item: (rank.get(fam[item], len(rank)), first[item]))


def heatmap(cells: pd.DataFrame, configs: list[str], path: Path) -> Path:
    """Checklist items (rows, grouped by family) × configurations (columns, most items passed
    first, each labelled with its items passed / judged)."""
    items = item_order(cells)
    configs = config_order(cells, configs)
    many = len(configs) > MANY_CONFIGS
    code = {s: n for n, s in enumerate(CELL_STATES)}
    grid = np.zeros((len(items), len(configs)), dtype=int)
    marks = [["" for _ in configs] for _ in items]
    by_key = {(r["item"], r["config"]): r for r in cells.to_dict("records")}
    for i, item in enumerate(items):
        for j, config in enumerate(configs):
            r = by_key[(item, config)]
            grid[i, j] = code[r["state"]]
            marks[i][j] = STATE_STYLE[r["state"]][2] if many else _mark(r)
    height = 2.4 + 0.27 * len(items)
    width = 4.2 + (0.5 if many else 1.25) * len(configs)
    fig, ax = plt.subplots(figsize=(width, height), dpi=100)
    cmap = ListedColormap([STATE_STYLE[s][0] for s in CELL_STATES])
    ax.imshow(grid, cmap=cmap, vmin=-0.5, vmax=len(CELL_STATES) - 0.5, aspect="auto")
    for i in range(len(items)):
        for j in range(len(configs)):
            if marks[i][j]:
                dark = CELL_STATES[grid[i, j]] in DARK_TEXT
                ax.text(j, i, marks[i][j], ha="center", va="center", fontsize=8,
                        color="#222" if dark else "white")
    labels = [_score_label(cells, c) for c in configs]
    ax.set_xticks(range(len(configs)), labels, fontsize=9)
    ax.set_yticks(range(len(items)), items, fontsize=8)
    ax.xaxis.tick_top()
    plt.setp(ax.get_xticklabels(), rotation=50 if many else 30, ha="left",
             rotation_mode="anchor")
    _family_bands(ax, cells, items, len(configs))
    ax.set_xticks(np.arange(-0.5, len(configs)), minor=True)
    ax.set_yticks(np.arange(-0.5, len(items)), minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    present = [s for s in CELL_STATES if (grid == code[s]).any()] or list(CELL_STATES)
    handles = [Patch(color=STATE_STYLE[s][0], label=f"{STATE_STYLE[s][2]} {STATE_STYLE[s][1]}")
               for s in present]
    ax.legend(handles=handles, loc="upper center", bbox_to_anchor=(0.5, -0.01),
              ncol=min(len(handles), 5), fontsize=9, frameon=False)
    ax.set_xlabel("configurations, most items passed first (items passed / judged)",
                  fontsize=9, labelpad=8)
    ax.xaxis.set_label_position("top")
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def _mark(cell: dict) -> str:
    n = counts(cell)
    return f"{STATE_STYLE[cell['state']][2]} {n}".strip()


def _family_bands(ax, cells: pd.DataFrame, items: list[str], n_configs: int) -> None:
    fam = dict(zip(cells["item"], cells["family"], strict=False))
    start = 0
    for i in range(1, len(items) + 1):
        if i == len(items) or fam[items[i]] != fam[items[start]]:
            if i < len(items):
                ax.axhline(i - 0.5, color="black", linewidth=1.5)
            # horizontal: a one-item family's name stays inside its own band
            ax.text(n_configs - 0.35, (start + i - 1) / 2, fam[items[start]], va="center",
                    ha="left", fontsize=9, fontweight="bold")
            start = i


def family_bars(cells: pd.DataFrame, configs: list[str], path: Path) -> Path:
    """Share of probed items passed, per family and configuration."""
    fams = [f for f in families() if f in set(cells.loc[cells["state"] != "not_probed", "family"])]
    fig, ax = plt.subplots(figsize=(2.5 + 1.2 * max(len(fams), 1), 3.6), dpi=100)
    width = 0.8 / max(len(configs), 1)
    for j, config in enumerate(configs):
        shares = []
        for fam in fams:
            c = cells[(cells["config"] == config) & (cells["family"] == fam)
                      & (cells["state"] != "not_probed")]
            shares.append((c["state"] == "pass").mean() if len(c) else 0.0)
        ax.bar(np.arange(len(fams)) + j * width, shares, width, label=config)
    ax.set_xticks(np.arange(len(fams)) + 0.4 - width / 2, fams, fontsize=9)
    ax.set_ylim(0, 1)
    ax.set_ylabel("share of probed items passed")
    ax.legend(fontsize=8, frameon=False, loc="upper left", bbox_to_anchor=(1, 1))
    fig.savefig(path, bbox_inches="tight")
    plt.close(fig)
    return path


def cost_bars(cost: pd.DataFrame, path: Path) -> Path:
    """Tokens, model calls and wall time per configuration (totals over the run)."""
    panels = (("tokens", "tokens"), ("model_calls", "model calls"), ("wall_s", "wall time (s)"))
    fig, axes = plt.subplots(1, 3, figsize=(3 + 1.6 * len(cost), 3.4), dpi=100)
    for ax, (col, label) in zip(axes, panels, strict=True):
        ax.bar(range(len(cost)), cost[col].astype(float), color="#4c72b0")
        ax.set_xticks(range(len(cost)), cost["config"], rotation=30, ha="right", fontsize=8)
        ax.set_title(label, fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return path
