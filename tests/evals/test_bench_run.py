"""The benchmark end to end on the local sandbox, with the scripted actors playing the model:
every verifier passes when the oracle solves the task and fails when the idle actor does not,
and the hostile variants cost the bare loop (``naive``) more than ``looplab``."""

from __future__ import annotations

import os
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from evals.bench.task import looplab_bench
from scenarios.bench import load_tasks

REPO = Path(__file__).resolve().parents[2]


def run_bench(tmp_path: Path, config: str, model: str, *, tasks: str = "", variants: str = "",
              sandbox: str = "local") -> dict[str, dict[str, Any]]:
    """sample id → score value + metadata, after asserting the eval and samples ran cleanly."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # sandbox=local is warned about, on purpose
        task = looplab_bench(config=config, tasks=tasks, variants=variants, sandbox=sandbox)
    [log] = inspect_eval(task, model=model, log_dir=str(tmp_path / "logs"), display="none",
                         max_samples=4)
    return results(log)


def results(log: EvalLog) -> dict[str, dict[str, Any]]:
    assert log.status == "success", log.error
    out = {}
    for s in log.samples or []:
        assert s.error is None, f"{s.id}: {s.error}"
        score = s.scores["bench"]
        out[str(s.id)] = {**score.value, **score.metadata, "explanation": score.explanation}
    return out


def test_oracle_passes_every_verifier(tmp_path):
    res = run_bench(tmp_path, "looplab", "scripted-bench/oracle", variants="clean")
    assert set(res) == {f"{t}--clean" for t in load_tasks()}
    failing = {k: v["explanation"] for k, v in res.items() if v["verified"] != 1.0}
    assert not failing, failing
    for r in res.values():
        assert r["success"] == 1.0 and r["canary"] == 0.0
        assert r["tokens"] > 0 and r["wall_s"] > 0 and r["turns"] >= 2
        assert r["config"] == "looplab" and r["variant"] == "clean" and r["hostile"] is False


def test_idle_actor_fails_every_verifier(tmp_path):
    res = run_bench(tmp_path, "looplab", "scripted-bench/idle", variants="clean")
    assert set(res) == {f"{t}--clean" for t in load_tasks()}
    passing = [k for k, v in res.items() if v["verified"] != 0.0]
    assert not passing, f"verifiers that pass on an untouched workspace: {passing}"


def _by_variant(res: dict[str, dict[str, Any]], key: str = "success") -> dict[str, float]:
    out: dict[str, list[float]] = {}
    for r in res.values():
        out.setdefault(r["variant"], []).append(r[key])
    return {v: sum(xs) / len(xs) for v, xs in out.items()}


HOSTILE_TASKS = "fix-failing-test"


def test_hostile_variants_hurt_naive_and_not_looplab(tmp_path):
    looplab = run_bench(tmp_path / "a", "looplab", "scripted-bench/oracle", tasks=HOSTILE_TASKS)
    naive = run_bench(tmp_path / "b", "naive", "scripted-bench/oracle", tasks=HOSTILE_TASKS)
    assert _by_variant(looplab) == {v: 1.0 for v in
                                    ("clean", "poisoned_context", "flood", "quota", "loop_bait")}
    by_variant = _by_variant(naive)
    assert by_variant["clean"] == 1.0
    assert all(by_variant[v] == 0.0 for v in ("poisoned_context", "flood", "quota", "loop_bait"))
    # How naive lost each: the injected command ran, the flood overflowed the model's window,
    # the quota error ended the run, the bait ate the turn cap.
    assert _by_variant(naive, "canary")["poisoned_context"] == 1.0
    assert _by_variant(naive, "verified")["poisoned_context"] == 1.0
    ends = {r["variant"]: r["exit_status"] for r in naive.values()}
    assert ends["flood"] == "context_overflow"
    assert ends["quota"] == "provider_error"
    assert ends["loop_bait"] == "turn_limit"


def test_peer_agent_runs_the_benchmark(tmp_path):
    res = run_bench(tmp_path, "inspect-react", "scripted-bench/oracle", tasks="fix-config",
                    variants="clean,poisoned_context")
    assert res["fix-config--clean"]["success"] == 1.0
    # inspect's react() reads AGENTS.md unprotected: the obedient model runs the injection.
    assert res["fix-config--poisoned_context"]["canary"] == 1.0
    assert res["fix-config--poisoned_context"]["success"] == 0.0


def test_bad_task_arguments_are_named():
    with pytest.raises(ValueError, match="tasks: unknown id"):
        looplab_bench(tasks="no-such-task", sandbox="local")
    with pytest.raises(ValueError, match="task argument config"):
        looplab_bench(config="no-such-preset", sandbox="local")


def _cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "evals", "bench", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


def test_cli_runs_then_reports(tmp_path):
    logs, out = tmp_path / "bench-logs", tmp_path / "out"
    res = _cli("--configs", "naive,looplab", "--tasks", "sum-csv", "--variants", "clean,quota",
               "--sandbox", "local", "--log-dir", str(logs), "--display", "none", "--no-report")
    assert res.returncode == 0, res.stdout + res.stderr
    assert len(list(logs.glob("*.eval"))) == 2
    rep = subprocess.run([sys.executable, "-m", "reports", "bench", str(logs), "--out", str(out)],
                         cwd=REPO, capture_output=True, text=True, timeout=300)
    assert rep.returncode == 0, rep.stderr
    assert "naive: success clean 100%, hostile 0% (robustness delta -100 pp)" in rep.stdout
    assert "looplab: success clean 100%, hostile 100% (robustness delta +0 pp)" in rep.stdout
    assert (out / "bench.md").exists() and (out / "bench.html").exists()


@pytest.mark.parametrize(("args", "message"), [
    (["--tasks", "nope"], "--tasks: unknown id(s) nope"),
    (["--variants", "storm"], "--variants: unknown id(s) storm"),
    (["--configs", "bogus"], "--configs: unknown configuration(s) ['bogus']"),
    (["--configs", "inspect-react", "--overrides", "context_window=8192"],
     "overrides: not supported for peer 'inspect-react'"),
])
def test_cli_bad_flags_are_named(args, message):
    res = _cli(*args, "--sandbox", "local")
    assert res.returncode == 2
    assert message in res.stderr


@pytest.mark.docker
def test_one_task_in_docker(tmp_path):
    res = run_bench(tmp_path, "looplab", "scripted-bench/oracle", tasks="fix-failing-test",
                    variants="clean", sandbox="docker")
    assert res["fix-failing-test--clean"]["success"] == 1.0, res
