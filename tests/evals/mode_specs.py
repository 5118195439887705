"""Test-only harness specs with one spec per mode: the folders under tests/harnesses/ are
templates whose program reads its mode from an environment variable; each mode becomes a spec
of its own (``<template>-<mode>``, that variable set) in a folder LOOPLAB_HARNESSES names."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import yaml
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from evals.task import looplab_suite

TEMPLATES = Path(__file__).resolve().parents[1] / "harnesses"


def mode_specs(template: str, variable: str, modes: list[str], dest: Path,
               finish: dict[str, dict[str, Any]] | None = None) -> dict[str, str]:
    """mode → spec id, each a copy of ``tests/harnesses/<template>`` with ``variable=mode``
    (and, per mode, ``finish`` fields of its own: e.g. a shorter timeout for one that hangs)."""
    ids = {}
    for mode in modes:
        spec_id = f"{template}-{mode}"
        folder = dest / spec_id
        if folder.exists():
            shutil.rmtree(folder)
        shutil.copytree(TEMPLATES / template, folder, ignore=shutil.ignore_patterns("__pycache__"))
        data = yaml.safe_load((folder / "harness.yaml").read_text())
        data["id"], data["env"] = spec_id, {**(data.get("env") or {}), variable: mode}
        data["finish"] = {**data["finish"], **(finish or {}).get(mode, {})}
        (folder / "harness.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        ids[mode] = spec_id
    return ids


def run_specs(configs: dict[str, str], log_dir: Path) -> dict[str, dict[str, dict[str, Any]]]:
    """config → scenario id → {item: verdict entry, or {"error": message}} for a sample that
    errored. ``configs`` maps each config to its comma-separated scenarios."""
    tasks = [looplab_suite(config=c, scenarios=s, sandbox="docker") for c, s in configs.items()]
    logs: list[EvalLog] = inspect_eval(tasks, model="scripted/suite", log_dir=str(log_dir),
                                       display="none", max_samples=4, max_tasks=4)
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for log in logs:
        config = str(log.eval.task_args.get("config"))
        for sample in log.samples or []:
            if sample.error is not None:
                out.setdefault(config, {})[str(sample.id)] = {"error": sample.error.message}
                continue
            out.setdefault(config, {})[str(sample.id)] = sample.scores["checklist"].metadata["items"]
    return out


def states(results: dict[str, dict[str, Any]]) -> dict[str, str]:
    """``scenario:item`` → verdict state (``error`` for a sample that errored)."""
    flat = {}
    for scenario, items in results.items():
        if "error" in items and isinstance(items["error"], str):
            flat[scenario] = "error"
            continue
        for item, verdict in items.items():
            flat[f"{scenario}:{item}"] = str(verdict["state"])
    return flat
