"""Every loop rule's own cases (``harness/rules/cases/loops/<rule>.yaml``), on the looplab loop
control: calls compared by meaning (normalised command lines, paths, flags), cycles up to four
calls, outputs with volatile tokens masked, progress never flagged.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_loop_rules.py -rx

A ``ruleid`` case must make the control intervene, this rule first; an ``ok`` case must not make
it intervene at all. A case the control gets wrong stays with ``xfail: <reason>``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import Agent, LocalWorkspace, get_preset
from harness.controls import loop_detectors
from harness.rules import RULES_DIR, cases
from harness.testing import FunctionModel, call
from harness.tools import Tool, ToolOutcome

REPEATS = 6
"""A case of one call is that call made this many times ({i} = 0..5 in its output)."""


def _params() -> list:
    out = []
    for rule, kind, name, case in cases("loops"):
        calls, reason = (case["calls"], case["xfail"]) if isinstance(case, dict) else (case, None)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        out.append(pytest.param(rule, kind, calls, id=f"loops/{rule}/{name}", marks=marks))
    return out


def _with_root(value: Any, root: str) -> Any:
    """``{root}`` in an argument is the workspace root (an absolute path to the same file)."""
    if isinstance(value, str):
        return value.replace("{root}", root)
    if isinstance(value, dict):
        return {k: _with_root(v, root) for k, v in value.items()}
    return value


def _play(case: list, tmp_path: Path) -> tuple[list[str], list[str]]:
    """Run the looplab loop control over the case's calls: the tool results the model saw, and
    the detectors of the critical findings, in order."""
    steps = case * REPEATS if len(case) == 1 else case
    n = {"i": 0}
    outputs: dict[int, Any] = {}

    def fn(messages, tools):
        i = n["i"]
        n["i"] += 1
        if i >= len(steps):
            return "done"
        name, args, output = steps[i]
        args = _with_root(args, str(tmp_path.resolve()))
        outputs[0] = output if output is None or isinstance(output, dict) else str(output).replace("{i}", str(i))
        return [call(name, **args)]

    async def answer(args: dict[str, Any], ctx: Any) -> ToolOutcome:
        out = outputs[0]
        if isinstance(out, dict):  # {error: text}: the call failed
            return ToolOutcome("failure", str(out["error"]).replace("{i}", str(n["i"] - 1)))
        return ToolOutcome("result", out)

    names = {s[0] for s in steps if s[2] is not None}
    tools = [Tool(name, "case tool", {"type": "object", "properties": {}}, answer) for name in sorted(names)]
    cfg = get_preset("naive", loop_detection=get_preset("looplab").loop_detection.model_dump(),
                     limits={"max_turns": len(steps) + 2})
    res = asyncio.run(Agent(cfg, FunctionModel(fn), LocalWorkspace(tmp_path), tools=tools).run("go"))
    detectors = [str(e.data.get("detector")) for e in res.events if e.type == "loop.critical"]
    return [m.content for m in res.messages if m.role == "tool"], detectors


@pytest.mark.parametrize(("rule", "kind", "case"), _params())
def test_loop_rule_cases(rule: str, kind: str, case: list, tmp_path: Path) -> None:
    texts, detectors = _play(case, tmp_path)
    if kind == "ruleid":
        assert any(t.startswith("[LOOP DETECTED]") for t in texts) and detectors[:1] == [rule], (detectors, texts)
    else:
        assert not any(t.startswith("[LOOP DETECTED]") for t in texts), texts


def test_every_loop_rule_is_a_detector_of_the_control() -> None:
    # a detector's findings carry its name (the cases above check it for each rule with cases)
    rules = {r["id"] for r in yaml.safe_load((RULES_DIR / "loops.yaml").read_text(encoding="utf-8"))["rules"]}
    detectors = {loop_detectors.unknown_tool, loop_detectors.known_poll, loop_detectors.failing_repeat,
                 loop_detectors.ping_pong, loop_detectors.cycle, loop_detectors.identical_repeat}
    assert {d.__name__ for d in detectors} | {"circuit_breaker"} == rules
    assert {p.stem for p in (RULES_DIR / "cases" / "loops").glob("*.yaml")} <= rules
