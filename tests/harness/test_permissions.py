"""Permission modes ask / auto_read / auto_all with an injectable approver (seed 000)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from harness import Agent, HarnessConfig, LocalWorkspace
from harness.assembly import build_controls
from harness.testing import call, scripted
from harness.tools import Tool, ToolContext, ToolOutcome, resolve_tools


async def _fetch(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    return ToolOutcome("result", f"page {args['url']}")


FETCH = Tool("web_fetch", "Fetch a URL.", {"type": "object", "properties": {}}, _fetch, effect="network")


class Recorder:
    """An approver that answers from a table and remembers what it was asked."""

    def __init__(self, answers: dict[str, bool]) -> None:
        self.answers = answers
        self.asked: list[tuple[str, dict[str, Any]]] = []

    async def __call__(self, tool: str, args: dict[str, Any]) -> bool:
        self.asked.append((tool, args))
        return self.answers.get(tool, False)


CALLS = [
    call("read_file", path="notes.txt"),
    call("web_fetch", url="http://127.0.0.1:9/page"),
    call("write_file", path="out.txt", content="hello"),
    call("bash", command="echo ran > ran.txt"),
]


def _run(cfg: HarnessConfig, tmp_path: Path, approver=None):
    (tmp_path / "notes.txt").write_text("notes")
    tools = [*resolve_tools(["read_file", "write_file", "bash"]), FETCH]
    agent = Agent(cfg, scripted(CALLS, "done"), LocalWorkspace(tmp_path), tools=tools,
                  controls=build_controls(cfg, approver=approver))
    res = asyncio.run(agent.run("task"))
    return {m.name: m for m in res.messages if m.role == "tool"}


def _mode(mode: str) -> HarnessConfig:
    return HarnessConfig(permissions={"enabled": True, "mode": mode})


def test_ask_without_approver_denies_modifying_tools_with_a_clear_message(tmp_path: Path) -> None:
    out = _run(_mode("ask"), tmp_path)
    assert not out["read_file"].is_error  # read-only never needs approval
    for name in ("web_fetch", "write_file", "bash"):
        assert out[name].is_error and "No approver is configured" in out[name].content
    assert not (tmp_path / "out.txt").exists() and not (tmp_path / "ran.txt").exists()


def test_ask_uses_the_approver_for_each_modifying_call(tmp_path: Path) -> None:
    approver = Recorder({"write_file": True, "web_fetch": True, "bash": False})
    out = _run(_mode("ask"), tmp_path, approver)
    assert [t for t, _ in approver.asked] == ["web_fetch", "write_file", "bash"]
    assert approver.asked[1][1] == {"path": "out.txt", "content": "hello"}
    assert (tmp_path / "out.txt").read_text() == "hello"
    assert out["bash"].is_error and "The user declined" in out["bash"].content
    assert not (tmp_path / "ran.txt").exists()


def test_auto_read_lets_network_reads_through_but_asks_for_writes_and_bash(tmp_path: Path) -> None:
    approver = Recorder({})
    out = _run(_mode("auto_read"), tmp_path, approver)
    assert [t for t, _ in approver.asked] == ["write_file", "bash"]
    assert not out["web_fetch"].is_error and out["write_file"].is_error


def test_auto_all_never_asks(tmp_path: Path) -> None:
    approver = Recorder({})
    out = _run(_mode("auto_all"), tmp_path, approver)
    assert approver.asked == [] and not any(m.is_error for m in out.values())


def test_without_permissions_everything_runs_unasked(tmp_path: Path) -> None:
    _run(HarnessConfig(), tmp_path)
    assert (tmp_path / "out.txt").exists() and (tmp_path / "ran.txt").exists()


def test_a_failing_approver_denies(tmp_path: Path) -> None:
    async def broken(tool: str, args: dict[str, Any]) -> bool:
        raise RuntimeError("ui gone")

    out = _run(_mode("ask"), tmp_path, broken)
    assert out["bash"].is_error and "approval request failed" in out["bash"].content
    assert not (tmp_path / "ran.txt").exists()
