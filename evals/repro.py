"""Reproduce one failure on demand: run one scenario with one configuration, print what happened.

The printout follows the run: each model turn, each tool call and its result (cut for the
screen), each intervention the harness made, then the verdict and why. Scripted runs are
deterministic: the same command gives the same verdict and figures.
"""

from __future__ import annotations

import textwrap
from typing import Any

from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalSample

from evals.task import looplab_suite

WIDTH = 100
CUT = 600
MARK = {"pass": "PASS", "fail": "FAIL", "not_applicable": "N/A", "error": "ERROR"}
EXIT_FAILED = 3
"""A probed item failed: the harness did not hold (an infrastructure error exits 1)."""


def _cut(text: str, limit: int = CUT) -> str:
    text = text.rstrip()
    if len(text) <= limit:
        return text
    head, tail = text[: limit * 2 // 3], text[-limit // 3:]
    return f"{head}\n    [... {len(text) - len(head) - len(tail):,} characters not shown ...]\n{tail}"


def _indent(text: str, prefix: str = "    ") -> str:
    return textwrap.indent(text, prefix)


def render_sample(sample: EvalSample, config: str) -> str:
    out: list[str] = []
    meta = sample.metadata
    out.append(f"scenario {sample.id}: {meta.get('title', '')}")
    out.append(f"configuration: {config}    probes: {', '.join(meta.get('probes', []))}")
    out.append("=" * WIDTH)
    interventions = [e for e in sample.events if e.event == "info" and getattr(e, "source", "") == "looplab"]
    turn = 0
    for m in sample.messages:
        role = m.role
        if role == "system":
            continue
        if role == "user":
            out.append(f"[user] {_cut(m.text, 400)}")
        elif role == "assistant":
            turn += 1
            text = m.text.strip()
            calls = getattr(m, "tool_calls", None) or []
            out.append(f"--- turn {turn} " + "-" * (WIDTH - 12))
            if text:
                out.append(f"[model] {_cut(text, 400)}")
            if not text and not calls:
                out.append("[model] (empty reply)")
            for c in calls:
                out.append(f"[call] {c.function}({_args(c.arguments)})")
        elif role == "tool":
            err = " (error)" if getattr(m, "error", None) else ""
            out.append(f"[result{err}]\n{_indent(_cut(m.text))}")
    if interventions:
        out.append("=" * WIDTH)
        out.append("harness events:")
        for e in interventions:
            data: Any = e.data
            if isinstance(data, dict):
                kind = data.get("harness", "?")
                rest = {k: v for k, v in data.items() if k != "harness" and k != "traceback"}
                out.append(f"  {kind}: {_cut(str(rest), 300)}")
    out.append("=" * WIDTH)
    score = (sample.scores or {}).get("checklist")
    if sample.error:
        out.append(f"SAMPLE ERROR: {sample.error.message}")
    if score is not None:
        md = score.metadata or {}
        out.append(f"run ended: {md.get('exit_status')}")
        for item, v in (md.get("items") or {}).items():
            verdict = MARK.get(str(v.get("state")), {True: "PASS", False: "FAIL", None: "N/A"}[v.get("passed")])
            out.append(f"{verdict}  {item}: figure {v.get('figure')} {v.get('unit', '')}")
            out.append(f"      {v.get('explanation', '')}")
    return "\n".join(out)


def _args(arguments: dict[str, Any]) -> str:
    parts = []
    for k, v in arguments.items():
        s = repr(v)
        parts.append(f"{k}={s if len(s) < 120 else s[:100] + '...'}")
    return ", ".join(parts)


def repro(scenario: str, config: str, *, sandbox: str, model: str, log_dir: str,
          overrides: str = "") -> int:
    """Run one scenario on ``config`` (with ``overrides``, e.g. a control switched off) and
    print its transcript; exit 0 when every probe passed, 3 when one failed."""
    task = looplab_suite(config=config, scenarios=scenario, sandbox=sandbox, overrides=overrides)
    [log] = inspect_eval(task, model=model, log_dir=log_dir, display="none")
    if log.status != "success" or not log.samples:
        err = log.error.message if log.error else log.status
        print(f"looplab: the run did not finish: {err}")
        return 1
    sample = log.samples[0]
    print(render_sample(sample, f"{config} ({overrides})" if overrides else config))
    print(f"log: {log.location}")
    if sample.error is not None:
        print("looplab: the sample errored (infrastructure, not the harness): nothing was judged")
        return 1
    score = sample.scores.get("checklist") if sample.scores else None
    states = [str(v.get("state")) for v in ((score.metadata or {}).get("items") or {}).values()] if score else []
    if not states or "error" in states:
        return 1
    return EXIT_FAILED if "fail" in states else 0
