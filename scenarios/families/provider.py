"""Provider faults in several dialects and schedules: the same failure as other providers and
other timings present it.

Each row schedules faults (``FaultRule`` fields) and names the provider ``dialect`` whose
wording, status and headers the fault should carry. The dialect reaches the scenario's
``dialect`` field when the schema has one (wire-format faults, ``evals/wire_faults.py``);
until then it is kept as a ``dialect:<name>`` tag and only the schedule varies.
"""

from __future__ import annotations

from typing import Any, Literal

from scenarios.families.base import FamilyTable, Row, generator, scenario
from scenarios.schema import FaultRule, Scenario

ITEMS = Literal["provider.rate_limit_backoff", "provider.quota_fallback",
                "provider.overloaded_fallback", "provider.auth_fallback"]
DIALECT_FIELD = "dialect"
"""The Scenario field naming the provider dialect (used when the schema has it)."""


class ProviderRow(Row):
    item: ITEMS
    faults: list[FaultRule]
    dialect: str = "openai"
    """Whose wording/status/headers the faults carry: openai, azure, anthropic, google, vllm,
    llamacpp."""
    fallback: bool = True
    """Configure ``scripted/backup`` as a fallback model."""
    parts: int = 4
    """How many report parts the task writes (one model turn each)."""


def _dialect_fields(dialect: str) -> dict[str, Any]:
    if DIALECT_FIELD in Scenario.model_fields:
        return {DIALECT_FIELD: dialect}
    return {"tags": [f"dialect:{dialect}"]}


@generator("provider_fault", ProviderRow)
def build_provider(table: FamilyTable, row: ProviderRow):
    files = [f"report/part{i}.txt" for i in range(1, row.parts + 1)]
    steps = [{"write": f, "content": f"Part {i}.\n"} for i, f in enumerate(files, 1)]
    return scenario(
        table, row, family="provider",
        probes={row.item: {"judge": "files_present", "params": {"files": files}}},
        prompt=f"Write the {row.parts} parts of the report, report/part1.txt to report/part{row.parts}.txt.",
        actor={"policy": "step_plan", "params": {
            "steps": steps, "final_answer": "The report parts are written."}},
        faults=[f.model_dump(exclude_defaults=True) for f in row.faults],
        fallback_models=["scripted/backup"] if row.fallback else [],
        **_dialect_fields(row.dialect),
    )
