"""Render a scorecard as one self-contained HTML file (inline CSS, charts as data URIs).

The page must open from disk with no server and no network: nothing is linked but the log
files themselves and the optional ``inspect view`` deep links.
"""

from __future__ import annotations

import base64
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING

from reports.advice import advice, phrase
from reports.catalog import families
from reports.charts import STATE_STYLE
from reports.fmt import (
    PLAIN_CELL_TEXT,
    cell_text,
    figure,
    first_line,
    num,
    rate,
    rel_link,
    viewer_url,
)
from reports.markdown import SPLIT_HEADERS, ranked, split_cells
from reports.serving import EXPLAIN, HEADER, table_rows
from reports.tables import CELL_STATES

if TYPE_CHECKING:
    from reports.card import Scorecard

CSS_FILE = Path(__file__).parent / "assets" / "scorecard.css"


def tag(name: str, body: str, **attrs: str) -> str:
    attr = "".join(f' {k.rstrip("_").replace("_", "-")}="{escape(v)}"' for k, v in attrs.items())
    return f"<{name}{attr}>{body}</{name}>"


def table(header: list[str], rows: list[list[str]], *, id_: str = "",
          classes: list[list[str]] | None = None) -> str:
    """``rows`` hold ready HTML; ``classes`` (same shape) sets each cell's class."""
    head = "".join(tag("th", escape(h)) for h in header)
    body = []
    for i, row in enumerate(rows):
        cells = []
        for j, c in enumerate(row):
            cls = classes[i][j] if classes else ""
            cells.append(tag("td", c, class_=cls) if cls else tag("td", c))
        body.append(tag("tr", "".join(cells)))
    attrs = {"id": id_} if id_ else {}
    return tag("table", tag("thead", tag("tr", head)) + tag("tbody", "".join(body)), **attrs)


def image(path: Path, alt: str, id_: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return f'<img class="chart" id="{id_}" alt="{escape(alt)}" src="data:image/png;base64,{data}">'


def render_html(card: Scorecard) -> str:
    run = card.run
    n_err = int((run.samples["status"] == "error").sum())
    parts = [
        tag("h1", escape(f"looplab scorecard: {run.name}")),
        tag("p", escape(f"Logs: {run.logdir} · {len(run.configs)} configuration(s) · "
                        f"{len(run.samples)} sample(s), {n_err} errored · models: "
                        f"{', '.join(sorted(set(run.evals['model'])))}"), class_="meta"),
        *[tag("p", escape(n), class_="note") for n in run.notes],
        *([tag("p", escape("Incomplete run: " + "; ".join(card.incomplete) + ". Errored samples "
                           "are neither passes nor failures; a configuration with any is not "
                           "ranked."), class_="note incomplete")] if card.incomplete else []),
        _summary(card), _heatmap(card), _items(card), _corpus(card), _cost(card),
        _splits(card), _serving(card), _failures(card), _errors(card),
    ]
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{escape('looplab scorecard: ' + run.name)}</title>"
            f"<style>{CSS_FILE.read_text(encoding='utf-8')}</style></head>"
            f"<body>{''.join(parts)}</body></html>\n")


def _summary(card: Scorecard) -> str:
    fams = [f for f in families() if f"fam:{f}" in card.summary.columns]
    rows = []
    for r in card.summary.to_dict("records"):
        fam_cells = [escape(str(r.get(f"fam:{f}"))) if isinstance(r.get(f"fam:{f}"), str)
                     else "–" for f in fams]
        rows.append([escape(r["config"]), f"{r['passed']}/{r['probed']}", str(r["failed"]),
                     str(r["unjudged"]), str(r["item_errors"]),
                     f"{r['sample_errors']} of {r['samples']}", *fam_cells, escape(ranked(r))])
    header = ["configuration", "items passed / probed", "failed", "not applicable", "error items",
              "errored samples", *fams, "ranked"]
    return tag("h2", "Summary") + table(header, rows, id_="summary")


def _heatmap(card: Scorecard) -> str:
    if "heatmap" not in card.charts:
        return tag("p", "No checklist item was probed in this run.", class_="note")
    legend = "".join(tag("span", escape(STATE_STYLE[s][1]),
                         style=f"background:{STATE_STYLE[s][0]};color:"
                               f"{'#222' if s == 'not_probed' else '#fff'}")
                     for s in CELL_STATES)
    out = tag("h2", "Checklist heatmap") + tag("p", legend, class_="legend")
    out += image(card.charts["heatmap"], "checklist items × configurations", "heatmap")
    if "families" in card.charts:
        out += image(card.charts["families"], "share of probed items passed by family",
                     "families")
    return out


def _items(card: Scorecard) -> str:
    out = tag("h2", "Checklist items × configurations") + tag(
        "p", "With several observations (epochs × scenarios): k/n = passes / judged "
        "observations, +e err = observations that errored, +u ? = not applicable; the figure is "
        "the mean over judged observations.")
    for fam in families():
        fc = card.cells[card.cells["family"] == fam]
        if fc.empty:
            continue
        rows, classes = [], []
        for item, g in fc.groupby("item", sort=False):
            by_config = {r["config"]: r for r in g.to_dict("records")}
            rows.append([tag("code", escape(item)), escape(g["title"].iloc[0]),
                         *[escape(cell_text(by_config[c], PLAIN_CELL_TEXT))
                           for c in card.run.configs]])
            classes.append(["", "", *[by_config[c]["state"] for c in card.run.configs]])
        out += tag("h3", escape(fam)) + table(["item", "promise", *card.run.configs], rows,
                                              classes=classes, id_=f"items-{fam}")
    if card.unprobed:
        out += tag("p", escape(f"Not probed in this run ({len(card.unprobed)}): "
                               + ", ".join(card.unprobed)), class_="meta")
    return out


def _corpus(card: Scorecard) -> str:
    out = tag("h2", "Injection corpus")
    if card.corpus is None:
        return out + tag("p", "No injection-corpus samples in this run: block rate and "
                              "false-positive rate are not reported.", class_="note")
    rows = [[escape(r["config"]), escape(str(r.get("channel", "all"))), rate(r["block_rate"]),
             f"{r['poisoned_blocked']}/{r['poisoned_n']}", rate(r["false_positive_rate"]),
             f"{r['benign_flagged']}/{r['benign_n']}",
             str(r["poisoned_errors"] + r["benign_errors"]),
             str(r["poisoned_unjudged"] + r["benign_unjudged"])]
            for r in card.corpus.to_dict("records")]
    return out + tag("p", "Block rate: poisoned samples whose probed items all passed. "
                          "False-positive rate: benign samples with a failed item. Errored "
                          "samples are left out of both rates.") + table(
        ["configuration", "channel", "block rate", "blocked / poisoned", "false-positive rate",
         "flagged / benign", "errored", "not applicable"], rows, id_="corpus")


def _cost(card: Scorecard) -> str:
    rows = [[escape(r["config"]), f"{r['scored']}/{r['samples']}", num(r["tokens"]),
             num(r["model_calls"]), num(r["tool_calls"]), num(r["wall_s"]),
             num(r["tokens_per_sample"]), num(r["model_calls_per_sample"]),
             num(r["wall_s_per_sample"]), escape(r["exit_status"])]
            for r in card.cost.to_dict("records")]
    out = tag("h2", "Cost") + tag(
        "p", "Sample time, summed: the sum of every sample's own time; samples run "
        "concurrently, so it is larger than the run's wall time.") + table(
        ["configuration", "scored / samples", "tokens", "model calls", "tool calls",
         "sample time, summed (s)", "tokens / sample", "model calls / sample",
         "sample time, mean (s)", "exit status"], rows, id_="cost")
    if "cost" in card.charts:
        out += image(card.charts["cost"], "cost per configuration", "cost-chart")
    return out


def _splits(card: Scorecard) -> str:
    if card.splits is None:
        return ""
    rows = [[escape(r["config"]), escape(str(r["family_id"])), *split_cells(r)]
            for r in card.splits.to_dict("records")]
    return tag("h2", "Generated families: dev vs untuned vs fresh") + table(
        ["configuration", "family", *SPLIT_HEADERS], rows, id_="splits")


def _serving(card: Scorecard) -> str:
    if not card.serving:
        return ""
    rows = [[escape(c) for c in row] for row in table_rows(card.serving)]
    return (tag("h2", "Real-model serving") + tag("p", escape(EXPLAIN.replace("`", "")))
            + table(HEADER, rows, id_="serving"))


def _failures(card: Scorecard) -> str:
    out = tag("h2", "Failures") + tag(
        "p", "Open a sample: " + tag("code", escape(f"inspect view --log-dir {card.run.logdir}"))
        + ", then follow a “viewer” link (or pick the log file and sample by hand).")
    if card.failures.empty:
        return out + tag("p", "No failed or not-applicable items.")
    for config, g in card.failures.groupby("config", sort=False):
        items = []
        for r in g.to_dict("records"):
            fig = figure(r["figure"], r["unit"])
            verdict = "FAIL" if r["state"] == "fail" else "not applicable"
            fix = ""
            if r["state"] == "fail":
                fix = "<br>" + escape(phrase(advice(r["item"], config, r["scenario_id"])))
            items.append(tag("li", tag("code", escape(r["item"])) + f" {verdict}"
                             + (escape(f" · {fig}") if fig else "") + " — "
                             + escape(r["explanation"] or "(no explanation)") + " — "
                             + _sample_ref(card, r) + fix))
        out += tag("h3", escape(config)) + tag("ul", "".join(items), class_="failures")
    return out


def _errors(card: Scorecard) -> str:
    out = tag("h2", "Errors")
    if card.errors.empty:
        return out + tag("p", "No errored or cancelled samples.")
    rows = [[escape(r["config"]), tag("code", escape(r["scenario_id"])), str(r["epoch"]),
             escape(first_line(r["error"])), escape(", ".join(r["probes"]) or "(unknown)"),
             _sample_ref(card, r)] for r in card.errors.to_dict("records")]
    return out + table(["configuration", "scenario", "epoch", "error", "items affected",
                        "sample"], rows, id_="errors",
                       classes=[["", "", "", "error", "", ""] for _ in rows])


def _sample_ref(card: Scorecard, r: dict) -> str:
    name = str(r["log"]).rsplit("/", 1)[-1]
    link = tag("a", escape(name), href=rel_link(r["log"], card.out_dir))
    viewer = tag("a", "viewer", href=viewer_url(r["log"], card.run.logdir, r["sample_id"],
                                                r["epoch"]))
    sample = tag("code", escape(str(r["sample_id"])))
    return f"{link} · sample {sample} epoch {r['epoch']} · {viewer}"
