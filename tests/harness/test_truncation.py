"""Oversize tool output: head+tail cut, offload to a file, artifact reference, summary."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace, Message
from harness.controls.truncation import Truncation, has_important_tail, truncate
from harness.messages import ToolCall
from harness.model import ProviderError
from harness.state import RunState
from harness.testing import FunctionModel, call
from harness.tools.base import ToolOutcome

BIG_FAILURE = "seq 1 20000; echo 'Traceback (most recent call last)'; echo 'ValueError: boom 7f3a9c2'; exit 1"


def one_call_then_done(command: str) -> FunctionModel:
    def fn(messages, tools):
        if not any(m.role == "tool" for m in messages):
            return [call("bash", command=command)]
        return "done"

    return FunctionModel(fn)


def run(cfg: HarnessConfig, model: FunctionModel, tmp_path: Path):
    return asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("task"))


def tool_text(res) -> str:
    return next(m.content for m in res.messages if m.role == "tool")


def test_without_truncation_the_model_sees_everything(tmp_path: Path) -> None:
    res = run(HarnessConfig(), one_call_then_done(BIG_FAILURE), tmp_path)
    assert len(tool_text(res)) > 100_000


def test_head_tail_keeps_the_error_at_the_end(tmp_path: Path) -> None:
    res = run(HarnessConfig(truncation={"enabled": True}), one_call_then_done(BIG_FAILURE), tmp_path)
    text = tool_text(res)
    assert len(text) <= 16_000
    assert text.startswith("1\n2\n3\n") and "ValueError: boom 7f3a9c2" in text
    assert "middle content omitted" in text and "[exit code 1]" in text


def test_the_cap_is_a_share_of_the_context_window(tmp_path: Path) -> None:
    cfg = HarnessConfig(context_window=2_000, truncation={"enabled": True})
    assert Truncation(cfg).limit == int(0.30 * 2_000 * 4)
    res = run(cfg, one_call_then_done(BIG_FAILURE), tmp_path)
    assert len(tool_text(res)) <= 2_400


def test_offload_writes_the_full_output_and_names_the_file(tmp_path: Path) -> None:
    reads: list[str] = []

    def fn(messages, tools):  # the model follows the pointer with read_file
        tools_seen = [m for m in messages if m.role == "tool"]
        if not tools_seen:
            return [call("bash", command=BIG_FAILURE)]
        if len(tools_seen) == 1:
            path = tools_seen[0].content.split("saved in ")[1].split(":")[0]
            reads.append(path)
            return [call("read_file", path=path)]
        return "done"

    cfg = HarnessConfig(truncation={"enabled": True, "mode": "offload"})
    res = run(cfg, FunctionModel(fn), tmp_path)
    assert res.status == ExitStatus.COMPLETED
    text = tool_text(res)
    assert "ValueError: boom" in text and "read_file" in text
    path = reads[0]
    assert path.startswith(".agent-output/bash-") and path.endswith(".txt")
    full = (tmp_path / path).read_text()
    assert full.startswith("1\n2\n") and full.count("\n") > 20_000
    assert any(e.type == "tool.offloaded" for e in res.events)


def test_identical_outputs_are_offloaded_once_with_the_same_reference(tmp_path: Path) -> None:
    cfg = HarnessConfig(truncation={"enabled": True, "mode": "offload"})
    ctl = Truncation(cfg)
    state = RunState(cfg, LocalWorkspace(tmp_path), [])
    out = ToolOutcome("result", "x\n" * 20_000)
    a = asyncio.run(ctl.after_tool(state, ToolCall(id="1", name="bash"), out))
    b = asyncio.run(ctl.after_tool(state, ToolCall(id="2", name="bash"), out))
    assert a.content == b.content
    assert len(list((tmp_path / ".agent-output").iterdir())) == 1


def test_artifact_mode_returns_a_compact_reference(tmp_path: Path) -> None:
    cfg = HarnessConfig(truncation={"enabled": True, "mode": "artifact", "max_chars": 12_000})
    res = run(cfg, one_call_then_done(BIG_FAILURE), tmp_path)
    text = tool_text(res)
    assert text.startswith("[Output stored as artifact bash-")
    assert len(text) < 3_000 and "ValueError: boom" in text  # the important tail is previewed
    path = text.split("Full content: ")[1].split(" ")[0]
    assert path.startswith(".artifacts/")
    assert (tmp_path / path).read_text().count("\n") > 20_000
    art = [e for e in res.events if e.type == "tool.artifact"]
    assert art and art[0].data["path"] == path


def test_artifact_outcome_kind(tmp_path: Path) -> None:
    cfg = HarnessConfig(truncation={"enabled": True, "mode": "artifact"})
    state = RunState(cfg, LocalWorkspace(tmp_path), [])
    out = asyncio.run(Truncation(cfg).after_tool(
        state, ToolCall(id="c1", name="bash"), ToolOutcome("result", "y" * 20_000)))
    assert out.kind == "artifact" and not out.is_error
    assert out.metadata["original_kind"] == "result" and out.metadata["truncated_from"] == 20_000


def _summariser_model(summary: str | None):
    def fn(messages, tools):
        if not tools:
            if summary is None:
                raise ProviderError("overloaded", "busy", status=529)
            return summary
        if not any(m.role == "tool" for m in messages):
            return [call("bash", command=BIG_FAILURE)]
        return "done"

    return FunctionModel(fn)


def test_summarize_mode_shows_a_summary_and_restores_lost_identifiers(tmp_path: Path) -> None:
    cfg = HarnessConfig(truncation={"enabled": True, "mode": "summarize"})
    res = run(cfg, _summariser_model("20000 numbers, then a ValueError (hash 7f3a...)."), tmp_path)
    text = tool_text(res)
    assert text.startswith("[Output of bash was") and "20000 numbers" in text
    assert "7f3a9c2" in text  # restored verbatim: the summary had shortened it
    assert ".agent-output/" in text and res.status == ExitStatus.COMPLETED


def test_summarize_mode_falls_back_to_the_cut_when_the_summariser_fails(tmp_path: Path) -> None:
    cfg = HarnessConfig(truncation={"enabled": True, "mode": "summarize"})
    res = run(cfg, _summariser_model(None), tmp_path)
    text = tool_text(res)
    assert "middle content omitted" in text and "ValueError: boom" in text
    assert any(e.type == "tool.summary_failed" for e in res.events)


def test_truncate_helpers() -> None:
    assert truncate("short", 100) == "short"
    assert has_important_tail("x" * 5000 + "\nFAILED 3 tests")
    assert not has_important_tail("x" * 5000)
    cut = truncate("a\n" * 10_000, 5_000, note="; see f.txt")
    assert len(cut) <= 5_000 and cut.endswith("see f.txt]")


def test_summarizer_is_asked_with_the_identifier_rules(tmp_path: Path) -> None:
    seen: list[list[Message]] = []

    def fn(messages, tools):
        if not tools:
            seen.append(messages)
            return "summary"
        return "done"

    cfg = HarnessConfig(truncation={"enabled": True, "mode": "summarize"})
    state = RunState(cfg, LocalWorkspace(tmp_path), [])
    state.model = FunctionModel(fn)
    asyncio.run(Truncation(cfg).after_tool(state, ToolCall(id="c", name="bash"),
                                           ToolOutcome("result", "z\n" * 20_000)))
    assert "Preserve ALL opaque identifiers EXACTLY" in seen[0][0].content
    assert "Summarize the following tool output" in seen[0][0].content
