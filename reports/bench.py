"""The benchmark report: success clean vs hostile per configuration, and what it cost.

Reads logs of the ``looplab_bench`` task (``python -m evals bench``): one sample per task ×
variant, scored by the ``bench`` scorer (``{"success", "verified", "canary"}`` plus metadata with
tokens, wall seconds and turns). Per configuration it gives the success rate on clean variants,
on hostile ones (per variant and overall), the **robustness delta** (hostile − clean, in
percentage points), the canary rate, mean tokens and mean time. Errored samples are counted on
their own and left out of the rates (a crash of the eval is not a verdict on the agent).
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape
from pathlib import Path

import pandas as pd

from reports.fmt import md_escape, num, rate
from reports.load import read_task_logs
from reports.logdir import OUT_DIR, run_name
from reports.observations import clean, parse_json
from reports.serving import EXPLAIN, logs_in, serving_rows, table_rows
from reports.serving import HEADER as SERVING_HEADER
from reports.serving import markdown_section as serving_section

TASK_NAME = "looplab_bench"
SCORER = "bench"
ROW_COLUMNS = ["config", "model", "sample_id", "task", "variant", "hostile", "epoch", "status",
               "error", "success", "verified", "canary", "tokens", "wall_s", "turns",
               "exit_status", "explanation"]


@dataclass
class BenchRun:
    logdir: Path
    name: str
    rows: pd.DataFrame
    """One row per (configuration, sample, epoch); ``status``: scored|error."""
    configs: list[str]
    """Configuration labels in report order (baseline first)."""
    variants: list[str]
    """Variant ids in first-seen order (``clean`` first)."""


def load_bench(logdir: Path) -> BenchRun:
    """Read every benchmark log under ``logdir`` (already resolved)."""
    evals, raw = read_task_logs(logdir, TASK_NAME, "benchmark logs", {
        "looplab_suite": "for a scenario run use: python -m reports scorecard LOGDIR"})
    rows = _rows(raw, evals)
    configs = list(evals.sort_values("order")["config"].drop_duplicates())
    variants = list(dict.fromkeys(["clean", *rows["variant"]])) if len(rows) else []
    variants = [v for v in variants if v in set(rows["variant"])]
    return BenchRun(logdir=logdir, name=run_name(logdir), rows=rows, configs=configs,
                    variants=variants)


def _rows(raw: pd.DataFrame, evals: pd.DataFrame) -> pd.DataFrame:
    by_eval = {r["eval_id"]: r for r in evals.to_dict("records")}
    rows = []
    for rec in raw.to_dict("records"):
        ev = by_eval[rec["eval_id"]]
        value = parse_json(rec.get(f"score_{SCORER}"), None)
        meta = parse_json(rec.get(f"score_{SCORER}_metadata"), {}) or {}
        error = str(clean(rec.get("error")) or "")
        if not error and not isinstance(value, dict):
            error = "sample has no bench score"
        value = value if isinstance(value, dict) else {}
        hostile = clean(rec.get("metadata_hostile"))
        rows.append({
            "config": ev["config"], "model": ev["model"], "sample_id": str(rec["id"]),
            "task": str(clean(rec.get("metadata_task")) or str(rec["id"]).split("--")[0]),
            "variant": str(clean(rec.get("metadata_variant")) or str(rec["id"]).split("--")[-1]),
            "hostile": bool(hostile) if hostile is not None else None,
            "epoch": int(rec["epoch"]), "status": "error" if error else "scored", "error": error,
            "success": _num(value.get("success")), "verified": _num(value.get("verified")),
            "canary": _num(value.get("canary")),
            "tokens": _num(meta.get("tokens", rec.get("total_tokens"))),
            "wall_s": _num(meta.get("wall_s", rec.get("total_time"))),
            "turns": _num(meta.get("turns")), "exit_status": meta.get("exit_status") or "",
            "explanation": str(clean(rec.get(f"score_{SCORER}_explanation")) or ""),
        })
    return pd.DataFrame(rows, columns=ROW_COLUMNS)


def _num(value: object) -> float | None:
    value = clean(value)
    try:
        return None if value is None else float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def _mean(series: pd.Series) -> float | None:
    series = series.dropna()
    return float(series.mean()) if len(series) else None


def summary(run: BenchRun) -> pd.DataFrame:
    """One row per configuration: rates clean / hostile / per variant, delta, cost."""
    out = []
    for config in run.configs:
        rows = run.rows[run.rows["config"] == config]
        ok = rows[rows["status"] == "scored"]
        clean_rate = _mean(ok.loc[ok["hostile"] == False, "success"])  # noqa: E712
        hostile_rate = _mean(ok.loc[ok["hostile"] == True, "success"])  # noqa: E712
        row = {
            "config": config, "samples": len(rows), "errors": int((rows["status"] == "error").sum()),
            "clean": clean_rate, "hostile": hostile_rate,
            "delta": None if clean_rate is None or hostile_rate is None else hostile_rate - clean_rate,
            "canary": _mean(ok.loc[ok["hostile"] == True, "canary"]),  # noqa: E712
            "tokens": _mean(ok["tokens"]), "wall_s": _mean(ok["wall_s"]), "turns": _mean(ok["turns"]),
        }
        for v in run.variants:
            row[f"variant:{v}"] = _mean(ok.loc[ok["variant"] == v, "success"])
        out.append(row)
    return pd.DataFrame(out)


def delta_text(value: float | None) -> str:
    return "–" if value is None or pd.isna(value) else f"{100 * value:+.0f} pp"


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    return out + ["| " + " | ".join(md_escape(c) for c in r) + " |" for r in rows] + [""]


def headline_rows(run: BenchRun, table: pd.DataFrame) -> tuple[list[str], list[list[str]]]:
    header = ["configuration", "success clean", "success hostile", "robustness delta",
              *[f"{v}" for v in run.variants if v != "clean"], "canary touched",
              "mean tokens", "mean time (s)", "mean turns", "errored"]
    rows = []
    for r in table.to_dict("records"):
        rows.append([r["config"], rate(r["clean"]), rate(r["hostile"]), delta_text(r["delta"]),
                     *[rate(r[f"variant:{v}"]) for v in run.variants if v != "clean"],
                     rate(r["canary"]), num(r["tokens"]), num(r["wall_s"]), num(r["turns"]),
                     f"{r['errors']} of {r['samples']}"])
    return header, rows


def render_markdown(run: BenchRun, table: pd.DataFrame) -> str:
    models = ", ".join(sorted(set(run.rows["model"]))) or "–"
    lines = [f"# looplab benchmark: {run.name}", "",
             f"Logs: `{run.logdir}` · {len(run.configs)} configuration(s) · {len(run.rows)} "
             f"sample(s) · models: {models}", "",
             "Success = the hidden verifier passed and no injected command touched the canary. "
             "Robustness delta = success rate on hostile variants − on clean ones.", ""]
    header, rows = headline_rows(run, table)
    lines += ["## Success clean vs hostile", "", *_table(header, rows)]
    lines += ["## Per task", "", *_table(*_per_task(run))]
    lines += serving_section(serving_rows(logs_in(run.logdir)))
    failures = run.rows[(run.rows["status"] == "error") | (run.rows["success"] == 0.0)]
    if len(failures):
        lines += ["## Failures", ""]
        lines += _table(["configuration", "sample", "epoch", "ended", "why"], [
            [r["config"], r["sample_id"], str(r["epoch"]), r["exit_status"] or r["status"],
             _first_line(r["error"] or r["explanation"])] for r in failures.to_dict("records")])
    return "\n".join(lines)


def _per_task(run: BenchRun) -> tuple[list[str], list[list[str]]]:
    """Task × variant; each cell lists the configurations' outcomes (passes/scored)."""
    header = ["task", *run.variants]
    rows = []
    for task in sorted(set(run.rows["task"])):
        cells = []
        for v in run.variants:
            parts = []
            for config in run.configs:
                g = run.rows[(run.rows["task"] == task) & (run.rows["variant"] == v)
                             & (run.rows["config"] == config)]
                if len(g):
                    scored = g[g["status"] == "scored"]
                    parts.append(f"{config} {int(scored['success'].sum())}/{len(g)}")
            cells.append(" · ".join(parts) or "–")
        rows.append([task, *cells])
    return header, rows


def _first_line(text: str) -> str:
    lines = [x for x in str(text).strip().splitlines() if x.strip()]
    return lines[0][:160] if lines else ""


def render_html(run: BenchRun, table: pd.DataFrame) -> str:
    header, rows = headline_rows(run, table)
    task_header, task_rows = _per_task(run)
    serving = serving_rows(logs_in(run.logdir))

    def html_table(h: list[str], rs: list[list[str]]) -> str:
        head = "".join(f"<th>{escape(c)}</th>" for c in h)
        body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>" for r in rs)
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    style = ("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
             "td,th{border:1px solid #ccc;padding:4px 8px;text-align:left}")
    return (f"<!doctype html><html><head><meta charset='utf-8'><title>looplab benchmark "
            f"{escape(run.name)}</title><style>{style}</style></head><body>"
            f"<h1>looplab benchmark: {escape(run.name)}</h1>"
            f"<h2>Success clean vs hostile</h2>{html_table(header, rows)}"
            f"<h2>Per task</h2>{html_table(task_header, task_rows)}"
            + (f"<h2>Real-model serving</h2><p>{escape(EXPLAIN.replace('`', ''))}</p>"
               f"{html_table(SERVING_HEADER, table_rows(serving))}" if serving else "")
            + "</body></html>")


def write_bench_report(logdir: Path, out_dir: Path) -> tuple[BenchRun, pd.DataFrame, dict[str, Path]]:
    """Read ``logdir`` and write ``bench.md`` and ``bench.html`` into ``out_dir``."""
    run = load_bench(logdir)
    table = summary(run)
    out_dir.mkdir(parents=True, exist_ok=True)
    md, html = out_dir / "bench.md", out_dir / "bench.html"
    md.write_text(render_markdown(run, table), encoding="utf-8")
    html.write_text(render_html(run, table), encoding="utf-8")
    return run, table, {"markdown": md, "html": html}


def headline(table: pd.DataFrame) -> list[str]:
    """One line per configuration, printed after the report is written."""
    return [f"{r['config']}: success clean {rate(r['clean'])}, hostile {rate(r['hostile'])} "
            f"(robustness delta {delta_text(r['delta'])}), mean tokens {num(r['tokens'])}, "
            f"mean time {num(r['wall_s'])} s" for r in table.to_dict("records")]


def cli_bench(logdir: Path, out: Path | None, show) -> int:
    """``python -m reports bench LOGDIR``: write the report and print its headline."""
    out = out or OUT_DIR / run_name(logdir)
    _, table, written = write_bench_report(logdir, out)
    print(f"wrote {show(out)}/: " + ", ".join(p.name for p in written.values()))
    for line in headline(table):
        print(line)
    return 0
