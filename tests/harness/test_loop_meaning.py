"""Loops by meaning (looplab preset): normalised calls, cycles up to length 4, outputs compared
with volatile tokens masked, progress never flagged. Cases are data under ``shell_cases/``:
``heldout_loops.yaml`` was written before the detectors changed and never tuned on;
``tuned_loops.yaml`` holds the cases they were developed against; ``heldout2_loops.yaml`` was
written before the second round (program path forms, canonical unknown-tool names, general
volatile tokens) and never tuned on either; ``heldout4_loops.yaml`` before the fourth (path forms,
``--k v`` = ``--k=v``, cycles of log reads, unknown tools renamed, spinners and progress bars).

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_loop_meaning.py -rx
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import Agent, LocalWorkspace, get_preset
from harness.testing import FunctionModel, call
from harness.tools import Tool, ToolOutcome

CASES = Path(__file__).parent / "shell_cases"
REPEATS = 6
"""A case of one call is that call made this many times ({i} = 0..5 in its output)."""
HELDOUT_MISSES: dict[str, str] = {
    "heldout4-cycles_up_to_four-3": "short flags with values in another order (`-u nginx -n 30` vs "
    "`-n 30 -u nginx`): whether `-u` takes a value depends on the program, and nothing in either call says",
    "heldout4-equals_vs_space_distinct-4": "a long flag whose value is optional (`git diff --stat[=n]`) is "
    "read as taking `main` as its value once another call spells `--stat=main` (pairwise `--k v` = "
    "`--k=v`); such calls merge only when their outputs are also the same",
}
"""Held-out cases the detectors get wrong, with the reason (left unfixed on purpose)."""


def _params(kind: str) -> list:
    out = []
    for split in ("heldout", "heldout2", "heldout4", "heldout5", "heldout6", "tuned"):
        path = CASES / f"{split}_loops.yaml"
        if not path.exists():
            continue
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        groups = {**(data.get(kind) or {}), **(data.get(f"{kind}_found_while_fixing") or {})}
        for form, cases in groups.items():
            for i, case in enumerate(cases):
                cid = f"{split}-{form}-{i}"
                marks = [pytest.mark.xfail(reason=HELDOUT_MISSES[cid], strict=True)] if cid in HELDOUT_MISSES else []
                out.append(pytest.param(case, id=cid, marks=marks))
    return out


def _with_root(value: Any, root: str) -> Any:
    """``{root}`` in an argument is the workspace root (an absolute path to the same file)."""
    if isinstance(value, str):
        return value.replace("{root}", root)
    if isinstance(value, dict):
        return {k: _with_root(v, root) for k, v in value.items()}
    return value


def _play(case: list, tmp_path: Path) -> list[str]:
    """Run the looplab loop control over the case's calls; the tool results the model saw."""
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
    return [m.content for m in res.messages if m.role == "tool"]


@pytest.mark.parametrize("case", _params("flagged"))
def test_looplab_intervenes_on_loops_by_meaning(case: list, tmp_path: Path) -> None:
    texts = _play(case, tmp_path)
    assert any(t.startswith("[LOOP DETECTED]") for t in texts), texts


@pytest.mark.parametrize("case", _params("not_flagged"))
def test_looplab_leaves_progress_alone(case: list, tmp_path: Path) -> None:
    texts = _play(case, tmp_path)
    assert not any(t.startswith("[LOOP DETECTED]") for t in texts), texts
