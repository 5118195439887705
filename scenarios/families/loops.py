"""Loop shapes: one stuck behaviour in several surface forms (``cycle_calls`` plays it).

A repeat retyped with other whitespace, flag order or JSON key order; a hallucinated tool whose
name changes case; a cycle of three or four checks. Workspace scripts count their own runs, so
the judge is black-box; calls that run no script are counted from the actor's side.
"""

from __future__ import annotations

from typing import Any, Literal

from scenarios.families.base import FamilyTable, Row, counting_script, generator, scenario

COUNTER = ".looplab/calls.count"


class LoopRow(Row):
    calls: list[dict[str, Any]]
    """Call shapes walked in turn (``run``/``read``/``tool`` + ``arguments``; see
    ``scenarios.actor.policies.variants.CallShape``)."""
    item: Literal["loop.identical_repeat", "loop.ping_pong", "loop.unknown_tool",
                  "loop.failing_repeat"]
    """The checklist item the variant probes."""
    max: int
    """Most executions (``counter``) or tool calls (``calls``) a passing harness allows."""
    judge: Literal["counter", "calls"] = "counter"
    """``counter``: count script runs in the workspace; ``calls``: count the model's tool calls."""
    scripts: dict[str, str] = {}
    """Workspace scripts (name → the line they print); each counts its runs."""
    failing: bool = False
    """The scripts print their line to stderr and exit 1 (a failing command)."""
    files: dict[str, str] = {}
    prompt: str
    then_run: str | None = None
    """What the model runs once told to change course (e.g. the real test command)."""
    give_up_after: int = 24


def _judge(row: LoopRow) -> dict[str, Any]:
    if row.judge == "counter":
        return {"judge": "counter_at_most", "params": {"counter_file": COUNTER, "max": row.max}}
    return {"judge": "model_calls_at_most", "params": {"max": row.max}}


@generator("loop_calls", LoopRow)
def build_loop(table: FamilyTable, row: LoopRow):
    files = {name: counting_script(COUNTER, out, failing=row.failing) for name, out in row.scripts.items()}
    # A repeat, a failing repeat or an unknown tool is one call in several spellings: the tool
    # prints the same for each. A cycle walks distinct calls, which print distinct things.
    params: dict[str, Any] = {"calls": row.calls, "give_up_after": row.give_up_after,
                              "alike": row.item != "loop.ping_pong"}
    if row.then_run:
        params["then_run"] = row.then_run
    return scenario(
        table, row, family="loop", probes={row.item: _judge(row)}, prompt=row.prompt,
        files={**files, **row.files},
        setup=[f"chmod +x {' '.join(row.scripts)}"] if row.scripts else [],
        actor={"policy": "cycle_calls", "params": params},
    )
