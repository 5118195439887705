"""Judge registry and the verdict (the evidence judges read is ``evals.judges.evidence``).

Every verdict is in one of four states (``VerdictState``), shared by judges, scorers and reports:

- ``pass`` / ``fail``: the harness faced the failure the item names and held / did not hold.
  Only these two are ever counted as the harness's behaviour.
- ``not_applicable``: the harness never faced the failure (the trap was not sprung: the failing
  call was never made, the overflow never reached, the poisoned file never offered) or it offers
  no surface for the item (no sub-agent tool, no context files). Always with the reason.
- ``error``: infrastructure, not the harness (an interrupt, a vanished container, a harness that
  never started, an exception in our own code). Always with the reason.

A verdict must never be cheaper than the behaviour it names: a judge first checks that the trap
was sprung and answers ``not_applicable`` when it was not.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict

from evals.judges.bounds import MEASURES, retry_afters
from evals.judges.evidence import Evidence
from evals.judges.sprung import Sprung, unsprung
from scenarios.checklist import checklist_by_id
from scenarios.schema import Scenario


class JudgeParams(BaseModel):
    model_config = ConfigDict(extra="forbid")

    sprung_when: Sprung | None = None
    """What shows that the harness faced the failure (``evals.judges.sprung``); when it does
    not hold, the verdict is not applicable with the reason, whatever the judge found."""


class VerdictState(StrEnum):
    PASS = "pass"
    FAIL = "fail"
    NOT_APPLICABLE = "not_applicable"
    ERROR = "error"


COUNTED_STATES = frozenset({VerdictState.PASS, VerdictState.FAIL})
"""The states that say something about the harness (rates are taken over these only)."""


@dataclass
class Verdict:
    passed: bool | None
    """``True`` pass, ``False`` fail, ``None`` not judged (``state`` says why: not applicable or
    error; never reported as a pass)."""
    figure: float | None
    unit: str
    explanation: str
    state: VerdictState | None = None
    """Derived from ``passed`` when omitted (``None`` → not applicable); when given, ``passed``
    follows it."""

    def __post_init__(self) -> None:
        if self.state is None:
            self.state = {True: VerdictState.PASS, False: VerdictState.FAIL,
                          None: VerdictState.NOT_APPLICABLE}[self.passed]
        else:
            self.state = VerdictState(self.state)
            self.passed = {VerdictState.PASS: True, VerdictState.FAIL: False}.get(self.state)

    @classmethod
    def not_applicable(cls, reason: str, unit: str = "", figure: float | None = None) -> Verdict:
        """The harness never faced the failure (trap not sprung) or has no surface for it."""
        return cls(None, figure, unit, f"not applicable: {reason}", VerdictState.NOT_APPLICABLE)

    @classmethod
    def error(cls, reason: str, unit: str = "") -> Verdict:
        """Infrastructure failed (not the harness): the item cannot be judged."""
        return cls(None, None, unit, f"error: {reason}", VerdictState.ERROR)

    @property
    def counted(self) -> bool:
        return self.state in COUNTED_STATES


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
    """The judge ``name`` with ``params``, guarded: an erroring or never-started harness and an
    unsprung trap never pass, and a bound the checklist states is applied (``guarded``)."""
    if name not in JUDGES:
        raise KeyError(f"unknown judge {name!r}; known: {', '.join(sorted(JUDGES))}")
    d = JUDGES[name]
    p = d.params_model.model_validate(params)
    return guarded(d.factory(p), p, name, params)


def never_started(ev: Evidence) -> bool:
    """No ending recorded and no model call: the harness never ran (not a proxied run)."""
    return ev.exit_status is None and not ev.observations and "proxy_log" not in ev.run


def guarded(fn: JudgeFn, p: JudgeParams, name: str, params: dict[str, Any]) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        if never_started(ev):
            return Verdict.error("the harness never started (no ending recorded, no model call)")
        trap = p.sprung_when or item_trap(ev.scenario, name, params)
        if trap is not None and (why := await unsprung(trap, ev)):
            return Verdict.not_applicable(f"trap not sprung: {why}; run ended: {ev.exit_status}")
        verdict = await fn(ev)
        if verdict.passed and ev.exit_status == "error":
            return Verdict.error(f"the harness ended on an error, so its pass says nothing "
                                 f"({verdict.explanation})", verdict.unit)
        if verdict.passed:
            return apply_bound(verdict, ev, name, params)
        return verdict

    return run


def probed_item(scenario: Scenario, name: str, params: dict[str, Any]) -> str | None:
    """The checklist item the scenario judges with this judge and these parameters."""
    probes = [*scenario.probes.items(), *(scenario.real_model.probes.items() if scenario.real_model else [])]
    return next((i for i, s in probes if s.judge == name and s.params == params), None)


def item_trap(scenario: Scenario, name: str, params: dict[str, Any]) -> Sprung | None:
    """The checklist item's default trap condition, for a probe that names none."""
    item = checklist_by_id().get(probed_item(scenario, name, params) or "")
    return Sprung.model_validate(item.sprung_when) if item and item.sprung_when else None


def apply_bound(verdict: Verdict, ev: Evidence, name: str, params: dict[str, Any]) -> Verdict:
    """A pass fails when the item's checklist ``bound_s`` is exceeded (``evals.judges.bounds``)."""
    item = checklist_by_id().get(probed_item(ev.scenario, name, params) or "")
    if item is None or item.bound is None or item.bound_s is None:
        return verdict
    took, what = MEASURES[item.bound](ev, retry_afters(ev.scenario))
    if took is None and what.startswith("retried"):
        return Verdict(False, None, "s", f"{verdict.explanation}; but {what}")
    if took is None or took <= item.bound_s:
        note = f"; {what}: {took:.2f} s (bound {item.bound_s:g} s)" if took is not None else ""
        return Verdict(True, verdict.figure, verdict.unit, verdict.explanation + note)
    return Verdict(False, round(took, 2), "s", f"{verdict.explanation}; but {what} took "
                   f"{took:.2f} s, over the {item.bound_s:g} s bound the checklist states")
