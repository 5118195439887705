"""What a judge reads about one sample (``Evidence``), gathered by the scorer after the run."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from harness.workspace import Workspace
from scenarios.schema import Scenario


@dataclass
class Evidence:
    scenario: Scenario
    """The scenario the sample ran (its files, faults, driver, probes): judges read it here,
    never by looking the scenario up again."""
    workspace: Workspace
    """The sandbox after the run (read files and counters here)."""
    observations: list[dict[str, Any]]
    """What the scripted actor saw on each model call (tokens, faults, markers...)."""
    exit_status: str | None
    """The agent's typed ending (``completed``, ``turn_limit``...) or None if it left none."""
    final_answer: str
    transcript_text: str = ""
    """All message text the agent ended with, joined (for leak checks)."""
    run: dict[str, Any] = field(default_factory=dict)
    """The run record the agent left (``evals.state.RunRecord.run``: counters, the driver's
    record, items without a surface), plus the fault proxy's log under ``proxy_log``."""

    @property
    def scenario_id(self) -> str:
        return self.scenario.id
