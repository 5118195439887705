"""Real-model serving figures per configuration, read from the logs: tokens per second of
generation, time per sample, the harness's share of wall time, and the prefix cache (the
server's ``/metrics`` hit rate that ``python -m evals real`` stores in each log's metadata, and
``cached_tokens`` that the server reported per request).

Scripted runs have no serving to speak of: ``serving_rows`` returns no rows for them.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from inspect_ai.log import read_eval_log

from reports.fmt import md_table

PREFIX_KEY = "looplab_prefix_cache"  # written by evals.runs (a real-model run)
SCRIPTED = ("scripted/", "scripted-bench/")


def _is_real(model: str) -> bool:
    return not model.startswith(SCRIPTED) and not model.startswith("mockllm/")


def _config_of(log: Any) -> str:
    return str(log.eval.task_args.get("config") or log.eval.task)


def log_row(log: Any) -> dict[str, Any]:
    """Totals of one log (one configuration): model time from its model events, sample time
    from the samples, tokens from inspect's usage records."""
    samples = log.samples or []
    model_s = sample_s = 0.0
    calls = out_tokens = in_tokens = cached = 0
    for s in samples:
        sample_s += float(s.total_time or 0)
        for e in s.events:
            if e.event == "model" and e.working_time is not None:
                model_s += float(e.working_time)
                calls += 1
        for usage in (s.model_usage or {}).values():
            out_tokens += usage.output_tokens or 0
            read = usage.input_tokens_cache_read or 0
            # inspect's openai provider reports uncached input and cache reads apart
            in_tokens += (usage.input_tokens or 0) + read
            cached += read
    prefix = (log.eval.metadata or {}).get(PREFIX_KEY) or {}
    return {
        "config": _config_of(log), "model": log.eval.model, "samples": len(samples),
        "model_calls": calls, "output_tokens": out_tokens, "prompt_tokens": in_tokens,
        "tokens_per_s": out_tokens / model_s if model_s else None,
        "s_per_sample": sample_s / len(samples) if samples else None,
        "harness_share": 1 - model_s / sample_s if sample_s else None,
        "cached_share": cached / in_tokens if in_tokens else None,
        "prefix_hit_rate": prefix.get("hit_rate"),
        "prefix_queries": prefix.get("queries"),
        "prefix_note": prefix.get("reason"),
    }


def serving_rows(log_paths: list[str]) -> list[dict[str, Any]]:
    """One row per real-model log (full logs are read: model events carry the timings)."""
    rows = []
    for path in log_paths:
        header = read_eval_log(path, header_only=True)
        if _is_real(str(header.eval.model)):
            rows.append(log_row(read_eval_log(path)))
    return rows


def _pct(v: float | None) -> str:
    return "n/a" if v is None else f"{100 * v:.0f}%"


def _num(v: float | None, fmt: str = "{:.1f}") -> str:
    return "n/a" if v is None else fmt.format(v)


HEADER = ["configuration", "samples", "model calls", "output tokens / s (generation)",
          "s / sample", "harness share of wall time", "prefix-cache hit rate (/metrics)",
          "cached prompt tokens (usage)"]


def table_rows(rows: list[dict[str, Any]]) -> list[list[str]]:
    return [[r["config"], str(r["samples"]), str(r["model_calls"]), _num(r["tokens_per_s"]),
             _num(r["s_per_sample"]), _pct(r["harness_share"]),
             _pct(r["prefix_hit_rate"]) + (f" ({r['prefix_note']})" if r["prefix_note"] else ""),
             _pct(r["cached_share"])] for r in rows]


EXPLAIN = ("Harness share = the part of each sample's wall time not spent waiting for the model "
           "(tool calls, sandbox, the harness itself). Prefix-cache hit rate = "
           "`vllm:prefix_cache_hits / queries` between snapshots taken before and after the "
           "configuration ran, the server's cache emptied first; cached prompt tokens = "
           "`usage.prompt_tokens_details.cached_tokens` summed over requests.")


def markdown_section(rows: list[dict[str, Any]]) -> list[str]:
    if not rows:
        return []
    return ["## Real-model serving", "", EXPLAIN, "", *md_table(HEADER, table_rows(rows))]


def logs_in(logdir: Path) -> list[str]:
    return sorted(str(p) for p in logdir.glob("*.eval"))
