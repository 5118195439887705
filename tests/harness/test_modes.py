"""Plan/execute mode at three layers: prompt section, tool filtering, runtime blocking."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness import Agent, HarnessConfig, LocalWorkspace
from harness.messages import Message
from harness.model import ToolSpec
from harness.security.modes import allowed_tools, mode_prompt_section
from harness.testing import FunctionModel, call
from harness.tools import resolve_tools

ALL = ["bash", "read_file", "write_file", "list_dir"]
PLAN = HarnessConfig(mode={"enabled": True, "mode": "plan"})


def names(tools) -> list[str]:
    return [t.name for t in tools]


def test_tool_filtering_per_mode() -> None:
    tools = resolve_tools(ALL)
    assert names(allowed_tools(PLAN, tools)) == ["read_file", "list_dir"]
    assert names(allowed_tools(HarnessConfig(mode={"enabled": True}), tools)) == ALL
    assert names(allowed_tools(HarnessConfig(), tools)) == ALL
    listed = HarnessConfig(mode={"enabled": True, "mode": "plan", "plan_tools": ["read_file", "write_file"]})
    assert names(allowed_tools(listed, tools)) == ["read_file", "write_file"]


def test_prompt_section_states_the_mode_and_is_stable() -> None:
    assert mode_prompt_section(HarnessConfig()) is None
    plan = mode_prompt_section(PLAN)
    assert plan is not None and "PLAN" in plan and plan == mode_prompt_section(PLAN)
    execute = mode_prompt_section(HarnessConfig(mode={"enabled": True}))
    assert execute is not None and "EXECUTE" in execute


class Planner:
    """A model that tries to write a file whether or not it was offered write_file."""

    def __init__(self) -> None:
        self.offered: list[list[str]] = []

    def __call__(self, messages: list[Message], tools: list[ToolSpec]):
        self.offered.append([t.name for t in tools])
        if not any(m.role == "tool" for m in messages):
            return [call("read_file", path="spec.md"), call("write_file", path="out.txt", content="x"),
                    call("bash", command="touch ran.txt")]
        return "plan: edit out.txt"


def _run(cfg: HarnessConfig, tmp_path: Path):
    (tmp_path / "spec.md").write_text("the spec")
    planner = Planner()
    # The agent offers only mode-allowed tools (layer 2), as the loop does.
    agent = Agent(cfg, FunctionModel(planner), LocalWorkspace(tmp_path),
                  tools=allowed_tools(cfg, resolve_tools(ALL)))
    res = asyncio.run(agent.run("make a plan"))
    return res, planner, {m.name: m for m in res.messages if m.role == "tool"}


def test_plan_mode_blocks_calls_to_tools_it_did_not_offer(tmp_path: Path) -> None:
    res, planner, out = _run(PLAN, tmp_path)
    assert planner.offered[0] == ["read_file", "list_dir"]
    assert out["read_file"].content == "the spec"
    for name in ("write_file", "bash"):
        assert out[name].is_error and "not available in plan mode" in out[name].content
        assert "read_file" in out[name].content  # the allowed tools are named
    assert not (tmp_path / "out.txt").exists() and not (tmp_path / "ran.txt").exists()
    assert sum(e.type == "security.mode_blocked" for e in res.events) == 2


def test_runtime_blocking_holds_even_when_the_tool_is_offered(tmp_path: Path) -> None:
    (tmp_path / "spec.md").write_text("s")
    agent = Agent(PLAN, FunctionModel(Planner()), LocalWorkspace(tmp_path), tools=resolve_tools(ALL))
    asyncio.run(agent.run("make a plan"))
    assert not (tmp_path / "out.txt").exists()


def test_without_mode_enforcement_the_writes_happen(tmp_path: Path) -> None:
    _, planner, out = _run(HarnessConfig(), tmp_path)
    assert planner.offered[0] == ALL
    assert (tmp_path / "out.txt").exists() and (tmp_path / "ran.txt").exists()
