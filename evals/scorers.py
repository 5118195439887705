"""The ``checklist`` scorer: one verdict per checklist item the scenario probes.

``Score.value`` is ``{item_id: 1.0 | 0.0}`` for items that passed or failed (not applicable and
errored items are left out: they say nothing about the harness); ``Score.metadata["items"]`` holds
per item ``state`` (``evals.judges.base.VerdictState``) / ``passed`` / ``figure`` / ``unit`` /
``explanation``.
"""

from __future__ import annotations

import math
from typing import Any

from inspect_ai.scorer import Metric, SampleScore, Score, Scorer, Target, metric, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import sandbox, store

from evals.adapter import SandboxWorkspace
from evals.agents import EXIT_KEY, RUN_KEY
from evals.judges import Evidence
from evals.judges.base import make_judge
from evals.realmodel.sample_proxy import PROXY_KEY
from evals.scripted_provider import OBSERVATIONS_KEY
from scenarios.loader import get_scenario


@metric
def pass_rate() -> Metric:
    """Share of judged checklist items that passed, over all samples."""

    def compute(scores: list[SampleScore]) -> float:
        values = [float(v) for s in scores if isinstance(s.score.value, dict)
                  for v in s.score.value.values()]
        return sum(values) / len(values) if values else math.nan

    return compute


async def gather_evidence(state: TaskState) -> Evidence:
    texts = [m.text for m in state.messages]
    return Evidence(
        scenario_id=str(state.metadata["scenario_id"]),
        workspace=await SandboxWorkspace.open(sandbox()),
        observations=list(store().get(OBSERVATIONS_KEY, [])),
        exit_status=store().get(EXIT_KEY),
        final_answer=state.output.completion if state.output else "",
        transcript_text="\n".join(texts),
        run={**store().get(RUN_KEY, {}),
             **({"proxy_log": store().get(PROXY_KEY)} if store().get(PROXY_KEY) is not None else {})},
    )


@scorer(metrics=[pass_rate()])
def checklist() -> Scorer:
    async def score(state: TaskState, target: Target) -> Score:
        scenario = get_scenario(str(state.metadata["scenario_id"]))
        evidence = await gather_evidence(state)
        values: dict[str, float] = {}
        items: dict[str, dict[str, Any]] = {}
        lines = []
        probes = dict(scenario.probes)
        if "proxy_log" in evidence.run and scenario.real_model:
            probes.update(scenario.real_model.probes)  # judged from what the fault proxy saw
        for item_id, spec in probes.items():
            verdict = await make_judge(spec.judge, spec.params)(evidence)
            items[item_id] = {"state": str(verdict.state), "passed": verdict.passed,
                              "figure": verdict.figure, "unit": verdict.unit,
                              "explanation": verdict.explanation}
            if verdict.passed is not None:
                values[item_id] = 1.0 if verdict.passed else 0.0
            mark = {"pass": "PASS", "fail": "FAIL", "not_applicable": "N/A",
                    "error": "ERROR"}[str(verdict.state)]
            lines.append(f"{mark} {item_id}: {verdict.explanation}")
        return Score(
            value=values,
            explanation="\n".join(lines),
            metadata={
                "items": items,
                "exit_status": evidence.exit_status,
                "model_calls": len(evidence.observations) or evidence.run.get("model_calls"),
                "tool_calls": evidence.run.get("tool_calls"),
            },
        )

    return score
