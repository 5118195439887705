"""The benchmark report from real inspect logs written through inspect's own log types: rates
clean vs hostile, robustness delta, cost, errors counted apart; and the CLI around it."""

from __future__ import annotations

import subprocess
import sys
import uuid
from dataclasses import dataclass
from pathlib import Path

import pytest
from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalResults,
    EvalSample,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import ModelOutput, ModelUsage
from inspect_ai.scorer import Score

from reports.bench import load_bench, render_markdown, summary, write_bench_report

REPO = Path(__file__).resolve().parents[2]
MODEL = "scripted-bench/oracle"


@dataclass
class Outcome:
    task: str
    variant: str
    success: bool
    canary: bool = False
    tokens: int = 1000
    wall_s: float = 2.0
    turns: int = 4
    error: str | None = None


def _sample(o: Outcome, config: str) -> EvalSample:
    sid = f"{o.task}--{o.variant}"
    hostile = o.variant != "clean"
    verified = o.success or o.canary
    score = Score(
        value={"success": float(o.success), "verified": float(verified), "canary": float(o.canary)},
        explanation="verifier passed" if verified else "verifier failed (1)",
        metadata={"config": config, "task": o.task, "variant": o.variant, "hostile": hostile,
                  "tokens": o.tokens, "wall_s": o.wall_s, "turns": o.turns,
                  "exit_status": "completed" if o.success else "turn_limit"},
    )
    return EvalSample(
        id=sid, epoch=1, input="task", target="",
        metadata={"bench_id": sid, "task": o.task, "variant": o.variant, "hostile": hostile},
        output=ModelOutput.from_content(model=MODEL, content="done"),
        scores=None if o.error else {"bench": score},
        model_usage={MODEL: ModelUsage(input_tokens=o.tokens, output_tokens=0, total_tokens=o.tokens)},
        total_time=o.wall_s, working_time=o.wall_s,
        error=EvalError(message=o.error, traceback=o.error, traceback_ansi=o.error) if o.error else None,
    )


def write_bench_log(directory: Path, config: str, outcomes: list[Outcome],
                    task: str = "looplab_bench") -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    ids = [f"{o.task}--{o.variant}" for o in outcomes]
    spec = EvalSpec(
        eval_id=uuid.uuid4().hex[:22], run_id=uuid.uuid4().hex[:22], task_id=uuid.uuid4().hex[:22],
        created="2026-11-21T20:30:00+00:00", task=task, task_args={"config": config},
        dataset=EvalDataset(name="looplab-bench", samples=len(ids), sample_ids=ids),
        model=MODEL, config=EvalConfig(epochs=1),
    )
    log = EvalLog(status="success", eval=spec,
                  results=EvalResults(total_samples=len(ids), completed_samples=len(ids)),
                  stats=EvalStats(started_at=spec.created, completed_at=spec.created),
                  samples=[_sample(o, config) for o in outcomes])
    path = directory / f"2026-11-21T20-30-00+00-00_{task}_{config}.eval"
    write_eval_log(log, str(path))
    return path


def _naive() -> list[Outcome]:
    return [
        Outcome("fix-config", "clean", True, tokens=1000, wall_s=2.0),
        Outcome("sum-csv", "clean", True, tokens=3000, wall_s=4.0),
        Outcome("fix-config", "poisoned_context", False, canary=True),
        Outcome("sum-csv", "poisoned_context", True),
        Outcome("fix-config", "flood", False),
        Outcome("sum-csv", "flood", False),
        Outcome("sum-csv", "quota", False, error="RuntimeError: sandbox went away"),
    ]


def _looplab() -> list[Outcome]:
    return [Outcome(t, v, True, tokens=2000, wall_s=3.0)
            for t in ("fix-config", "sum-csv") for v in ("clean", "poisoned_context", "flood")]


@pytest.fixture(scope="module")
def bench_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    d = tmp_path_factory.mktemp("bench") / "bench-20261121-203000"
    write_bench_log(d, "naive", _naive())
    write_bench_log(d, "looplab", _looplab())
    return d


def test_rates_delta_and_cost_per_configuration(bench_logs):
    run = load_bench(bench_logs)
    assert run.configs == ["naive", "looplab"]
    assert run.variants[0] == "clean"
    table = {r["config"]: r for r in summary(run).to_dict("records")}
    naive, looplab = table["naive"], table["looplab"]
    assert naive["clean"] == 1.0
    assert naive["hostile"] == pytest.approx(1 / 4)  # the errored quota sample is not a verdict
    assert naive["delta"] == pytest.approx(-0.75)
    assert naive["variant:poisoned_context"] == 0.5 and naive["variant:flood"] == 0.0
    assert naive["canary"] == pytest.approx(1 / 4)
    assert naive["errors"] == 1 and naive["samples"] == 7
    assert looplab["clean"] == looplab["hostile"] == 1.0 and looplab["delta"] == 0.0
    assert looplab["tokens"] == 2000 and looplab["wall_s"] == 3.0


def test_markdown_shows_the_delta_and_the_failures(bench_logs):
    run = load_bench(bench_logs)
    md = render_markdown(run, summary(run))
    assert "| naive | 100% | 25% | -75 pp |" in md
    assert "| looplab | 100% | 100% | +0 pp |" in md
    assert "sum-csv--quota" in md and "sandbox went away" in md
    assert "fix-config--flood" in md


def test_report_files_are_written(bench_logs, tmp_path):
    _, _, written = write_bench_report(bench_logs, tmp_path / "out")
    assert written["markdown"].read_text().startswith("# looplab benchmark: bench-20261121-203000")
    html = written["html"].read_text()
    assert "<table>" in html and "-75 pp" in html


def _reports(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "reports", *args], cwd=REPO, capture_output=True,
                          text=True, timeout=300)


def test_cli_bench_prints_the_headline(bench_logs, tmp_path):
    res = _reports("bench", str(bench_logs), "--out", str(tmp_path / "o"))
    assert res.returncode == 0, res.stderr
    assert "naive: success clean 100%, hostile 25% (robustness delta -75 pp)" in res.stdout
    assert (tmp_path / "o" / "bench.md").exists()


def test_cli_bench_says_a_damaged_log_is_missing_and_exits_1(tmp_path):
    logs = tmp_path / "bench-damaged"
    write_bench_log(logs, "naive", _naive())
    damaged = write_bench_log(logs, "looplab", _looplab())
    damaged.write_bytes(damaged.read_bytes()[:200])  # cut short, as a full disk leaves it
    res = _reports("bench", str(logs))
    assert res.returncode == 1, res.stdout + res.stderr
    assert f"Incomplete: 1 damaged log(s) could not be read ({damaged.name})" in res.stdout
    assert "**Incomplete: 1 damaged log(s)" in (logs / "report" / "bench.md").read_text()
    assert damaged.name in (logs / "report" / "bench.html").read_text()


def test_cli_bench_on_suite_logs_says_what_it_found(standard_logs, tmp_path):
    res = _reports("bench", str(standard_logs), "--out", str(tmp_path / "o"))
    assert res.returncode == 2
    assert "holds no benchmark logs (task looplab_bench); found tasks: looplab_suite" in res.stderr


def test_scorecard_on_bench_logs_points_to_the_bench_report(bench_logs, tmp_path):
    res = _reports("scorecard", str(bench_logs), "--out", str(tmp_path / "o"))
    assert res.returncode == 2
    assert "python -m reports bench LOGDIR" in res.stderr


def test_scorecard_skips_bench_logs_mixed_in(standard_logs, tmp_path):
    from reports.load import load_run

    mixed = tmp_path / "mixed"
    mixed.mkdir()
    for p in standard_logs.glob("*.eval"):
        (mixed / p.name).write_bytes(p.read_bytes())
    write_bench_log(mixed, "naive", _naive())
    run = load_run(mixed)
    assert "bench" not in set(run.samples["scenario_id"].str.split("--").str[-1])
    assert not run.samples["scenario_id"].str.contains("fix-config").any()
    assert set(run.configs) == set(load_run(standard_logs).configs)
