"""The limits table: every cap of the config is a row, and every early ending is one of its rows."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from harness import HarnessConfig, get_preset, preset_names
from harness.state import Limit, run_limits
from harness.status import ExitStatus

HARNESS = Path(__file__).resolve().parents[2] / "harness"

CAPS = {
    "turns": ("limits", "max_turns", 7),
    "tool_calls": ("limits", "max_tool_calls", 9),
    "input_tokens": ("budget", "max_input_tokens", 1_000),
    "output_tokens": ("budget", "max_output_tokens", 500),
    "cost_usd": ("hooks", "max_cost_usd", 2.5),
    "circuit_breaker": ("loop_detection", "circuit_breaker_threshold", 40),
    "ignored_criticals": ("loop_detection", "critical_limit", 4),
    "empty_replies": ("empty_reply", "max_nudges", 2),
    "retry_attempts": ("failover", "max_failed_attempts", 6),
    "retry_seconds": ("failover", "retry_budget_s", 30.0),
}
"""Each row that holds a cap, and the config field it comes from."""


@pytest.mark.parametrize("row", sorted(CAPS))
def test_each_cap_of_the_config_is_a_row(row: str) -> None:
    section, field, value = CAPS[row]
    on = {"enabled": True} if section != "limits" else {}
    limits = run_limits(HarnessConfig(**{section: {**on, field: value}}))
    assert limits[row].cap == value
    if on:  # the section switched off: its cap caps nothing
        assert run_limits(HarnessConfig(**{section: {"enabled": False, field: value}}))[row].cap is None


@pytest.mark.parametrize("preset", preset_names())
def test_the_presets_caps_are_their_config_values(preset: str) -> None:
    cfg = get_preset(preset)
    limits = run_limits(cfg)
    for row, (section, field, _) in CAPS.items():
        part = getattr(cfg, section)
        on = getattr(part, "enabled", True) and (row != "circuit_breaker" or part.circuit_breaker)
        assert limits[row].cap == (getattr(part, field) if on else None), row


def test_every_early_ending_has_a_row() -> None:
    statuses = {row.status for row in run_limits(HarnessConfig()).values()}
    assert statuses == set(ExitStatus) - {ExitStatus.COMPLETED, ExitStatus.ERROR}


def test_a_cap_is_reached_or_passed_as_its_row_says() -> None:
    assert not Limit("x", ExitStatus.TURN_LIMIT).reached(10**9)
    assert Limit("x", ExitStatus.TURN_LIMIT, 3).reached(3)
    budget = Limit("x", ExitStatus.TOKEN_BUDGET, 3, over=True)
    assert not budget.reached(3) and budget.reached(4)


def _run_ended(tree: ast.AST) -> list[ast.Call]:
    return [n for n in ast.walk(tree) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name) and n.func.id == "RunEnded"]


def test_no_ending_bypasses_the_table() -> None:
    """``RunEnded`` is built by the table (``RunState.ending``) and, for the one ending that is
    no limit, by the loop when the model has answered."""
    found = {}
    for path in sorted(HARNESS.rglob("*.py")):
        calls = _run_ended(ast.parse(path.read_text()))
        if calls:
            found[str(path.relative_to(HARNESS))] = [ast.unparse(c.args[0]) if c.args else "" for c in calls]
    assert found == {"loop.py": ["ExitStatus.COMPLETED"],
                     "state.py": ["limit.status if limit is not None else status"]}
