"""Compaction: trigger, pair-safe cuts, chunked summaries, identifier verification, timeout
fallback, overflow recovery, handoff mode and the full context reset.

The model is a ``FunctionModel`` that works through files with ``cat`` and answers summarisation
requests (no tools offered) the way a weak model does: briefly, and paraphrasing identifiers.
"""

from __future__ import annotations

import asyncio
import random
import uuid
from pathlib import Path

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace, Message
from harness.assembly import build_controls
from harness.compaction.identifiers import extract_identifiers, progress_lines
from harness.controls.compaction import Compaction
from harness.messages import ToolCall, estimate_tokens, unpaired_tool_messages
from harness.model import ModelReply, ProviderError, ToolSpec
from harness.state import RunState
from harness.testing import FunctionModel, call

N_FILES = 12
IDS = [str(uuid.UUID(int=random.Random(i).getrandbits(128), version=4)) for i in range(N_FILES)]


def make_files(root: Path, n: int = N_FILES, filler: int = 1200) -> None:
    for i in range(1, n + 1):
        body = f"batch item {i} of {n}: deploy id {IDS[i - 1]}\n" + ("log line ok\n" * (filler // 12))
        (root / f"part{i}.txt").write_text(body)


def is_summary_request(tools: list[ToolSpec]) -> bool:
    return not tools  # the summariser is called without tools; agent turns always have tools


def worker(n: int = N_FILES, summary=None) -> tuple[FunctionModel, list[list[Message]]]:
    """Reads part1..partN, one per turn, then finishes. Summaries come from ``summary``."""
    requests: list[list[Message]] = []
    done = {"n": 0}

    def fn(messages: list[Message], tools: list[ToolSpec]):
        if is_summary_request(tools):
            requests.append(messages)
            return summary(messages) if summary else "Worked through several files so far."
        if done["n"] >= n:
            return "all files processed"
        done["n"] += 1
        return [call("bash", command=f"cat part{done['n']}.txt")]

    return FunctionModel(fn, n_ctx=2_000), requests


def config(top: dict | None = None, **compaction) -> HarnessConfig:
    """Window 2,000 tokens, compaction on (keep the last 2) with ``compaction`` overrides;
    ``top``: other ``HarnessConfig`` fields."""
    on = {"enabled": True, "keep_last": 2, **compaction}
    return HarnessConfig(context_window=2_000, limits={"max_turns": 40}, compaction=on, **(top or {}))


def run(cfg: HarnessConfig, model, tmp_path: Path, task: str = "process every part file"):
    return asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run(task))


def assert_pairs_intact(messages: list[Message]) -> None:
    problem = unpaired_tool_messages(messages)
    assert problem is None, problem


def compacted_messages(messages: list[Message]) -> list[Message]:
    return [m for m in messages if m.origin == "compaction"]


# --- the control in a run -------------------------------------------------------------------------

def test_without_compaction_the_history_overflows_the_window(tmp_path: Path) -> None:
    make_files(tmp_path)
    model, _ = worker()
    res = run(HarnessConfig(context_window=2_000, limits={"max_turns": 40}), model, tmp_path)
    assert res.status == ExitStatus.CONTEXT_OVERFLOW


def test_compaction_keeps_the_run_inside_the_window(tmp_path: Path) -> None:
    make_files(tmp_path)
    model, requests = worker()
    res = run(config(), model, tmp_path)
    assert res.status == ExitStatus.COMPLETED, res.message
    events = [e for e in res.events if e.type == "context.compacted"]
    assert events and all(e.data["after_tokens"] < e.data["before_tokens"] for e in events)
    assert all(e.data["method"] == "model" and "duration_s" in e.data for e in events)
    # Every model input stayed under the window, and the summary is one user message.
    assert all(estimate_tokens(inp) <= 2_000 for inp in model.inputs)
    summaries = compacted_messages(res.messages)
    assert len(summaries) == 1 and summaries[0].role == "user"
    assert summaries[0].content.startswith("[COMPACTED CONTEXT]")
    assert res.messages[0].role == "system" and res.messages[1] is summaries[0]
    # The summariser got the identifier and must-preserve instructions from the prompt files.
    system = requests[0][0].content
    assert "Preserve ALL opaque identifiers EXACTLY" in system
    assert "Current progress on any batch/loop task" in system


def test_tool_call_pairs_are_never_split(tmp_path: Path) -> None:
    make_files(tmp_path, n=8)
    requests: list[list[Message]] = []
    turn = {"n": 0}

    def fn(messages, tools):  # two calls per turn: the kept tail must take both results
        if not tools:
            requests.append(messages)
            return "summary"
        turn["n"] += 1
        if turn["n"] > 4:
            return "done"
        a, b = 2 * turn["n"] - 1, 2 * turn["n"]
        return [call("bash", command=f"cat part{a}.txt"), call("bash", command=f"cat part{b}.txt")]

    for keep in (1, 2, 3):
        model = FunctionModel(fn, n_ctx=2_000)
        res = run(config(keep_last=keep), model, tmp_path)
        turn["n"] = 0
        assert res.status == ExitStatus.COMPLETED and compacted_messages(res.messages), keep
        for inp in model.inputs:
            assert_pairs_intact(inp)


def test_the_system_prompt_and_the_kept_tail_are_verbatim(tmp_path: Path) -> None:
    for keep in (1, 2):  # keep_last=1 would orphan the last tool result: its call is kept too
        original = _long_history()
        state = _state(tmp_path, config(), list(original), FunctionModel(lambda m, t: "summary"))
        asyncio.run(Compaction(config(keep_last=keep)).before_model(state))
        assert state.messages[0] == original[0]
        assert state.messages[-2:] == original[-2:]
        assert [m.origin for m in state.messages] == [None, "compaction", None, None]


def test_a_paraphrasing_summariser_loses_identifiers_without_verification(tmp_path: Path) -> None:
    make_files(tmp_path)
    model, _ = worker(summary=lambda m: "Deployed items with id abc1-mangled; some items done.")
    res = run(config(), model, tmp_path)
    text = compacted_messages(res.messages)[0].content
    assert IDS[0] not in text and "Preserved identifiers" not in text


def test_verification_restores_identifiers_and_batch_progress_verbatim(tmp_path: Path) -> None:
    make_files(tmp_path)
    model, _ = worker(summary=lambda m: "Deployed items with id abc1-mangled; some items done.")
    res = run(config(verify_identifiers=True, preserve_progress=True), model, tmp_path)
    assert res.status == ExitStatus.COMPLETED
    text = compacted_messages(res.messages)[0].content
    assert "Preserved identifiers" in text and IDS[0] in text
    # every id that was compacted away is in the summary or still in the kept tail
    kept = "\n".join(m.content for m in res.messages)
    assert all(i in kept for i in IDS)
    assert "Batch progress (verbatim" in text
    events = [e for e in res.events if e.type == "context.compacted"]
    assert events[-1].data["restored_identifiers"] > 0


def test_a_faithful_summary_needs_no_restoring(tmp_path: Path) -> None:
    make_files(tmp_path)

    def faithful(messages):
        body = messages[-1].content
        found = [t for _, t in extract_identifiers(body)]
        prog = [f"{d} of {t}" for d, t, _ in progress_lines(body)]
        return "Progress: " + "; ".join(prog) + "\nIds: " + " ".join(found)

    model, _ = worker(summary=faithful)
    res = run(config(verify_identifiers=True, preserve_progress=True), model, tmp_path)
    assert "Preserved identifiers" not in compacted_messages(res.messages)[0].content


def test_the_middle_is_summarised_in_chunks_and_merged(tmp_path: Path) -> None:
    make_files(tmp_path)
    model, requests = worker(summary=lambda m: f"partial {len(m[-1].content)}")
    run(config(chunk_parts=2), model, tmp_path)
    merges = [r for r in requests if "Merge these partial summaries" in r[-1].content]
    segments = [r for r in requests if r not in merges]
    assert all("Summarize the following conversation segment" in r[0].content for r in segments)
    assert merges and len(segments) >= 2 * len(merges)
    assert "Part 1:" in merges[0][-1].content and "Part 2:" in merges[0][-1].content


def test_mechanical_strategy_makes_no_model_call(tmp_path: Path) -> None:
    make_files(tmp_path)
    model, requests = worker()
    res = run(config(strategy="mechanical"), model, tmp_path)
    assert res.status == ExitStatus.COMPLETED
    assert requests == []
    text = compacted_messages(res.messages)[0].content
    assert "mechanical digest" in text and "- tool bash -> ok" in text


class SlowSummariser(FunctionModel):
    """Agent turns answer at once; a summarisation request never comes back in time."""

    async def generate(self, messages, tools) -> ModelReply:
        if not tools:
            await asyncio.sleep(30)
        return await super().generate(messages, tools)


def test_a_hanging_summariser_falls_back_to_a_mechanical_digest(tmp_path: Path) -> None:
    make_files(tmp_path)
    model = SlowSummariser(worker()[0].fn, n_ctx=2_000)
    cfg = config(timeout_base_s=0.2, timeout_per_ktoken_s=0)
    res = asyncio.run(asyncio.wait_for(Agent(cfg, model, LocalWorkspace(tmp_path)).run("t"), 60))
    assert res.status == ExitStatus.COMPLETED
    ev = [e for e in res.events if e.type == "context.compacted"]
    assert ev[0].data["method"] == "fallback"
    assert "compaction_timeout" in ev[0].data["fallback_reason"]
    assert "mechanical digest" in compacted_messages(res.messages)[0].content


def test_overflow_error_is_repaired_by_forced_compaction(tmp_path: Path) -> None:
    make_files(tmp_path)
    model, _ = worker()
    model.n_ctx = 1_200  # smaller than the config believes: the threshold never fires first
    cfg = config(threshold=0.95)
    res = run(cfg, model, tmp_path)
    assert res.status == ExitStatus.COMPLETED, res.message
    repaired = [e for e in res.events if e.type == "provider.repaired"]
    assert repaired and repaired[0].data["by"] == "compaction"
    assert any(e.type == "context.window_learned" and e.data["stated"] == 1_200 for e in res.events)


def test_without_recovery_the_overflow_ends_the_run(tmp_path: Path) -> None:
    make_files(tmp_path)
    model, _ = worker()
    model.n_ctx = 1_200
    res = run(config(threshold=0.95, recover_overflow=False), model, tmp_path)
    assert res.status == ExitStatus.CONTEXT_OVERFLOW


def test_a_second_overflow_ends_the_run_instead_of_looping(tmp_path: Path) -> None:
    calls = {"n": 0}

    def fn(messages, tools):
        calls["n"] += 1
        if tools:
            raise ProviderError("context_overflow", "prompt is too long", status=400)
        return "summary"

    history = [Message.user(f"earlier message {i} " + "x" * 400) for i in range(10)]
    agent = Agent(config(), FunctionModel(fn), LocalWorkspace(tmp_path))
    res = asyncio.run(agent.run("go on", history=history))
    assert res.status == ExitStatus.CONTEXT_OVERFLOW
    generate_attempts = [e for e in res.events if e.type == "provider.error"]
    assert len(generate_attempts) == 2  # the original call and exactly one retry


def _state(tmp_path: Path, cfg: HarnessConfig, messages: list[Message], model) -> RunState:
    state = RunState(cfg, LocalWorkspace(tmp_path), [])
    state.messages = messages
    state.model = model
    return state


def _long_history(n: int = 12) -> list[Message]:
    msgs = [Message.system("sys"), Message.user("the task: deploy all services")]
    for i in range(n):
        c = ToolCall(id=f"c{i}", name="bash", arguments={"command": f"deploy {i}"})
        msgs += [Message(role="assistant", tool_calls=[c]),
                 Message.tool(c, f"deployed service {i} as {IDS[i % N_FILES]}\n" + "ok\n" * 150)]
    return msgs


def test_request_handoff_puts_the_next_compaction_in_handoff_mode(tmp_path: Path) -> None:
    seen: list[str] = []

    def fn(messages, tools):
        seen.append(messages[0].content)
        return "briefing"

    model = FunctionModel(fn)
    ctl = Compaction(config())
    state = _state(tmp_path, config(), _long_history(), model)
    state.request_handoff("quota exhausted on model-a")
    asyncio.run(ctl.before_model(state))
    assert "Generate a recovery briefing for a NEW MODEL" in seen[0]
    assert "quota exhausted on model-a" in seen[0]
    assert state.handoff_reason is None  # used once
    seen.clear()
    state.messages += _long_history()[2:]
    asyncio.run(ctl.before_model(state))
    assert seen and all("NEW MODEL" not in s for s in seen)


def test_a_failover_switch_triggers_handoff_mode(tmp_path: Path) -> None:
    make_files(tmp_path)
    backup, requests = worker()
    backup.name = "model-b"

    def out_of_quota(messages, tools):
        raise ProviderError("quota_exceeded", "daily quota", status=429)

    quota = FunctionModel(out_of_quota, name="model-a")
    cfg = config({"failover": {"enabled": True}})
    res = asyncio.run(Agent(cfg, [quota, backup], LocalWorkspace(tmp_path)).run("task"))
    assert res.status == ExitStatus.COMPLETED, res.message
    assert any(e.type == "failover.switch" for e in res.events)
    assert "NEW MODEL" in requests[0][0].content and "model-a -> model-b" in requests[0][0].content


def _failing_then_briefing(messages, tools):
    if "structured handoff briefing" in messages[0].content:
        return f"Goal: deploy all services. Done 12 of 12. Last id {IDS[3]}."
    raise ProviderError("overloaded", "summariser overloaded", status=529)


def test_degraded_compactions_lead_to_a_full_reset(tmp_path: Path) -> None:
    cfg = config({"context_reset": {"enabled": True, "after_degraded": 2}}, threshold=0.5)
    ctl = build_controls(cfg)[-1]
    state = _state(tmp_path, cfg, _long_history(), FunctionModel(_failing_then_briefing))
    asyncio.run(ctl.before_model(state))
    assert not any(e.type == "context.reset" for e in state.events)  # one degraded: not yet
    state.messages += _long_history()[2:]
    asyncio.run(ctl.before_model(state))
    reset = [e for e in state.events if e.type == "context.reset"]
    assert len(reset) == 1 and reset[0].data["method"] == "model"
    assert [m.role for m in state.messages] == ["system", "user"]
    cont = state.messages[1].content
    assert cont.startswith("[Session Continuation]") and "Done 12 of 12" in cont
    files = list(tmp_path.glob(".handoff-*.md"))
    assert len(files) == 1 and "Done 12 of 12" in files[0].read_text()


def test_without_reset_degraded_compactions_just_continue(tmp_path: Path) -> None:
    cfg = config(threshold=0.5)
    ctl = build_controls(cfg)[-1]
    state = _state(tmp_path, cfg, _long_history(), FunctionModel(_failing_then_briefing))
    asyncio.run(ctl.before_model(state))
    state.messages += _long_history()[2:]
    asyncio.run(ctl.before_model(state))
    assert not any(e.type == "context.reset" for e in state.events)
    assert compacted_messages(state.messages)
    assert not list(tmp_path.glob(".handoff-*.md"))


def test_the_summariser_usage_is_counted(tmp_path: Path) -> None:
    ctl = Compaction(config())
    state = _state(tmp_path, config(), _long_history(), FunctionModel(lambda m, t: "summary"))
    asyncio.run(ctl.before_model(state))
    assert state.usage.input_tokens > 0 and state.model_calls >= 1


def test_task_message_can_be_pinned(tmp_path: Path) -> None:
    ctl = Compaction(config(keep_task_message=True))
    state = _state(tmp_path, config(), _long_history(), FunctionModel(lambda m, t: "summary"))
    asyncio.run(ctl.before_model(state))
    assert state.messages[1].content == "the task: deploy all services"
    assert state.messages[2].origin == "compaction"


class DenseTokenizer(FunctionModel):
    """A model whose tokenizer counts three times the chars/4 estimate (e.g. dense non-English)."""

    async def count_tokens(self, messages: list[Message]) -> int | None:
        return 3 * estimate_tokens(messages)


def test_the_trigger_uses_the_model_tokenizer_when_configured(tmp_path: Path) -> None:
    history = _long_history(4)  # ~700 estimated tokens: below 70 % of 2,000; ~2,100 counted
    assert estimate_tokens(history) < 1_400 < 3 * estimate_tokens(history)
    for counter, compacts in (("model", True), ("estimate", False)):
        model = DenseTokenizer(lambda m, t: "summary")
        state = _state(tmp_path, config(), list(history), model)
        asyncio.run(Compaction(config(token_counter=counter)).before_model(state))
        assert bool(compacted_messages(state.messages)) is compacts, counter
