"""Compare two sides (configurations, or the same configuration in two runs) item by item.

Outcomes are paired on (scenario id, epoch, item). What the comparison may say depends on the
kind of run (``run_kind``): a scripted run is deterministic, so every flip is a fact and no
statistic is computed; where there is variance (a real model, or outcomes that differ between
epochs) it adds an exact McNemar test on pass/fail and a bootstrap interval on the figure
difference, so a difference one noisy epoch produced is marked as such. Figures are
informational: shown with their change, never judged better or worse (the verdict is the item's
pass/fail).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pandas as pd

from reports import tables
from reports.catalog import catalog
from reports.fmt import CELL_TEXT, counts, md_escape, missing, num
from reports.load import RunData, select_config
from reports.logdir import ReportError
from reports.stats import bootstrap_mean_ci, mcnemar_exact

ALPHA = 0.05
"""Significance level the 'reading' column uses."""
KEY = ["scenario_id", "epoch", "item"]
FEW_PAIRS = 5
"""Below this many pairs a bootstrap interval understates the noise."""


@dataclass
class Side:
    label: str
    """How the report names this side (``naive``, or ``run-a:naive``)."""
    run: RunData
    """Data of exactly one configuration."""


def sides_from_dirs(a: RunData, b: RunData, config: str | None) -> list[tuple[Side, Side]]:
    """Pair configurations of two runs: ``config`` only, else those both runs hold."""
    if config:
        names = [config]
    else:
        names = [c for c in a.configs if c in b.configs]
        if not names and len(a.configs) == 1 and len(b.configs) == 1:
            return [(Side(f"{a.name}:{a.configs[0]}", a), Side(f"{b.name}:{b.configs[0]}", b))]
        if not names:
            raise ReportError(f"no configuration is in both {a.logdir} ({', '.join(a.configs)}) "
                              f"and {b.logdir} ({', '.join(b.configs)}); pick one with --config")
    return [(Side(f"{a.name}:{n}", select_config(a, n)), Side(f"{b.name}:{n}", select_config(b, n)))
            for n in names]


def sides_in_run(run: RunData, a: str, b: str) -> list[tuple[Side, Side]]:
    """Two configurations of one run."""
    return [(Side(a, select_config(run, a)), Side(b, select_config(run, b)))]


EXACT = "exact"
STATISTICAL = "statistical"


def run_kind(a: Side, b: Side) -> str:
    """``exact`` when both sides are scripted and every epoch repeats the same outcome;
    ``statistical`` with a real model or with outcomes that vary between epochs."""
    models = {str(m) for side in (a, b) for m in side.run.evals["model"]}
    real = any(not m.startswith(("scripted/", "scripted-bench/")) for m in models)
    return STATISTICAL if real or _varies(a.run.items) or _varies(b.run.items) else EXACT


def _varies(items: pd.DataFrame) -> bool:
    judged = items[items["state"].isin(["pass", "fail"])]
    for _, g in judged.groupby(["scenario_id", "item"]):
        if g["state"].nunique() > 1 or g["figure"].dropna().nunique() > 1:
            return True
    return False


def paired(a: Side, b: Side) -> pd.DataFrame:
    """Item observations present on both sides, joined on scenario, epoch and item."""
    cols = [*KEY, "state", "figure", "unit"]
    return a.run.items[cols].merge(b.run.items[cols], on=KEY, suffixes=("_a", "_b"))


def flips(a: Side, b: Side) -> pd.DataFrame:
    """Items whose heatmap state differs between the sides."""
    ca, cb = tables.cells(a.run), tables.cells(b.run)
    m = ca[["item", "state", "n_pass", "n_fail", "n_error", "n_unjudged"]].merge(
        cb[["item", "state", "n_pass", "n_fail", "n_error", "n_unjudged"]], on="item",
        how="outer", suffixes=("_a", "_b"))
    m = m.fillna({"state_a": "not_probed", "state_b": "not_probed"}).fillna(0)
    return m[m["state_a"] != m["state_b"]]


def figure_moves(a: Side, b: Side, pairs: pd.DataFrame) -> pd.DataFrame:
    """Per item: mean figure on each side, the paired difference and its bootstrap interval."""
    lower_better = {c.id: c.lower_is_better for c in catalog(pairs["item"].unique())}
    rows = []
    for item, g in pairs.groupby("item", sort=True):
        g = g[g["state_a"].isin(["pass", "fail"]) & g["state_b"].isin(["pass", "fail"])]
        g = g.dropna(subset=["figure_a", "figure_b"])
        if g.empty:
            continue
        diffs = (g["figure_b"] - g["figure_a"]).astype(float).to_numpy()
        row = {"item": item, "unit": next((u for u in g["unit_a"] if u), ""),
               "a": float(g["figure_a"].mean()), "b": float(g["figure_b"].mean()),
               "delta": float(diffs.mean()), "n": len(diffs),
               "lower_is_better": lower_better.get(item, True), "low": None, "high": None}
        if len(diffs) >= 2:
            ci = bootstrap_mean_ci(diffs)
            row.update(low=ci.low, high=ci.high)
        rows.append(row)
    frame = pd.DataFrame(rows, columns=["item", "unit", "a", "b", "delta", "n",
                                        "lower_is_better", "low", "high"])
    return frame[frame["delta"] != 0]


def mcnemar_rows(pairs: pd.DataFrame) -> pd.DataFrame:
    """Exact McNemar per item with at least two judged pairs, plus a pooled row."""
    judged = pairs[pairs["state_a"].isin(["pass", "fail"])
                   & pairs["state_b"].isin(["pass", "fail"])]
    rows = []
    groups = [(item, g) for item, g in judged.groupby("item", sort=True) if len(g) >= 2]
    if groups and judged["item"].nunique() > 1:
        groups.append(("(all items pooled)", judged))
    for item, g in groups:
        t = mcnemar_exact(list(g["state_a"] == "pass"), list(g["state_b"] == "pass"))
        rows.append({"item": item, "n": t.n, "a_pass": int((g["state_a"] == "pass").sum()),
                     "b_pass": int((g["state_b"] == "pass").sum()), "a_only": t.a_only,
                     "b_only": t.b_only, "p": t.p_value})
    return pd.DataFrame(rows, columns=["item", "n", "a_pass", "b_pass", "a_only", "b_only", "p"])


def render_compare(title: str, pairs_of_sides: list[tuple[Side, Side]]) -> str:
    lines = [f"# looplab comparison: {title}", ""]
    for a, b in pairs_of_sides:
        lines += _section(a, b)
    return "\n".join(lines)


def _section(a: Side, b: Side) -> list[str]:
    pairs = paired(a, b)
    kind = run_kind(a, b)
    lines = [f"## {a.label} (A) → {b.label} (B)", "",
             f"A: `{a.run.logdir}` · B: `{b.run.logdir}` · {len(pairs)} paired item "
             "observations (same scenario, epoch and item on both sides).", ""]
    if kind == EXACT:
        lines += ["Scripted, deterministic run: the same input gives the same verdict, so every "
                  "change of state below is a fact, not a sample; no statistic is computed.", ""]
    lines += _flips_md(flips(a, b))
    moves = figure_moves(a, b, pairs)
    if kind == EXACT:
        lines += _exact_moves_md(moves)
        return lines
    lines += _moves_md(moves)
    lines += _stats_md(mcnemar_rows(pairs), pairs)
    return lines


def _exact_moves_md(m: pd.DataFrame) -> list[str]:
    lines = ["### Figures that moved", "",
             "Informational: Δ = B − A, mean over paired observations. The item's verdict is "
             "its pass/fail above; a figure is not judged on its own.", ""]
    if m.empty:
        return lines + ["None: every paired figure is the same on both sides.", ""]
    rows = [[f"`{r['item']}`", r["unit"], num(r["a"]), num(r["b"]),
             f"{'+' if r['delta'] > 0 else ''}{num(r['delta'])}", str(r["n"])]
            for r in m.to_dict("records")]
    return lines + _table(["item", "unit", "A", "B", "Δ", "pairs"], rows)


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    return (["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
            + ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows] + [""])


def _flips_md(f: pd.DataFrame) -> list[str]:
    lines = ["### Items that changed state", ""]
    if f.empty:
        return lines + ["None: every item has the same state on both sides.", ""]
    rows = []
    for r in f.to_dict("records"):
        kind = ("now passes" if (r["state_a"], r["state_b"]) == ("fail", "pass") else
                "now fails" if (r["state_a"], r["state_b"]) == ("pass", "fail") else "changed")
        rows.append([f"`{r['item']}`", _state(r, "a"), _state(r, "b"), kind])
    return lines + _table(["item", "A", "B", "change"], rows)


def _state(r: dict, side: str) -> str:
    cell: dict[str, Any] = {f"n_{k}": int(r.get(f"n_{k}_{side}") or 0)
                            for k in ("pass", "fail", "error", "unjudged")}
    cell["state"] = r[f"state_{side}"]
    n = counts(cell)
    return f"{CELL_TEXT[cell['state']]} {n}".strip()


def _moves_md(m: pd.DataFrame) -> list[str]:
    lines = ["### Figures that moved", "",
             "Informational: Δ = B − A, mean over paired observations; the interval is a 95% "
             "bootstrap interval of that mean (shown with two or more pairs; under "
             f"{FEW_PAIRS} pairs it is too narrow, so read it next to the McNemar table). "
             "Figures are not judged better or worse: the verdict is the item's pass/fail.", ""]
    if m.empty:
        return lines + ["None: every paired figure is the same on both sides.", ""]
    rows = []
    for r in m.to_dict("records"):
        if missing(r["low"]):
            ci, reading = "–", "one pair: rerun with more epochs for an interval"
        else:
            ci = f"[{num(r['low'])}, {num(r['high'])}]"
            excludes = r["low"] > 0 or r["high"] < 0
            reading = ("moved (interval excludes 0)" if excludes else "within noise")
            if excludes and r["n"] < FEW_PAIRS:
                reading += " (few pairs)"
        rows.append([f"`{r['item']}`", r["unit"], num(r["a"]), num(r["b"]),
                     f"{'+' if r['delta'] > 0 else ''}{num(r['delta'])}", ci, str(r["n"]),
                     reading])
    return lines + _table(["item", "unit", "A", "B", "Δ", "95% CI of Δ", "pairs", "reading"],
                          rows)


def _stats_md(t: pd.DataFrame, pairs: pd.DataFrame) -> list[str]:
    lines = ["### Paired pass/fail (exact McNemar)", ""]
    if t.empty:
        return lines + ["No item has two or more judged pairs (one epoch, one scenario per "
                        "item): run more epochs to separate a difference from noise.", ""]
    lines += ["A-only: passed under A, failed under B; B-only: the reverse. Only these "
              f"discordant pairs count. p < {ALPHA} reads as a difference. The pooled row "
              "treats pairs as independent, which items of one sample are not.", ""]
    rows = [[f"`{r['item']}`" if not r["item"].startswith("(") else r["item"], str(r["n"]),
             str(r["a_pass"]), str(r["b_pass"]), str(r["a_only"]), str(r["b_only"]),
             f"{r['p']:.4g}", _reading(r)]
            for r in t.to_dict("records")]
    return lines + _table(["item", "pairs", "A pass", "B pass", "A-only", "B-only",
                           "p (exact)", "reading"], rows)


def _reading(r: dict) -> str:
    if r["a_only"] == r["b_only"] == 0:
        return "no discordant pair"
    return "difference" if r["p"] < ALPHA else "could be noise"
