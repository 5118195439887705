"""Loop detection's outputs are masked only when a comparison needs them, once per distinct
output, and the masks' shortcuts change nothing they return."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from harness import get_preset
from harness.controls import loop_volatile, loop_volatile_ids
from harness.controls.loop_detection import LoopDetection
from harness.messages import ToolCall
from harness.state import RunState
from harness.tools.base import ToolOutcome
from harness.workspace import LocalWorkspace


def _every_pattern(text: str) -> str:
    """``mask_volatile`` with every pattern applied, none skipped (what the shortcuts must equal)."""
    for token, rx, _ in loop_volatile._ANIMATION:
        if token == "bar":
            text = rx.sub(lambda m: f"<bar {sum(c not in loop_volatile._EMPTY_CELLS for c in m.group(0))}>", text)
        else:
            text = rx.sub(token, text)
    ids = loop_volatile_ids
    text = ids._GC_LINE.sub(lambda m: ids._NUMBER.sub("<n>", m.group(0)), text)
    for token, rx, _ in ids._TOKENS:
        text = rx.sub(token, text)
    text = ids._HOST_PORT.sub(lambda m: m.group(1) + ":" + ids._port(m.group(2)) if m.group(1)
                              else m.group(3) + "." + ids._port(m.group(4)), text)
    text = ids._PORT_WORD.sub(lambda m: m.group(1) + ids._port(m.group(2)), text)
    text = ids._TEMP_PATH.sub(lambda m: ids._NUMBERED.sub("<tmp>", m.group(0)), text)
    text = ids._TEMP_DIR_ENTRY.sub(r"\1<tmp>", text)
    for token, rx, _ in loop_volatile._VOLATILE_RX:
        text = rx.sub(token, text)
    return loop_volatile._SPACE.sub(" ", text).strip()


@pytest.mark.parametrize("text", [
    "gc: collecting generation 2... objects in each generation: 712 0 3011\nok",
    "[GC (Allocation Failure) 2048K->512K(9728K), 0.0011 secs]",
    "Scavenge 4.2 (6.1) -> 3.9 (7.1) MB, 1.1 / 0.0 ms",
    "connected to db.internal:54321 from 10.0.0.7.61234, local port 30911",
    "socket 17 closed; conn#42 idle; fd=9; cid 7",
    "resourceVersion: 884213\nmod_revision=91 X-Consul-Index: 12 replay_lsn 0/3000060",
    "inode 1234567 of /tmp/tmpa8Xk2Lq9/out.txt",
    "request_id=00000042 trace-id: abc-123 ETag \"7\" nonce=zz9",
    "load average: 0.52, 0.58, 0.59 cpu 12% mem 1.2GiB latency 45ms",
    "attempt 3 ... retry #4 heartbeat=19 check 7 of 10",
    "  12.5 MB/s  ETA 0:03  3.1 it/s  2.0 s/it",
    "[.] waiting\n  (o) still waiting\n[✓] done",
    "ſession_id=42 and ﬀ KEY",  # outside ASCII: (?i) matches what lower-casing keeps apart
    "Session-ID: 7f3a\nREQUEST_ID=ab12 LOAD 3.2",
    "nothing volatile here, only words and 4/10 done",
])
def test_the_shortcuts_return_what_every_pattern_returns(text: str) -> None:
    assert loop_volatile.mask_volatile(text) == _every_pattern(text)


def test_the_line_start_status_mark_is_masked_once_per_line() -> None:
    assert loop_volatile.mask_animation("[.] a [x] b\n  (o) c\n[[] d") == "[<spin>] a [x] b\n  (<spin>) c\n[<spin>] d"


def _run(tmp_path: Path) -> tuple[LoopDetection, RunState]:
    cfg = get_preset("looplab")
    control = LoopDetection(cfg.loop_detection)
    run = RunState(cfg, LocalWorkspace(tmp_path), [])
    asyncio.run(control.on_run_start(run))
    return control, run


def _call(control: LoopDetection, run: RunState, i: int, command: str, output: str) -> None:
    call = ToolCall(id=f"c{i}", name="bash", arguments={"command": command})
    asyncio.run(control.after_tool(run, call, ToolOutcome("result", output)))


def test_an_output_is_masked_only_when_an_earlier_call_had_the_same_arguments(tmp_path: Path) -> None:
    control, run = _run(tmp_path)
    for i, command in enumerate(["ls src", "cat a.py", "pytest -q"]):
        _call(control, run, i, command, f"{command}: done at 12:00:0{i}")
    assert [r.result_hash for r in control.history] == ["", "", ""]  # nothing compared, nothing masked
    _call(control, run, 3, "pytest -q", "pytest -q: done at 12:00:09")
    assert control.history[2].result_hash and control.history[3].result_hash
    assert control.history[2].result() == control.history[3].result()  # the clock is volatile
    assert [r.result_hash for r in control.history[:2]] == ["", ""]


def test_the_same_output_again_is_masked_once(tmp_path: Path) -> None:
    control, run = _run(tmp_path)
    for i in range(3):
        _call(control, run, i, "kubectl get pods", "api-7f9c8d6b5-x2k4p 1/1 Running 0 3m")
    assert len(control._results) == 1
    assert len({r.result() for r in control.history}) == 1
    _call(control, run, 3, "kubectl get pods", "api-7f9c8d6b5-x2k4p 1/1 Running 1 4m")
    assert len(control._results) == 2


def test_a_loop_is_still_stopped_when_its_outputs_differ_only_in_volatile_tokens(tmp_path: Path) -> None:
    control, run = _run(tmp_path)
    found = []
    for i in range(6):
        call = ToolCall(id=f"c{i}", name="bash", arguments={"command": "curl -s localhost:8080/health"})
        out = asyncio.run(control.after_tool(run, call, ToolOutcome(
            "result", f"status=starting request_id={i:08x} at 2026-03-01T09:00:{i:02d}Z")))
        found.append(out.metadata.get("loop"))
    assert found[:2] == [None, None] and "warning" in found and found[-1] == "critical"
    assert (run.events[-1].type, run.events[-1].data["detector"]) == ("loop.critical", "identical_repeat")
