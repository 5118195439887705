"""The ``checklist`` scorer: one verdict per checklist item the scenario probes.

``Score.value`` holds one key per checklist item the task can probe (``checklist(items)``):
``1.0`` pass, ``0.0`` fail, NaN when this sample did not judge it (not probed, not applicable,
error). inspect gives each key its own metric (``mean`` over the samples that judged it), so
``evals_df`` has a column per item, and NaN keeps the unjudged out of every rate.
``Score.metadata["items"]`` holds per probed item ``state`` (``evals.judges.base.VerdictState``) /
``passed`` / ``figure`` / ``unit`` / ``explanation``.

Infrastructure is not the harness: when the sandbox is gone, the run ended on an exception in
our code, or the harness never recorded an ending, the scorer raises ``InfrastructureError`` and
inspect records a *sample error*; no item is judged.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, mean, metric, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import sandbox, store_as

from evals.adapter import SandboxWorkspace
from evals.judges import Evidence
from evals.judges.base import Verdict, make_judge
from evals.library import get_scenario
from evals.state import ActorObservations, ProxyLog, RunRecord
from scenarios.schema import Scenario

LIVENESS_TIMEOUT_S = 30
MARK = {"pass": "PASS", "fail": "FAIL", "not_applicable": "N/A", "error": "ERROR"}


class InfrastructureError(RuntimeError):
    """The sample could not be judged: the sandbox, the eval process or our own code failed,
    not the harness under test. inspect records it as the sample's error."""


@metric
def pass_rate() -> Metric:
    """Share of judged checklist items that passed, over all samples (NaN = not judged)."""

    def compute(scores: list[SampleScore]) -> float:
        values = [float(v) for s in scores if isinstance(s.score.value, dict)
                  for v in s.score.value.values() if _judged(v)]
        return sum(values) / len(values) if values else math.nan

    return compute


def _judged(value: Any) -> bool:
    return isinstance(value, int | float) and not math.isnan(float(value))


async def gather_evidence(state: TaskState, scenario: Scenario) -> Evidence:
    texts = [m.text for m in state.messages]
    record, proxy_log = store_as(RunRecord), store_as(ProxyLog).entries
    return Evidence(
        scenario=scenario,
        workspace=await SandboxWorkspace.open(sandbox()),
        observations=store_as(ActorObservations).observations,
        exit_status=record.exit_status,
        final_answer=state.output.completion if state.output else "",
        transcript_text="\n".join(texts),
        run={**record.run, **({"proxy_log": proxy_log} if proxy_log is not None else {})},
    )


async def infrastructure_failure() -> str | None:
    """Why this sample cannot be judged, or None. Checked before any judge reads anything."""
    record = store_as(RunRecord)
    if record.exit_status is None:
        return ("the harness recorded no ending: it never started, or the sample was stopped "
                "before it could")
    if record.exit_status == "error":
        message = str(record.run.get("message") or "(no message)")
        return f"the run ended on an exception in our code: {message[:300]}"
    try:  # a container removed mid-run (cleanup, interrupt, engine restart) ends here
        res = await sandbox().exec(["true"], timeout=LIVENESS_TIMEOUT_S)
    except Exception as e:
        return f"the sandbox is gone: {type(e).__name__}: {e}"
    if not res.success:
        return f"the sandbox no longer runs commands (exit {res.returncode}): {res.stderr[:200]}"
    return None


async def judge_item(spec: Any, evidence: Evidence) -> Verdict:
    try:
        return await make_judge(spec.judge, spec.params)(evidence)
    except Exception as e:  # a judge bug is ours, not the harness's
        return Verdict.error(f"judge {spec.judge} raised {type(e).__name__}: {e}")


@scorer(metrics=[{"*": [mean()]}, pass_rate()])
def checklist(items: Sequence[str] = ()) -> Scorer:
    """Judge every probed item; ``items``: every item id the task's samples probe (each becomes
    a key of ``Score.value`` with its own metric)."""

    async def score(state: TaskState, target: Target) -> Score:
        scenario = get_scenario(str(state.metadata["scenario_id"]))
        reason = await infrastructure_failure()
        if reason is not None:
            raise InfrastructureError(f"{scenario.id}: not judged: {reason}")
        evidence = await gather_evidence(state, scenario)
        probes = dict(scenario.probes)
        if "proxy_log" in evidence.run and scenario.real_model:
            probes.update(scenario.real_model.probes)  # judged from what the fault proxy saw
        values: dict[str, float] = {i: math.nan for i in (*items, *probes)}
        verdicts: dict[str, dict[str, Any]] = {}
        lines = []
        no_surface = evidence.run.get("not_applicable") or {}  # items the harness cannot face
        for item_id, spec in probes.items():
            verdict = (Verdict.not_applicable(no_surface[item_id]) if item_id in no_surface
                       else await judge_item(spec, evidence))
            verdicts[item_id] = {"state": str(verdict.state), "passed": verdict.passed,
                                 "figure": verdict.figure, "unit": verdict.unit,
                                 "explanation": verdict.explanation}
            if verdict.passed is not None:
                values[item_id] = 1.0 if verdict.passed else 0.0
            lines.append(f"{MARK[str(verdict.state)]} {item_id}: {verdict.explanation}")
        return Score(
            value=values,
            explanation="\n".join(lines),
            metadata={
                "items": verdicts,
                "exit_status": evidence.exit_status,
                "model_calls": len(evidence.observations) or evidence.run.get("model_calls"),
                "tool_calls": evidence.run.get("tool_calls"),
            },
        )

    return score
