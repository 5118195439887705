"""Transcript persistence: every message on disk after each turn, resumable, repaired, redacted."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from harness.config import HarnessConfig
from harness.context_files import BOOTSTRAP_COMPLETED_MARKER, has_received_bootstrap
from harness.loop import Agent
from harness.messages import Message, ToolCall
from harness.sessions.files import HostStore
from harness.sessions.transcript import (
    INTERRUPTED_ANSWER,
    TranscriptWriter,
    load_transcript,
    parse_records,
    repair_history,
)
from harness.sessions.transcript_control import TranscriptControl
from harness.status import ExitStatus
from harness.testing import call, scripted
from harness.workspace import LocalWorkspace

ON = HarnessConfig(transcript={"enabled": True})


def _dumps(messages: list[Message]) -> list[dict]:
    return [m.model_dump() for m in messages]


def _only_transcript(root: Path) -> Path:
    files = list((root / ".looplab" / "sessions").glob("*.jsonl"))
    assert len(files) == 1, files
    return files[0]


def test_every_message_of_the_run_is_persisted_and_loads_back(tmp_path: Path) -> None:
    model = scripted([call("bash", command="echo one")], "all done")
    result = asyncio.run(Agent(ON, model, LocalWorkspace(tmp_path)).run("do the task"))
    assert result.status is ExitStatus.COMPLETED
    path = _only_transcript(tmp_path)
    assert _dumps(load_transcript(path)) == _dumps(result.messages)
    records = parse_records(path.read_text())
    assert records[-1]["marker"] == "run:ended" and records[-1]["status"] == "completed"


def test_without_the_control_nothing_is_persisted(tmp_path: Path) -> None:
    model = scripted([call("bash", command="echo one")], "all done")
    asyncio.run(Agent(HarnessConfig(), model, LocalWorkspace(tmp_path)).run("do the task"))
    assert not (tmp_path / ".looplab").exists()


def test_tool_calls_are_on_disk_before_the_tool_runs(tmp_path: Path) -> None:
    # The tool reads the transcript while it runs: the call that started it is already there.
    model = scripted([call("bash", command="cat .looplab/sessions/s1.jsonl")], "done")
    ws = LocalWorkspace(tmp_path)
    agent = Agent(ON, model, ws, controls=[TranscriptControl(ON.transcript, "s1")])
    result = asyncio.run(agent.run("look"))
    tool_msg = next(m for m in result.messages if m.role == "tool")
    assert '"name": "bash"' in tool_msg.content and "do the task" not in tool_msg.content
    assert '"content": "look"' in tool_msg.content


def test_resumed_history_continues_the_file_without_duplicates(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    first = Agent(ON, scripted("first answer"), ws,
                  controls=[TranscriptControl(ON.transcript, "s1")])
    asyncio.run(first.run("first question"))
    path = tmp_path / ".looplab/sessions/s1.jsonl"
    history = load_transcript(path)

    model = scripted("second answer")
    second = Agent(ON, model, ws, controls=[TranscriptControl(ON.transcript, "s1")])
    asyncio.run(second.run("second question", history=history))
    assert [m.content for m in model.inputs[0] if m.role != "system"] == [
        "first question", "first answer", "second question"]
    contents = [m.content for m in load_transcript(path) if m.role != "system"]
    assert contents == ["first question", "first answer", "second question", "second answer"]
    assert sum(1 for m in load_transcript(path) if m.role == "system") == 1


def _write_records(path: Path, records: list[dict]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def test_unanswered_tool_calls_are_answered_on_resume(tmp_path: Path) -> None:
    path = tmp_path / ".looplab/sessions/s1.jsonl"
    calls = [ToolCall(id="a", name="bash", arguments={"command": "echo a"}),
             ToolCall(id="b", name="bash", arguments={"command": "sleep 60"})]
    _write_records(path, [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "go"},
        Message(role="assistant", tool_calls=calls).model_dump(exclude_defaults=True),
        {"role": "tool", "content": "a", "tool_call_id": "a", "name": "bash"},
    ])  # the process died while "sleep 60" ran
    history = load_transcript(path)
    assert [(m.role, m.tool_call_id, m.content) for m in history[-2:]] == [
        ("tool", "a", "a"), ("tool", "b", INTERRUPTED_ANSWER)]
    assert load_transcript(path, repair=False)[-1].tool_call_id == "a"

    model = scripted("resumed")
    ws = LocalWorkspace(tmp_path)
    agent = Agent(ON, model, ws, controls=[TranscriptControl(ON.transcript, "s1")])
    asyncio.run(agent.run("continue", history=history))
    sent = model.inputs[0]
    answered = [m.tool_call_id for m in sent if m.role == "tool"]
    assert answered == ["a", "b"]
    stored = load_transcript(path, repair=False)
    assert [m.tool_call_id for m in stored if m.role == "tool"] == ["a", "b"]


def test_repair_drops_orphan_and_duplicate_tool_results() -> None:
    c = ToolCall(id="x", name="bash")
    history = repair_history([
        Message.user("go"),
        Message.tool(ToolCall(id="orphan", name="bash"), "lost"),
        Message(role="assistant", tool_calls=[c]),
        Message.tool(c, "first"),
        Message.tool(c, "duplicate"),
        Message.user("next"),
    ])
    assert [(m.role, m.content) for m in history] == [
        ("user", "go"), ("assistant", ""), ("tool", "first"), ("user", "next")]


def test_a_torn_last_line_is_skipped_and_dropped_on_the_next_flush(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    good = [{"role": "system", "content": "sys"}, {"role": "user", "content": "hello"}]
    path.write_text("".join(json.dumps(r) + "\n" for r in good) + '{"role": "assis')
    assert [m.content for m in load_transcript(path)] == ["sys", "hello"]

    async def resume_and_write() -> None:
        writer = TranscriptWriter(HostStore(tmp_path), "s.jsonl")
        history = await writer.open()
        await writer.sync([*history, Message(role="assistant", content="hi")])

    asyncio.run(resume_and_write())
    lines = path.read_text().splitlines()
    assert [json.loads(x)["content"] for x in lines] == ["sys", "hello", "hi"]


def test_markers_are_separate_records_and_not_messages(tmp_path: Path) -> None:
    async def write() -> None:
        writer = TranscriptWriter(HostStore(tmp_path), "s.jsonl")
        system = Message.system("sys")
        await writer.sync([system])
        writer.marker(BOOTSTRAP_COMPLETED_MARKER, first_session=True)
        await writer.sync([system, Message.user("task")])

    asyncio.run(write())
    path = tmp_path / "s.jsonl"
    records = parse_records(path.read_text())
    assert [r.get("marker") or r["role"] for r in records] == [
        "system", "user", BOOTSTRAP_COMPLETED_MARKER]
    assert [m.role for m in load_transcript(path)] == ["system", "user"]
    assert has_received_bootstrap(records)  # what the prompt builder reads


def test_context_rewrites_are_recorded_as_a_marker_not_appended(tmp_path: Path) -> None:
    async def write() -> list[dict]:
        writer = TranscriptWriter(HostStore(tmp_path), "s.jsonl")
        msgs = [Message.system("sys"), Message.user("a"), Message.user("b"), Message.user("c")]
        await writer.sync(msgs)
        compacted = [msgs[0], Message.user("summary of a and b", origin="compaction"), msgs[3],
                     Message.user("d")]
        await writer.sync(compacted)
        call_ = ToolCall(id="t1", name="bash")
        turn = [Message(role="assistant", tool_calls=[call_]), Message.tool(call_, "x" * 100)]
        await writer.sync([*compacted, *turn])
        cut_tail = turn[1].model_copy(update={"content": "x [cut]"})  # a truncated copy
        handoff = Message.user("briefing", origin="reset")
        await writer.sync([msgs[0], *compacted[1:], turn[0], cut_tail, handoff, Message.user("e")])
        return parse_records((tmp_path / "s.jsonl").read_text())

    records = asyncio.run(write())
    assert [r.get("content", r.get("marker")) for r in records] == [
        "sys", "a", "b", "c", "d", "context:rewritten", None, "x" * 100, "e",
        "context:rewritten"]
    assert records[-1]["messages"] == 2


CANARY = "sk-" + "abcdefghij" * 4


def test_secrets_in_tool_results_are_redacted_when_on(tmp_path: Path) -> None:
    cfg = HarnessConfig(transcript={"enabled": True, "redact": True})
    model = scripted([call("bash", command=f"echo key={CANARY}")], "done")
    result = asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("print the key"))
    assert any(CANARY in m.content for m in result.messages)  # the model did see it
    text = _only_transcript(tmp_path).read_text()
    assert CANARY not in text and "[REDACTED]" in text


def test_secrets_are_persisted_verbatim_when_redaction_is_off(tmp_path: Path) -> None:
    model = scripted([call("bash", command=f"echo key={CANARY}")], "done")
    asyncio.run(Agent(ON, model, LocalWorkspace(tmp_path)).run("print the key"))
    assert CANARY in _only_transcript(tmp_path).read_text()


def test_host_dir_keeps_the_transcript_out_of_the_workspace(tmp_path: Path) -> None:
    host = tmp_path / "host"
    cfg = HarnessConfig(transcript={"enabled": True, "host_dir": str(host)})
    ws = LocalWorkspace(tmp_path / "ws")
    control = TranscriptControl(cfg.transcript, "s9")
    asyncio.run(Agent(cfg, scripted("ok"), ws, controls=[control]).run("hi"))
    assert [m.content for m in load_transcript(host / ".looplab/sessions/s9.jsonl")][1:] == ["hi", "ok"]
    assert not (tmp_path / "ws" / ".looplab").exists()


# --- nothing stops persisting --------------------------------------------------------------------

def test_lone_surrogates_are_escaped_and_read_back_verbatim(tmp_path: Path) -> None:
    odd = "half a pair: \ud83d and \udc00 end"
    c = ToolCall(id="c1", name="write_file", arguments={"path": "x", "content": odd})
    history = [Message.system("sys"), Message.user(odd), Message(role="assistant", tool_calls=[c]),
               Message.tool(c, odd), Message.user("after")]

    async def write() -> None:
        await TranscriptWriter(HostStore(tmp_path), "s.jsonl").sync(history)

    asyncio.run(write())
    raw = (tmp_path / "s.jsonl").read_bytes()
    raw.decode("utf-8")  # valid UTF-8 on disk
    loaded = load_transcript(tmp_path / "s.jsonl")
    assert [m.content for m in loaded] == [m.content for m in history]
    assert loaded[2].tool_calls[0].arguments["content"] == odd


def test_nesting_too_deep_to_encode_is_escaped_not_dropped(tmp_path: Path) -> None:
    from harness.sessions.records import ESCAPED_KEY, MAX_DEPTH

    deep: dict = {}
    node = deep
    for _ in range(5000):  # deeper than json.dumps can recurse
        node["a"] = {}
        node = node["a"]
    node["leaf"] = "bottom"
    c = ToolCall(id="c1", name="bash", arguments={"command": "x", "deep": deep})
    history = [Message.system("sys"), Message(role="assistant", tool_calls=[c]),
               Message.tool(c, "ok"), Message.user("after")]

    async def write() -> None:
        await TranscriptWriter(HostStore(tmp_path), "s.jsonl").sync(history)

    asyncio.run(write())
    loaded = load_transcript(tmp_path / "s.jsonl")
    assert [m.content for m in loaded] == ["sys", "", "ok", "after"]
    node = loaded[1].tool_calls[0].arguments["deep"]
    depth = 1
    while ESCAPED_KEY not in node:
        node, depth = node["a"], depth + 1
    assert depth <= MAX_DEPTH  # escaped where the depth bound is, not higher up
    escaped = node[ESCAPED_KEY]
    assert escaped.startswith('{"a":{"a":') and escaped.rstrip("}").endswith('{"leaf":"bottom"')
    assert escaped.count("{") == escaped.count("}") == 5002 - depth  # all the rest


def test_a_failed_flush_is_a_typed_event_and_its_records_are_written_later(tmp_path: Path) -> None:
    from harness.sessions.transcript_control import TranscriptWriteFailed
    from harness.testing import FunctionModel

    sessions = tmp_path / ".looplab" / "sessions"
    aside = tmp_path / "aside"
    calls = 0

    def model_fn(messages, tools):
        nonlocal calls
        calls += 1
        if calls == 1:  # the store breaks: a file where the directory was
            sessions.rename(aside)
            sessions.write_text("in the way")
        if calls == 3:  # and recovers
            sessions.unlink()
            aside.rename(sessions)
        return [call("bash", command=f"echo {calls}")] if calls < 4 else "done"

    result = asyncio.run(Agent(ON, FunctionModel(model_fn), LocalWorkspace(tmp_path)).run("go"))
    assert result.status is ExitStatus.COMPLETED
    failed = [TranscriptWriteFailed.model_validate(e.data) for e in result.events
              if e.type == TranscriptWriteFailed.TYPE]
    assert failed, "the broken store must be reported"
    assert failed[0].error_type in {"FileExistsError", "NotADirectoryError"}
    assert failed[0].pending_records > 0
    # Every message, also those of the failed flushes, reached the file once the store recovered.
    assert _dumps(load_transcript(_only_transcript(tmp_path))) == _dumps(result.messages)
