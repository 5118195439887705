"""Judge registry, the evidence judges read, and their verdict."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import BaseModel, ConfigDict

from harness.workspace import Workspace


class JudgeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")


@dataclass
class Verdict:
    passed: bool | None
    """``None``: could not be judged (reported as not scored, never as a pass)."""
    figure: float | None
    unit: str
    explanation: str


@dataclass
class Evidence:
    scenario_id: str
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


JudgeFn = Callable[[Evidence], Awaitable[Verdict]]


@dataclass(frozen=True)
class JudgeDef:
    name: str
    params_model: type[JudgeParams]
    factory: Callable[[Any], JudgeFn]


JUDGES: dict[str, JudgeDef] = {}


def judge(name: str, params: type[JudgeParams]) -> Callable[[Callable[[Any], JudgeFn]], Callable[[Any], JudgeFn]]:
    def register(factory: Callable[[Any], JudgeFn]) -> Callable[[Any], JudgeFn]:
        JUDGES[name] = JudgeDef(name, params, factory)
        return factory

    return register


def make_judge(name: str, params: dict[str, Any]) -> JudgeFn:
    if name not in JUDGES:
        raise KeyError(f"unknown judge {name!r}; known: {', '.join(sorted(JUDGES))}")
    d = JUDGES[name]
    return d.factory(d.params_model.model_validate(params))
