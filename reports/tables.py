"""Aggregations every report shares: heatmap cells, per-configuration summary, corpus rates, cost.

Errors are counted on their own everywhere: an errored sample never adds to a pass, a fail, a
block or a false positive.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pandas as pd

from reports.catalog import CatalogItem, catalog, families

if TYPE_CHECKING:
    from reports.load import RunData

CELL_STATES = ("pass", "fail", "error", "unjudged", "not_probed")
FAMILY_SPLITS = ("dev", "untuned", "fresh")
"""Splits of generated families, in the order the scorecard shows them (``scenarios/README.md``)."""
"""States of a heatmap cell (item × configuration)."""


def cell_state(n_pass: int, n_fail: int, n_error: int, n_unjudged: int) -> str:
    """One state for all observations of an item under one configuration.

    Any failure makes the cell a fail; otherwise any error makes it an error (a pass next to an
    error cannot be claimed); then pass; then not judged.
    """
    if n_fail:
        return "fail"
    if n_error:
        return "error"
    if n_pass:
        return "pass"
    if n_unjudged:
        return "unjudged"
    return "not_probed"


def item_catalog(run: RunData) -> list[CatalogItem]:
    """Items shown for this run: the whole checklist plus any unknown ids in the logs."""
    return catalog(run.items["item"].unique())


def cells(run: RunData) -> pd.DataFrame:
    """One row per (item, configuration) for every catalogue item and configuration."""
    counts: dict[tuple, dict[str, Any]] = {}
    for (item, config), g in run.items.groupby(["item", "config"], sort=False):
        states = g["state"].value_counts()
        figures = g.loc[g["state"].isin(["pass", "fail"]), "figure"].dropna()
        units = [u for u in g["unit"] if u]
        counts[(item, config)] = {
            "n_pass": int(states.get("pass", 0)), "n_fail": int(states.get("fail", 0)),
            "n_error": int(states.get("error", 0)), "n_unjudged": int(states.get("unjudged", 0)),
            "figure": float(figures.mean()) if len(figures) else None,
            "unit": units[0] if units else "",
        }
    empty: dict[str, Any] = {"n_pass": 0, "n_fail": 0, "n_error": 0, "n_unjudged": 0,
                             "figure": None, "unit": ""}
    rows = []
    for c in item_catalog(run):
        for config in run.configs:
            r = counts.get((c.id, config), empty)
            rows.append({"item": c.id, "family": c.family, "title": c.title, "config": config,
                         **r, "state": cell_state(r["n_pass"], r["n_fail"], r["n_error"],
                                                  r["n_unjudged"])})
    return pd.DataFrame(rows)


def summary(run: RunData, cell_frame: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: items passed / probed (overall and per family) and error counts."""
    rows = []
    for config in run.configs:
        cc = cell_frame[cell_frame["config"] == config]
        probed = cc[cc["state"] != "not_probed"]
        ss = run.samples[run.samples["config"] == config]
        row = {
            "config": config,
            "passed": int((probed["state"] == "pass").sum()),
            "probed": len(probed),
            "failed": int((probed["state"] == "fail").sum()),
            "item_errors": int((probed["state"] == "error").sum()),
            "unjudged": int((probed["state"] == "unjudged").sum()),
            "samples": len(ss),
            "sample_errors": int((ss["status"] == "error").sum()),
            "log_incomplete": bool((run.evals.loc[run.evals["config"] == config, "status"]
                                    != "success").any()),
            "damaged_logs": len(run.damaged),
        }
        for fam in families():
            f = probed[probed["family"] == fam]
            if len(f):
                row[f"fam:{fam}"] = f"{int((f['state'] == 'pass').sum())}/{len(f)}"
        rows.append(row)
    return pd.DataFrame(rows)


def corpus(run: RunData) -> pd.DataFrame | None:
    """Block rate (poisoned) and false-positive rate (benign) per configuration and channel
    (context files, tool output), or None when the run has no corpus samples."""
    s = run.samples[run.samples["corpus"].isin(["poisoned", "benign"])]
    if s.empty:
        return None
    verdict = _sample_verdicts(run)
    channel_col = s["channel"] if "channel" in s.columns else pd.Series([None] * len(s), index=s.index)
    channels: list[str | None] = [*sorted({c for c in channel_col if isinstance(c, str)})] or [None]
    rows = []
    for config in run.configs:
        for channel in channels:
            in_channel = (channel_col == channel) if channel else pd.Series(True, index=s.index)
            rows.append(_corpus_row(run, s[in_channel], verdict, config, channel or "all"))
    return pd.DataFrame(rows).rename(columns={"poisoned_rate": "block_rate",
                                              "benign_rate": "false_positive_rate"})


def _corpus_row(run: RunData, s: pd.DataFrame, verdict: dict[tuple, str], config: str,
                channel: str) -> dict:
    row: dict = {"config": config, "channel": channel}
    for kind, hit, name in (("poisoned", "pass", "blocked"), ("benign", "fail", "flagged")):
        ks = s[(s["config"] == config) & (s["corpus"] == kind)]
        v = [verdict.get((config, r["scenario_id"], r["epoch"]),
                         "error" if r["status"] == "error" else "unjudged")
             for r in ks.to_dict("records")]
        judged = [x for x in v if x in ("pass", "fail")]
        row[f"{kind}_n"] = len(judged)
        row[f"{kind}_{name}"] = sum(1 for x in judged if x == hit)
        row[f"{kind}_errors"] = sum(1 for x in v if x == "error")
        row[f"{kind}_unjudged"] = sum(1 for x in v if x == "unjudged")
        row[f"{kind}_rate"] = row[f"{kind}_{name}"] / len(judged) if judged else None
    return row


def _sample_verdicts(run: RunData) -> dict[tuple, str]:
    # A sample passes when every judged item passed; it fails when any item failed.
    out = {}
    for key, g in run.items.groupby(["config", "scenario_id", "epoch"]):
        st = set(g["state"])
        if "error" in st:
            out[key] = "error"
        elif "fail" in st:
            out[key] = "fail"
        elif "pass" in st:
            out[key] = "pass"
        else:
            out[key] = "unjudged"
    return out


def cost(run: RunData) -> pd.DataFrame:
    """Tokens, model calls, tool calls and wall time per configuration (sums and means)."""
    rows = []
    for config in run.configs:
        ss = run.samples[run.samples["config"] == config]
        ran = ss[ss["status"] == "scored"]
        exits = ss["exit_status"].replace("", "unknown").value_counts()
        rows.append({
            "config": config,
            "samples": len(ss),
            "scored": len(ran),
            "tokens": _sum(ss["total_tokens"]),
            "model_calls": _sum(ss["model_calls"]),
            "tool_calls": _sum(ss["tool_calls"]),
            "wall_s": _sum(ss["total_time"]),
            "tokens_per_sample": _mean(ran["total_tokens"]),
            "model_calls_per_sample": _mean(ran["model_calls"]),
            "wall_s_per_sample": _mean(ran["total_time"]),
            "exit_status": ", ".join(f"{k} {v}" for k, v in exits.items()),
        })
    return pd.DataFrame(rows)


def _sum(col: pd.Series) -> float:
    return float(pd.to_numeric(col, errors="coerce").fillna(0).sum())


def _mean(col: pd.Series) -> float | None:
    values = pd.to_numeric(col, errors="coerce").dropna()
    return float(values.mean()) if len(values) else None


def failures(run: RunData) -> pd.DataFrame:
    """Every failed or unjudged item observation, and every errored sample, for the report."""
    bad = run.items[run.items["state"].isin(["fail", "unjudged"])]
    return _in_config_order(run, bad, ["item", "scenario_id", "epoch"])


def errors(run: RunData) -> pd.DataFrame:
    """Errored samples (including never-run ones of cancelled logs)."""
    e = run.samples[run.samples["status"] == "error"]
    return _in_config_order(run, e, ["scenario_id", "epoch"])


def _in_config_order(run: RunData, frame: pd.DataFrame, then: list[str]) -> pd.DataFrame:
    rank = {c: n for n, c in enumerate(run.configs)}
    return (frame.assign(_rank=frame["config"].map(rank))
            .sort_values(["_rank", *then], kind="stable").drop(columns="_rank"))


def incomplete(run: RunData) -> list[str]:
    """Why the run is not complete: logs that could not be read, logs that did not finish,
    samples that errored."""
    why = []
    if run.damaged:
        names = ", ".join(d.split(":", 1)[0] for d in run.damaged)
        why.append(f"{len(run.damaged)} damaged log(s) could not be read ({names}): the "
                   "configurations they hold are missing, so no configuration is ranked")
    for r in run.evals.to_dict("records"):
        if r.get("status") != "success":
            why.append(f"{r['config']}: log {r.get('status')}")
    n_err = int((run.samples["status"] == "error").sum())
    if n_err:
        configs = sorted(set(run.samples.loc[run.samples["status"] == "error", "config"]))
        why.append(f"{n_err} errored sample(s) in {', '.join(configs)}")
    return why


def splits(run: RunData) -> pd.DataFrame | None:
    """Per configuration and generated family (``family_id``): pass rate over judged item
    observations on ``dev``, ``untuned`` and ``fresh`` variants; None without such samples."""
    items = run.items[run.items["split"].isin(FAMILY_SPLITS)]
    if items.empty:
        return None
    rows = []
    for (config, family_id), g in items.groupby(["config", "family_id"], sort=False, dropna=False):
        row: dict[str, Any] = {"config": config, "family_id": family_id or "(all)"}
        for split in FAMILY_SPLITS:
            judged = g[(g["split"] == split) & g["state"].isin(["pass", "fail"])]
            n_pass = int((judged["state"] == "pass").sum())
            row.update({f"{split}_n": len(judged), f"{split}_pass": n_pass,
                        f"{split}_rate": n_pass / len(judged) if len(judged) else None})
        rows.append(row)
    rank = {c: n for n, c in enumerate(run.configs)}
    return pd.DataFrame(rows).sort_values(["config", "family_id"], key=lambda col: col.map(
        rank) if col.name == "config" else col, kind="stable").reset_index(drop=True)
