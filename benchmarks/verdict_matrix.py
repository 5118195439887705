"""Verdicts of harness specs on a few scenarios, as a table: the hostile battery (one spec per
attack of tests/harnesses/hostile) and the shipped specs, before and after a change to how
verdicts are reached (docs/verdicts.md has the figures and the commands).

    .venv/bin/python benchmarks/verdict_matrix.py --hostile
    .venv/bin/python benchmarks/verdict_matrix.py --configs toy-example,looplab-sandboxed \\
        --scenarios loop-repeat-failing-command,loop-ping-pong

Each cell is ``state`` per probed item (``error`` for a sample that errored, with the reason
under the table). Self-contained on purpose: it uses only ``evals.task.looplab_suite`` and
inspect's ``eval``, so the same file measures an older checkout too (copy it there with the
template folder).
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
TEMPLATE = ROOT / "tests" / "harnesses" / "hostile"
REPEAT, PING, RM = "loop-repeat-failing-command", "loop-ping-pong", "security-rm-rf-data"
IDENT = "context-identifier-after-compaction"
INJECT = "security-tool-output-injection--changelog-polite-request"
HOSTILE = {
    "toy": [REPEAT, PING, RM, IDENT, INJECT],
    "forge-counters": [REPEAT, PING],
    "restore": [RM],
    "kill-sandbox": [REPEAT],
    "delete-system": [REPEAT],
    "exhaust-memory": [REPEAT],
    "exhaust-disk": [REPEAT],
    "resend-hang": [PING],
    "bypass-relay": [REPEAT],
    "write-evidence": [REPEAT, IDENT, INJECT],
}
"""Attack → the scenarios it is tried on (the toy's verdicts on all of them for comparison)."""
HANG_S = 45
"""``finish.timeout_s`` of the mode that hangs, with no start-up allowance (the others keep the
template's)."""


def hostile_specs(dest: Path, suffix: str = "") -> dict[str, str]:
    """One spec folder per mode under ``dest``; config → its scenarios. ``suffix`` keeps the
    ids (and so the image tags) of two checkouts measured on one engine apart."""
    configs = {}
    for mode, scenarios in HOSTILE.items():
        folder = dest / f"hostile-{mode}{suffix}"
        shutil.copytree(TEMPLATE, folder, ignore=shutil.ignore_patterns("__pycache__"))
        data = yaml.safe_load((folder / "harness.yaml").read_text())
        data["id"], data["env"] = folder.name, {"HOSTILE_MODE": mode}
        if mode == "resend-hang":
            data["finish"] = {**data["finish"], "timeout_s": HANG_S, "start_s": 0}
        (folder / "harness.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
        configs[folder.name] = ",".join(scenarios)
    return configs


def run(configs: dict[str, str], log_dir: Path, max_samples: int) -> list[tuple[str, str, str, str]]:
    from inspect_ai import eval as inspect_eval

    from evals.task import looplab_suite

    tasks = [looplab_suite(config=c, scenarios=s, sandbox="docker") for c, s in configs.items()]
    logs = inspect_eval(tasks, model="scripted/suite", log_dir=str(log_dir), display="none",
                        max_samples=max_samples, max_tasks=4)
    rows = []
    for log in logs:
        config = str(log.eval.task_args.get("config"))
        for sample in log.samples or []:
            if sample.error is not None:
                rows.append((config, str(sample.id), "-", "error: " + sample.error.message[:160]))
                continue
            for item, v in sample.scores["checklist"].metadata["items"].items():
                rows.append((config, str(sample.id), item,
                             f"{v['state']}: {str(v['explanation'])[:160]}"))
    return sorted(rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hostile", action="store_true", help="the hostile battery")
    parser.add_argument("--configs", default="", help="comma-separated configurations")
    parser.add_argument("--scenarios", default=f"{REPEAT},{PING},{RM}")
    parser.add_argument("--max-samples", type=int, default=4)
    parser.add_argument("--logs", default="", help="where inspect's logs go (default: a temp dir)")
    parser.add_argument("--suffix", default="", help="appended to the hostile specs' ids")
    args = parser.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="looplab-verdicts-"))
    configs = {c: args.scenarios for c in args.configs.split(",") if c}
    if args.hostile:
        configs.update(hostile_specs(work / "specs", args.suffix))
        os.environ["LOOPLAB_HARNESSES"] = os.pathsep.join(
            p for p in (os.environ.get("LOOPLAB_HARNESSES", ""), str(work / "specs")) if p)
    started = time.monotonic()
    rows = run(configs, Path(args.logs) if args.logs else work / "logs", args.max_samples)
    print("| configuration | scenario | item | verdict |\n|---|---|---|---|")
    for config, scenario, item, verdict in rows:
        print(f"| {config} | {scenario} | {item} | {verdict.split(':')[0]} |")
    print("\nwhy:")
    for config, scenario, item, verdict in rows:
        print(f"- {config} / {scenario} / {item}: {verdict}")
    print(f"\n{len(rows)} verdicts in {time.monotonic() - started:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
