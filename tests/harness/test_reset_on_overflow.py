"""Context reset as the repair of a provider context overflow.

When the tail that compaction keeps verbatim no longer fits the window, compacting again cannot
shrink the history; the second degraded compaction in a row resets the context instead, and the
overflowed call must then be retried with the (much smaller) reset history rather than ending the
run with ``CONTEXT_OVERFLOW``.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace, Message
from harness.compaction import CONTINUATION_PREFIX
from harness.controls.compaction import Compaction
from harness.messages import ToolCall
from harness.model import ProviderError, ToolSpec
from harness.state import RunState
from harness.testing import FunctionModel, call

WINDOW = 2_000
ITEMS = 8
REPORT = "record group reconciled, 0 warnings, schema v3\n" * 58
"""About 700 tokens: three of them (the kept tail) outgrow the window, two fit."""


def make_items(root: Path) -> None:
    for i in range(1, ITEMS + 1):
        (root / f"item{i}.txt").write_text(f"item {i} of {ITEMS}\n" + REPORT)


def config(reset: bool) -> HarnessConfig:
    return HarnessConfig(
        context_window=WINDOW, limits={"max_turns": 60},
        compaction={"enabled": True, "keep_last": 5},
        context_reset={"enabled": reset, "after_degraded": 2},
    )


def batch_worker() -> FunctionModel:
    """Reads item1..itemN one per turn (its place in the batch survives resets, as a model's
    would through the handoff briefing), answers summarisation requests briefly."""
    done = {"n": 0}

    def fn(messages: list[Message], tools: list[ToolSpec]):
        if not tools:
            return f"Goal: read every item file. Processed {done['n']} of {ITEMS} items."
        if done["n"] >= ITEMS:
            return "all items processed"
        done["n"] += 1
        return [call("bash", command=f"cat item{done['n']}.txt")]

    return FunctionModel(fn, n_ctx=WINDOW)


def test_a_reset_repairs_an_overflow_that_compaction_cannot(tmp_path: Path) -> None:
    make_items(tmp_path)
    res = asyncio.run(Agent(config(reset=True), batch_worker(), LocalWorkspace(tmp_path))
                      .run("read every item file"))
    assert res.status == ExitStatus.COMPLETED, res.message
    assert any(e.type == "context.reset" for e in res.events)
    assert any(e.type == "provider.repaired" for e in res.events)
    assert list(tmp_path.glob(".handoff-*.md"))


def test_without_the_reset_the_same_batch_ends_in_overflow(tmp_path: Path) -> None:
    make_items(tmp_path)
    res = asyncio.run(Agent(config(reset=False), batch_worker(), LocalWorkspace(tmp_path))
                      .run("read every item file"))
    assert res.status == ExitStatus.CONTEXT_OVERFLOW, res.message
    assert not list(tmp_path.glob(".handoff-*.md"))


def _stuck_history() -> list[Message]:
    """A compacted history whose kept tail (three big reports) alone overflows the window."""
    msgs = [Message.system("sys"), Message.user("the task: read every item file"),
            Message.user("[COMPACTED CONTEXT]\n\nProcessed 4 of 8 items.", origin="compaction")]
    for i in range(5, 8):
        c = ToolCall(id=f"c{i}", name="bash", arguments={"command": f"cat item{i}.txt"})
        msgs += [Message(role="assistant", tool_calls=[c]), Message.tool(c, REPORT)]
    return msgs


def test_the_overflow_repair_counts_the_history_after_the_reset(tmp_path: Path) -> None:
    """The compaction itself does not shrink the history (it only re-summarises the summary);
    the reset that follows does, so the repair succeeded and the call may be retried."""
    cfg = config(reset=True)
    ctl = Compaction(cfg)
    ctl.degraded_in_row = 1  # one degraded compaction already happened before this call
    state = RunState(cfg, LocalWorkspace(tmp_path), [])
    state.messages = _stuck_history()
    # A summary of the summary that is no shorter than the summary it replaces.
    summary = "Processed 7 of 8 items: item5, item6 and item7 reconciled, 0 warnings; next item8."
    state.model = FunctionModel(lambda m, t: summary)
    error = ProviderError("context_overflow", "maximum context length exceeded", status=400)
    assert asyncio.run(ctl.on_provider_error(state, error)) is True
    [compacted] = [e.data for e in state.events if e.type == "context.compacted"]
    assert compacted["after_tokens"] >= compacted["before_tokens"]  # compaction alone: no help
    assert [m.role for m in state.messages] == ["system", "user"]
    assert state.messages[1].content.startswith(CONTINUATION_PREFIX)
