"""Pass rates per configuration and split (public library; dev, untuned and fresh families).

A control change is judged on the untuned split, and the fresh split (rows written after the
last control change, never tuned on) says how well that judgement holds: this reads inspect
logs and prints, per
configuration, the pass rate of checklist verdicts on each split (and per family with
``--by-family``). Only pass and fail count; not-applicable and error verdicts are left out.

    python -m evals.family_rates logs/            # every .eval log under logs/
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

from inspect_ai.log import list_eval_logs, read_eval_log

SPLITS = ("public", "dev", "untuned", "fresh")


def _config(log: Any) -> str:
    meta = log.eval.metadata or {}
    args = log.eval.task_args or {}
    label = meta.get("label") or args.get("config", "?")
    overrides = args.get("overrides") or ""
    return label if "[" in label or not overrides else f"{label}[{overrides}]"


def _passed(entry: dict[str, Any]) -> bool | None:
    state = entry.get("state")
    if state in ("not_applicable", "error"):
        return None
    return entry.get("passed")


def tally(paths: list[str], by_family: bool = False) -> dict[tuple[str, str, str], list[int]]:
    """(configuration, split, family or "") → [passed, judged] over item verdicts."""
    out: dict[tuple[str, str, str], list[int]] = defaultdict(lambda: [0, 0])
    for path in paths:
        log = read_eval_log(path)
        config = _config(log)
        for sample in log.samples or []:
            meta = sample.metadata or {}
            split = meta.get("split") or "public"
            family = (meta.get("family_id") or "library") if by_family else ""
            score = (sample.scores or {}).get("checklist")
            items = (score.metadata or {}).get("items", {}) if score else {}
            for entry in items.values():
                verdict = _passed(entry)
                if verdict is None:
                    continue
                cell = out[(config, split, family)]
                cell[0] += bool(verdict)
                cell[1] += 1
    return dict(out)


def table(counts: dict[tuple[str, str, str], list[int]]) -> str:
    rows = sorted({(c, f) for c, _, f in counts})
    lines = ["| configuration | family | " + " | ".join(SPLITS) + " |",
             "|---|---|" + "---|" * len(SPLITS)]
    for config, family in rows:
        cells = []
        for split in SPLITS:
            passed, judged = counts.get((config, split, family), [0, 0])
            cells.append(f"{passed}/{judged} ({passed / judged:.0%})" if judged else "-")
        lines.append(f"| {config} | {family or 'all'} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _logs(targets: list[str]) -> list[str]:
    paths: list[str] = []
    for t in targets:
        p = Path(t)
        if p.is_dir():
            paths += [info.name for info in list_eval_logs(str(p), recursive=True)]
        elif p.exists():
            paths.append(str(p))
        else:
            raise SystemExit(f"family_rates: {t}: no such log file or directory")
    return paths


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m evals.family_rates", description=__doc__.split("\n")[0])
    ap.add_argument("logs", nargs="+", help=".eval log files or directories")
    ap.add_argument("--by-family", action="store_true", help="one row per family as well")
    args = ap.parse_args(argv)
    counts = tally(_logs(args.logs))
    text = table(counts)
    if args.by_family:
        text += "\n\n" + table(tally(_logs(args.logs), by_family=True))
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
