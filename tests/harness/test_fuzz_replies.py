"""No model output breaks the harness: malformed replies over every preset, in a real workspace.

Each preset runs the harness's own scripted model (``harness.testing.FunctionModel``) through
many runs of a few turns; every reply is drawn from a seeded generator of what models get wrong:
NUL bytes and lone surrogates in names, paths and text, deep nesting, huge and wrongly typed
arguments, unknown and mis-cased tools, duplicate ids, many calls at once. Commands only ever
``echo`` or ``printf`` what they carry (the workspace is real). Asserted: no exception escapes
``Agent.run``, no run ends ``error``, and every reply was consumed.
"""

from __future__ import annotations

import asyncio
import random
import shlex
import zlib
from pathlib import Path
from typing import Any

from harness import Agent, ExitStatus, LocalWorkspace
from harness.messages import Message, ToolCall
from harness.model import ToolSpec
from harness.presets import get_preset, preset_names
from harness.testing import FunctionModel

REPLIES_PER_PRESET = 300
TURNS_PER_RUN = 12
NASTY = ["\x00", "\ud800", "\udfff", "\u202e", "\ufeff", "\x1b[31m", "\r\n", "\\", "'", '"',
         "$(", "`", "\u0301", "\U0001f600", "\x7f", "%s", "{}", "\t"]
TOOLS = ["bash", "read_file", "write_file", "list_dir", "grep", "progress_update",
         "notes_append", "agent"]


def nasty_text(rng: random.Random, size: int | None = None) -> str:
    size = size if size is not None else rng.choice([0, 1, 5, 40, 300])
    parts = [rng.choice(NASTY) if rng.random() < 0.3 else rng.choice("abcxyz./-_ 019")
             for _ in range(size)]
    return "".join(parts)


def deep(depth: int) -> Any:
    value: Any = "leaf"
    for i in range(depth):
        value = [value] if i % 2 else {"k": value}
    return value


def odd_value(rng: random.Random) -> Any:
    return rng.choice([
        None, True, 0, -1, 10**40, 1.5, float("nan"), float("inf"), [], {}, [1, "a", None],
        {"nested": {"x": [1, 2]}}, nasty_text(rng), deep(rng.choice([40, 200, 1500])),
        "x" * rng.choice([10_000, 60_000, 2_100_000]), "\x00" * 3, "\ud800abc", 10**5000,
    ])


def odd_path(rng: random.Random) -> Any:
    return rng.choice([
        "ok.txt", "dir/new.txt", "a\x00b.txt", "\ud800.txt", "x" * 5000, "", ".", "..",
        "../outside.txt", "/etc/hostname", "sub/" * 300 + "f", "caf\u00e9.txt", "\u202etxt.exe",
        123, None, ["a.txt"], {"path": "a.txt"}, "dir\\win.txt", "~/x", "nul\x00",
    ])


def safe_command(rng: random.Random) -> Any:
    """Only echo/printf (the workspace is real), carrying what can break a command line."""
    payload = nasty_text(rng, rng.choice([0, 3, 30]))
    return rng.choice([
        f"echo {shlex.quote(payload)}", "echo ok", f"printf '%s' {shlex.quote(payload)}",
        "echo \x00", "echo \ud800", "echo " + "y" * 40_000, 42, None, ["echo", "hi"],
        {"cmd": "echo"}, "",
    ])


def odd_arguments(rng: random.Random, tool: str) -> dict[str, Any]:
    args: dict[str, Any] = {}
    if tool == "bash":
        args["command"] = safe_command(rng)
    elif tool in ("read_file", "list_dir", "grep"):
        args["path"] = odd_path(rng)
        if tool == "grep":
            args["pattern"] = rng.choice(["x", "(", "\x00", "\ud800", "a" * 5000, 3, None])
    elif tool == "write_file":
        args["path"] = odd_path(rng)
        args["content"] = rng.choice([nasty_text(rng), "x" * 50_000, 5, None, ["a"], "\ud800"])
    else:
        args[rng.choice(["text", "task", "status", "note", "content", "goal"])] = odd_value(rng)
    for _ in range(rng.choice([0, 0, 1, 3])):
        key = rng.choice(["extra", "\x00key", "\ud800", "", "k" * 300, "command", "path"])
        args[key] = odd_value(rng)
    return args


def odd_name(rng: random.Random) -> str:
    name = rng.choice(TOOLS)
    return rng.choice([
        name, name.upper(), name.title(), f" {name} ", name + "\x00", name + "\ud800",
        "unknown_tool", "", "x" * 2000, "functions." + name, name.replace("_", "-"),
    ])


def odd_reply(rng: random.Random) -> Message:
    calls = []
    for _ in range(rng.choice([0, 1, 1, 2, 3, 8])):
        name = odd_name(rng)
        base = name.strip().lower().replace("-", "_").removeprefix("functions.")
        call_id = rng.choice([f"c{rng.random()}", "dup", "", "id\x00", "id\ud800"])
        calls.append(ToolCall(id=call_id, name=name, arguments=odd_arguments(rng, base)))
    return Message(role="assistant", content=nasty_text(rng), tool_calls=calls,
                   thoughts=rng.choice([None, "", nasty_text(rng), "\ud800"]))


def fuzz_model(rng: random.Random, budget: list[int]) -> FunctionModel:
    def fn(messages: list[Message], tools: list[ToolSpec]) -> Message:
        budget[0] -= 1
        return odd_reply(rng)

    return FunctionModel(fn, name="fuzz")


async def fuzz_preset(preset: str, tmp_path: Path, seed: int) -> tuple[int, list[str]]:
    rng = random.Random(seed)
    # The verification command is a pytest run in the real presets: `true` keeps the fuzz fast
    # (the control still runs a command on every attempt to finish).
    cfg = get_preset(preset, limits={"max_turns": TURNS_PER_RUN},
                     verify_done={"command": "true"})
    budget = [REPLIES_PER_PRESET]
    problems: list[str] = []
    consumed = 0
    run_no = 0
    while budget[0] > 0:
        run_no += 1
        ws = tmp_path / f"{preset}-{run_no}"
        model = fuzz_model(rng, budget)
        try:
            res = await asyncio.wait_for(Agent(cfg, model, LocalWorkspace(ws)).run("fuzz"), 120)
        except Exception as e:  # noqa: BLE001 - the point is that nothing escapes
            problems.append(f"{preset} run {run_no}: {type(e).__name__}: {e}"[:400])
            consumed += model.calls
            continue
        consumed += model.calls
        if res.status == ExitStatus.ERROR:
            problems.append(f"{preset} run {run_no}: status error: {res.message[:300]}")
    return consumed, problems


async def fuzz_all(tmp_path: Path) -> tuple[dict[str, int], list[str]]:
    """Every preset at once: the runs mostly wait on their workspace's processes."""
    presets = preset_names()
    results = await asyncio.gather(*(fuzz_preset(p, tmp_path, zlib.crc32(p.encode()))
                                     for p in presets))
    consumed = {p: n for p, (n, _) in zip(presets, results, strict=True)}
    return consumed, [x for _, problems in results for x in problems]


def test_malformed_replies_never_break_a_run(tmp_path: Path) -> None:
    consumed, problems = asyncio.run(fuzz_all(tmp_path))
    assert problems == []
    assert all(n >= REPLIES_PER_PRESET for n in consumed.values()), consumed
    assert sum(consumed.values()) >= 2000


def test_screened_arguments_become_a_tool_error_the_model_sees(tmp_path: Path) -> None:
    calls = [ToolCall(id="a", name="read_file", arguments={"path": "a\x00b.txt"}),
             ToolCall(id="b", name="write_file", arguments={"path": "x.txt", "content": deep(99)}),
             ToolCall(id="c", name="bash", arguments={"command": 10**5000})]
    model = FunctionModel(lambda m, t: calls if len(m) < 4 else "done")
    res = asyncio.run(Agent(get_preset("looplab"), model, LocalWorkspace(tmp_path)).run("t"))
    assert res.status == ExitStatus.COMPLETED
    results = [m for m in res.messages if m.role == "tool"]
    assert [m.is_error for m in results] == [True, True, True]
    assert "NUL byte" in results[0].content and "nested deeper" in results[1].content
    assert "more than 4096 bits" in results[2].content
