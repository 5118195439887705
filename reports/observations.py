"""Turn ``evals_df`` / ``samples_df`` frames into tidy sample and item rows.

inspect hands dict- and list-valued fields back as JSON strings and missing values as NA; this
module parses them once so every report works on plain Python values.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

import pandas as pd

from reports.catalog import family_of

STATES = ("pass", "fail", "unjudged", "error")
"""States of one item in one sample; ``unjudged`` is the verdict state *not applicable* (the
harness never faced the failure, or has no surface for it), shown with the judge's reason."""

_MISSING_REASON = {
    "cancelled": "cancelled: the eval was stopped before this sample finished",
    "error": "not run: the eval stopped on an error",
    "started": "not run: the log is incomplete (eval still running, or it crashed)",
}


def clean(value: Any) -> Any:
    """``None`` for every kind of missing value (None, NaN, pd.NA)."""
    if value is None or value is pd.NA:
        return None
    if isinstance(value, float) and math.isnan(value):
        return None
    return value


def parse_json(value: Any, default: Any) -> Any:
    """A JSON string (as inspect writes dict/list fields into frames) → Python value."""
    value = clean(value)
    if value is None or value == "":
        return default
    if isinstance(value, str):
        try:
            return json.loads(value)
        except json.JSONDecodeError:
            return default
    return value


def config_labels(evals: pd.DataFrame) -> pd.DataFrame:
    """Add ``config_name``, ``config`` (the label: name, plus model when several) and ``order``."""
    evals = evals.copy()
    names = evals["task_arg_config"] if "task_arg_config" in evals else pd.Series(
        [None] * len(evals), index=evals.index)
    overrides = evals["task_arg_overrides"] if "task_arg_overrides" in evals else pd.Series(
        [None] * len(evals), index=evals.index)
    # An ablation is never labelled as the plain preset: looplab[loop_detection.enabled=false].
    evals["config_name"] = [_label(str(clean(n) or "default"), clean(o))
                            for n, o in zip(names, overrides, strict=True)]
    several_models = evals["model"].nunique() > 1
    evals["config"] = [
        f"{n} @ {m}" if several_models else n for n, m in zip(evals["config_name"], evals["model"],
                                                              strict=True)
    ]
    evals["order"] = [(_rank(n), n, str(m)) for n, m in zip(evals["config_name"], evals["model"],
                                                          strict=True)]
    return evals


def _label(name: str, overrides: object) -> str:
    changes = ",".join(p.strip() for p in str(overrides or "").split(",") if p.strip())
    return f"{name}[{changes}]" if changes else name


def _rank(name: str) -> int:
    # Baseline first, then the seed presets, other presets, our best, then peer agents.
    if name == "naive":
        return 0
    if re.fullmatch(r"seed\d+", name):
        return 1
    if name == "looplab":
        return 3
    if name.startswith("inspect-"):
        return 4
    return 2


def sample_rows(raw: pd.DataFrame, evals: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    """One row per sample read from the logs; duplicates across logs resolved (newest wins)."""
    by_eval = {r["eval_id"]: r for r in evals.to_dict("records")}
    rows = []
    for rec in raw.to_dict("records"):
        ev = by_eval[rec["eval_id"]]
        meta = parse_json(rec.get("score_checklist_metadata"), {}) or {}
        value = parse_json(rec.get("score_checklist"), None)
        error = str(clean(rec.get("error")) or "")
        if not error and value is None and not meta:
            error = "sample has no checklist score"
        rows.append({
            **_sample_base(ev, rec),
            "status": "error" if error else "scored",
            "error": error,
            "exit_status": meta.get("exit_status") or ("error" if error else ""),
            "model_calls": _num(meta.get("model_calls")),
            "tool_calls": _num(meta.get("tool_calls")),
            "total_tokens": _num(rec.get("total_tokens")),
            "total_time": _num(rec.get("total_time")),
            "verdicts": meta.get("items") or {},
            # NaN / None: an item this sample did not judge (every item of the task is a key).
            "value": {k: v for k, v in value.items() if _num(v) is not None}
            if isinstance(value, dict) else {},
        })
    frame = pd.DataFrame(rows, columns=_SAMPLE_COLUMNS)
    return _dedupe(frame)


_SAMPLE_COLUMNS = [
    "config", "config_name", "model", "eval_id", "log", "created", "scenario_id", "sample_id",
    "epoch", "title", "family", "corpus", "channel", "variant", "split", "family_id", "probes",
    "status", "error", "exit_status",
    "model_calls", "tool_calls", "total_tokens", "total_time", "verdicts", "value",
]


def _sample_base(ev: dict, rec: dict) -> dict:
    sample_id = str(rec["id"])
    probes = parse_json(rec.get("metadata_probes"), [])
    return {
        "config": ev["config"], "config_name": ev["config_name"], "model": ev["model"],
        "eval_id": ev["eval_id"], "log": ev["log"], "created": str(ev.get("created", "")),
        "scenario_id": str(clean(rec.get("metadata_scenario_id")) or sample_id),
        "sample_id": sample_id, "epoch": int(rec["epoch"]),
        "title": clean(rec.get("metadata_title")) or "",
        "family": clean(rec.get("metadata_family")) or "",
        "corpus": clean(rec.get("metadata_corpus")),
        "channel": clean(rec.get("metadata_channel")),
        "variant": clean(rec.get("metadata_variant")),
        "split": clean(rec.get("metadata_split")),
        "family_id": clean(rec.get("metadata_family_id")),
        "probes": [str(p) for p in probes] if isinstance(probes, list) else [],
    }


def _num(value: Any) -> float | None:
    value = clean(value)
    try:
        return None if value is None else float(value)
    except (TypeError, ValueError):
        return None


def _dedupe(frame: pd.DataFrame) -> tuple[pd.DataFrame, list[str]]:
    # eval_set retries leave an older log beside the newer one: keep one row per sample,
    # a scored row over an errored one, then the newest log.
    if frame.empty:
        return frame, []
    key = ["config", "scenario_id", "epoch"]
    frame = frame.assign(_scored=frame["status"] == "scored").sort_values(
        ["_scored", "created"], ascending=[False, False], kind="stable")
    dup = frame.duplicated(key, keep="first")
    notes = []
    if dup.any():
        notes.append(f"{int(dup.sum())} sample(s) appear in more than one log of the same "
                     "configuration; the scored, newest one is shown")
    frame = frame[~dup].drop(columns="_scored")
    return frame.sort_values(key, kind="stable").reset_index(drop=True), notes


def missing_rows(samples: pd.DataFrame, evals: pd.DataFrame) -> pd.DataFrame:
    """Add an error row for each planned (sample, epoch) a log does not hold (e.g. cancelled)."""
    # Keyed by configuration: a retried log of the same configuration may hold what another
    # log of it is missing.
    present = set(zip(samples["config"], samples["sample_id"], samples["epoch"], strict=True))
    known = {r["scenario_id"]: r for r in samples.to_dict("records")}
    added = []
    for ev in evals.to_dict("records"):
        planned = parse_json(ev.get("dataset_sample_ids"), []) or []
        epochs = int(clean(ev.get("epochs")) or 1)
        reason = _MISSING_REASON.get(str(ev.get("status")), "missing from the log")
        message = clean(ev.get("error_message"))
        if message and ev.get("status") == "error":
            reason = f"{reason}: {str(message).splitlines()[0]}"
        for sid in map(str, planned):
            for epoch in range(1, epochs + 1):
                if (ev["config"], sid, epoch) in present:
                    continue
                present.add((ev["config"], sid, epoch))
                like = known.get(sid, {})
                added.append({
                    "config": ev["config"], "config_name": ev["config_name"],
                    "model": ev["model"], "eval_id": ev["eval_id"], "log": ev["log"],
                    "created": str(ev.get("created", "")), "scenario_id": sid, "sample_id": sid,
                    "epoch": epoch, "title": like.get("title", ""),
                    "family": like.get("family", ""), "corpus": like.get("corpus"),
                    "channel": like.get("channel"),
                    "variant": like.get("variant"), "split": like.get("split"),
                    "family_id": like.get("family_id"), "probes": list(like.get("probes", [])),
                    "status": "error", "error": reason, "exit_status": "not_run",
                    "model_calls": None, "tool_calls": None, "total_tokens": None,
                    "total_time": None, "verdicts": {}, "value": {},
                })
    if added:
        samples = pd.concat([samples, pd.DataFrame(added, columns=_SAMPLE_COLUMNS)],
                            ignore_index=True)
    samples = samples.sort_values(["config", "scenario_id", "epoch"], kind="stable")
    samples = samples.reset_index(drop=True)
    for col in ("corpus", "channel", "variant", "split", "family_id"):  # pandas infers a NaN-filled string dtype; keep None
        samples[col] = pd.Series([clean(v) for v in samples[col]], index=samples.index,
                                 dtype=object)
    return samples


ITEM_COLUMNS = [
    "config", "scenario_id", "epoch", "item", "family", "state", "figure", "unit",
    "explanation", "log", "sample_id", "corpus", "variant", "split", "family_id",
]


def item_rows(samples: pd.DataFrame) -> pd.DataFrame:
    """One row per probed item of each sample (an errored sample: every probe is ``error``)."""
    rows = []
    for s in samples.to_dict("records"):
        base = {k: s[k] for k in ("config", "scenario_id", "epoch", "log", "sample_id",
                                  "corpus", "variant", "split", "family_id")}
        if s["status"] == "error":
            first = s["error"].strip().splitlines()[0] if s["error"].strip() else "error"
            for item in s["probes"]:
                rows.append({**base, "item": item, "family": family_of(item), "state": "error",
                             "figure": None, "unit": "", "explanation": first})
            continue
        for item in _probed(s):
            rows.append({**base, "item": item, "family": family_of(item),
                         **_verdict(item, s["verdicts"], s["value"])})
    return pd.DataFrame(rows, columns=ITEM_COLUMNS)


def _probed(sample: dict) -> list[str]:
    # The union keeps an item visible even when the scorer and the metadata disagree.
    return list(dict.fromkeys([*sample["probes"], *sample["verdicts"], *sample["value"]]))


def _verdict(item: str, verdicts: dict, value: dict) -> dict:
    v = verdicts.get(item)
    if isinstance(v, dict):
        passed = v.get("passed")
        state = "unjudged" if passed is None else ("pass" if passed else "fail")
        if v.get("state") in ("pass", "fail", "error"):  # the four verdict states (judges/base)
            state = v["state"]
        return {"state": state, "figure": _num(v.get("figure")), "unit": v.get("unit") or "",
                "explanation": str(v.get("explanation") or "")}
    if item in value:
        state = "pass" if _num(value[item]) == 1.0 else "fail"
        return {"state": state, "figure": None, "unit": "", "explanation": ""}
    return {"state": "unjudged", "figure": None, "unit": "",
            "explanation": "the scorer gave no verdict for this item"}
