"""Render a scorecard as Markdown (``scorecard.md``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from reports.advice import advice, phrase
from reports.by_harness import by_harness_section, config_order
from reports.catalog import families
from reports.fmt import (
    CELL_TEXT,
    cell_text,
    figure,
    first_line,
    md_escape,
    md_table,
    num,
    rate,
    rel_link,
    viewer_url,
)
from reports.serving import markdown_section as serving_section
from reports.tables import FAMILY_SPLITS

if TYPE_CHECKING:
    import pandas as pd

    from reports.card import Scorecard


def render_markdown(card: Scorecard) -> str:
    run = card.run
    n_err = int((run.samples["status"] == "error").sum())
    lines = [
        f"# looplab scorecard: {run.name}", "",
        f"Logs: `{run.logdir}` · {len(run.configs)} configuration(s) · "
        f"{len(run.samples)} sample(s), {n_err} errored · "
        f"models: {', '.join(sorted(set(run.evals['model'])))}", "",
    ]
    lines += [f"> {note}" for note in run.notes] + ([""] if run.notes else [])
    lines += incomplete_banner(card)
    lines += summary_section(card)
    lines += by_harness_section(card.cells, config_order(card.cells, run.configs))
    if "heatmap" in card.charts:
        lines += ["![checklist heatmap](heatmap.png)", ""]
    lines += items_section(card)
    lines += corpus_section(card)
    lines += splits_section(card)
    lines += cost_section(card)
    lines += serving_section(card.serving)
    lines += failures_section(card)
    lines += errors_section(card)
    return "\n".join(lines)


def incomplete_banner(card: Scorecard) -> list[str]:
    why = card.incomplete
    if not why:
        return []
    return [f"> **Incomplete run**: {'; '.join(why)}. Errored samples are neither passes nor "
            "failures; a configuration with any is not ranked (its counts cover only what "
            "ran). Rerun the configurations named below.", ""]


def summary_section(card: Scorecard) -> list[str]:
    fams = [f for f in families() if f"fam:{f}" in card.summary.columns]
    header = ["configuration", "items passed / probed", "failed", "not applicable",
              "error items", "errored samples", *fams, "ranked"]
    rows = []
    for r in card.summary.to_dict("records"):
        rows.append([r["config"], f"{r['passed']}/{r['probed']}", str(r["failed"]),
                     str(r["unjudged"]), str(r["item_errors"]),
                     f"{r['sample_errors']} of {r['samples']}",
                     *[_str(r.get(f"fam:{f}")) for f in fams], ranked(r)])
    return ["## Summary", "", "An item passes for a configuration when every judged "
            "observation of it passed and none errored. *Not applicable*: the harness never "
            "faced the failure (the trap was not sprung) or has no surface for it; never "
            "counted as a pass.", "", *md_table(header, rows)]


def ranked(r: dict) -> str:
    if r.get("damaged_logs"):
        return "no: a log of this run is damaged"
    if r["sample_errors"] or r.get("log_incomplete"):
        return f"no: incomplete ({r['sample_errors']} errored sample(s))"
    return "yes"


def _str(value: object) -> str:
    return "–" if value is None or value != value else str(value)  # value != value: NaN


def items_section(card: Scorecard) -> list[str]:
    legend = " · ".join(f"{v} = {k.replace('_', ' ')}" if k == "not_probed" else v
                        for k, v in CELL_TEXT.items())
    lines = ["## Checklist items × configurations", "",
             f"{legend}. With several observations (epochs × scenarios): `k/n` = passes / judged "
             "observations, `+e err` = observations that errored, `+u ?` = not applicable; the "
             "figure is the mean over judged observations.", ""]
    for fam in families():
        fc = card.cells[card.cells["family"] == fam]
        if fc.empty:
            continue
        lines += [f"### {fam}", ""]
        rows = []
        for item, g in fc.groupby("item", sort=False):
            by_config = {r["config"]: r for r in g.to_dict("records")}
            rows.append([f"`{item}`", g["title"].iloc[0],
                         *[cell_text(by_config[c]) for c in card.run.configs]])
        lines += md_table(["item", "promise", *card.run.configs], rows)
    if card.unprobed:
        lines += [f"Not probed in this run ({len(card.unprobed)}): "
                  + ", ".join(f"`{i}`" for i in card.unprobed), ""]
    return lines


def corpus_section(card: Scorecard) -> list[str]:
    lines = ["## Injection corpus", ""]
    if card.corpus is None:
        return lines + ["No injection-corpus samples (`corpus: poisoned | benign`) in this run: "
                        "block rate and false-positive rate are not reported.", ""]
    lines += ["Block rate: share of poisoned samples whose probed items all passed. "
              "False-positive rate: share of benign samples with a failed item. Errored samples "
              "are left out of both rates and counted on their own.", ""]
    rows = [[r["config"], r.get("channel", "all"), rate(r["block_rate"]), f"{r['poisoned_blocked']}/{r['poisoned_n']}",
             rate(r["false_positive_rate"]), f"{r['benign_flagged']}/{r['benign_n']}",
             str(r["poisoned_errors"] + r["benign_errors"]),
             str(r["poisoned_unjudged"] + r["benign_unjudged"])]
            for r in card.corpus.to_dict("records")]
    return lines + md_table(["configuration", "channel", "block rate", "blocked / poisoned",
                          "false-positive rate", "flagged / benign", "errored", "not judged"],
                         rows)


def cost_section(card: Scorecard) -> list[str]:
    rows = [[r["config"], f"{r['scored']}/{r['samples']}", num(r["tokens"]),
             num(r["model_calls"]), num(r["tool_calls"]), num(r["wall_s"]),
             num(r["tokens_per_sample"]), num(r["model_calls_per_sample"]),
             num(r["wall_s_per_sample"]), r["exit_status"]]
            for r in card.cost.to_dict("records")]
    lines = ["## Cost", "", "Totals over all samples; per-sample means over scored samples. "
             "*Sample time, summed*: the sum of every sample's own time from start to score; "
             "samples run concurrently, so it is larger than the run's wall time (which "
             "`make eval` prints).", ""]
    lines += md_table(["configuration", "scored / samples", "tokens", "model calls", "tool calls",
                    "sample time, summed (s)", "tokens / sample", "model calls / sample",
                    "sample time, mean (s)", "exit status"], rows)
    if "cost" in card.charts:
        lines += ["![cost per configuration](cost.png)", ""]
    return lines


def failures_section(card: Scorecard) -> list[str]:
    lines = ["## Failures", "", *open_hint(card), ""]
    if card.failures.empty:
        return lines + ["No failed or not-applicable items.", ""]
    for config, g in card.failures.groupby("config", sort=False):
        lines += [f"### {config}", ""]
        for r in g.to_dict("records"):
            fig = figure(r["figure"], r["unit"])
            if r["state"] == "fail":
                lines.append(f"- **`{r['item']}`** FAIL{' · ' + fig if fig else ''} — "
                             f"{md_escape(r['explanation']) or '(no explanation)'} — "
                             f"{sample_ref(card, r)}")
                lines.append(f"  - {phrase(advice(r['item'], config, r['scenario_id']))}")
            else:
                reason = str(r["explanation"]).removeprefix("not applicable: ")
                lines.append(f"- `{r['item']}` not applicable — "
                             f"{md_escape(reason) or '(no reason given)'} — "
                             f"{sample_ref(card, r)}")
        lines.append("")
    return lines


SPLIT_HEADERS = [h for s in FAMILY_SPLITS for h in (f"{s} pass rate", f"{s} passed / judged")]


def split_cells(r: dict) -> list[str]:
    """Rate and passed/judged of one row of ``Scorecard.splits``, per family split in order."""
    return [cell for s in FAMILY_SPLITS
            for cell in (rate(r[f"{s}_rate"]), f"{r[f'{s}_pass']}/{r[f'{s}_n']}")]


def splits_section(card: Scorecard) -> list[str]:
    if card.splits is None:
        return []
    rows = [[r["config"], r["family_id"], *split_cells(r)] for r in card.splits.to_dict("records")]
    return ["## Generated families: dev vs untuned vs fresh", "",
            "Pass rate over judged item observations of each generated family, on the variants "
            "the controls were developed against (dev), on those held back (untuned) and on "
            "those written after the last control change and never tuned on (fresh). A large "
            "gap means a control fits its development variants, not the failure.", "",
            *md_table(["configuration", "family", *SPLIT_HEADERS], rows)]


def errors_section(card: Scorecard) -> list[str]:
    lines = ["## Errors", ""]
    if card.errors.empty:
        return lines + ["No errored or cancelled samples.", ""]
    rows = [[r["config"], f"`{r['scenario_id']}`", str(r["epoch"]), first_line(r["error"]),
             ", ".join(r["probes"]) or "(unknown)", sample_ref(card, r),
             f"`{advice('', r['config'], r['scenario_id']).repro}`"]
            for r in card.errors.to_dict("records")]
    return lines + ["Infrastructure, not the harness (an interrupt, a vanished sandbox, a "
                    "harness that never started, an exception in our code): nothing was judged.",
                    ""] + md_table(["configuration", "scenario", "epoch", "error", "items affected",
                                 "sample", "rerun"], rows)


def sample_ref(card: Scorecard, r: dict | pd.Series) -> str:
    """``[file.eval](relative link) · sample ID epoch N · [transcript](viewer link)``."""
    name = str(r["log"]).rsplit("/", 1)[-1]
    viewer = viewer_url(r["log"], card.run.logdir, r["sample_id"], r["epoch"])
    return (f"[{name}]({rel_link(r['log'], card.out_dir)}) · sample `{r['sample_id']}` "
            f"epoch {r['epoch']} · [transcript]({viewer})")


def open_hint(card: Scorecard) -> list[str]:
    return [f"Open a sample in inspect's viewer: `inspect view --log-dir {card.run.logdir}`, "
            "then follow a transcript link (or pick the log file and the sample id / epoch "
            "named on each line)."]
