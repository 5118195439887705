"""The harness's own overhead per turn, every preset and the peers side by side
(``make bench-harness``).

A model that answers instantly with one call to a no-op tool drives N turns; the time between
the end of one model call and the start of the next is what the harness spent on that turn
(controls, tool dispatch, bookkeeping). For each harness and each N (default 50, 200 and 400
turns, one run each) the median per turn is printed, and the growth: the median of the last
``--window`` turns of the longest run over the median of its first ones (turns 381-400 against
1-20). The peers (``benchmarks/peers.py``) are inspect's ``react()`` with ``mockllm`` and
mini-swe-agent with its deterministic test model; a peer that cannot run is listed with why.

    python benchmarks/harness_overhead.py [--turns 50 200 400] [--presets looplab naive]
                                          [--peers inspect-react mini-swe-agent | --peers]

The model is a minimal constant one rather than ``harness.testing.FunctionModel``: that one
copies and estimates the whole history on every call, which is model-side cost that would
otherwise be counted as harness overhead. Each harness first runs a short discarded warm-up
(imports, caches), so the first measured turns are not start-up.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import itertools
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

from harness import Agent, LocalWorkspace, get_preset, preset_names  # noqa: E402
from harness.messages import Message, ToolCall  # noqa: E402
from harness.model import ModelReply, ToolSpec, Usage  # noqa: E402
from harness.tools import Tool, ToolContext, ToolOutcome, register_tool  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # peers.py, next to this file
from machine import describe  # noqa: E402
from peers import PEERS, PeerUnavailable  # noqa: E402


async def _noop(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    return ToolOutcome("result", "ok")


NOOP = register_tool(Tool(
    name="bench_noop",
    description="Does nothing (benchmark only).",
    parameters={"type": "object", "properties": {"i": {"type": "integer"}}, "required": []},
    run=_noop,
))


class ConstantModel:
    """Answers every call at once with one ``bench_noop`` call (distinct arguments, so loop
    detection stays quiet), and records when each call started and ended."""

    name = "bench/constant"

    def __init__(self) -> None:
        self.starts: list[float] = []
        self.ends: list[float] = []
        self._ids = itertools.count()

    async def generate(self, messages: list[Message], tools: list[ToolSpec]) -> ModelReply:
        self.starts.append(time.perf_counter())
        i = next(self._ids)
        msg = Message(role="assistant",
                      tool_calls=[ToolCall(id=f"b{i}", name="bench_noop", arguments={"i": i})])
        reply = ModelReply(message=msg, usage=Usage(input_tokens=20, output_tokens=5),
                           model=self.name)
        self.ends.append(time.perf_counter())
        return reply

    async def count_tokens(self, messages: list[Message]) -> int | None:
        return None


def turn_overheads_us(preset: str, turns: int) -> list[float]:
    cfg = get_preset(
        preset,
        tools=["bench_noop"],
        limits={"max_turns": turns + 1, "max_tool_calls": None},
        loop_detection={"circuit_breaker_threshold": 10 * turns + 10},
    )
    model = ConstantModel()
    with tempfile.TemporaryDirectory(prefix="looplab-bench-") as root:
        result = asyncio.run(Agent(cfg, model, LocalWorkspace(root)).run("benchmark"))
    if result.turns < turns + 1:
        raise RuntimeError(f"preset {preset}: run ended early ({result.status}: {result.message})")
    return [(s - e) * 1e6 for e, s in zip(model.ends, model.starts[1:], strict=False)][:turns]


@dataclass
class Row:
    name: str
    controls: str
    medians: dict[int, float] = field(default_factory=dict)
    growth: float | None = None
    problem: str | None = None


def measure(name: str, controls: str, run: Callable[[int], list[float]], turns: list[int],
            warmup: int, window: int, repeat: int = 1) -> Row:
    """One row: each run length ``repeat`` times; turn i's time is its median over the repeats
    (a shared machine's hiccups hit one repeat, not all)."""
    row = Row(name, controls)
    try:
        if warmup:
            run(warmup)
        for n in turns:
            runs = [run(n) for _ in range(repeat)]
            samples = [statistics.median(turn) for turn in zip(*runs, strict=True)]
            row.medians[n] = statistics.median(samples)
            if n == max(turns) and len(samples) >= 2 * window:
                row.growth = statistics.median(samples[-window:]) / statistics.median(samples[:window])
    except (PeerUnavailable, RuntimeError) as e:
        row.problem = str(e)
    return row


def print_table(rows: list[Row], turns: list[int], window: int) -> None:
    longest = max(turns)
    print("harness overhead per turn, median µs (no-op tool, instant scripted model); growth: "
          f"turns {longest - window + 1}-{longest} against 1-{window} of the {longest}-turn run;"
          f" {describe()}")
    head = "".join(f"{f'{n} turns':>12}" for n in turns)
    print(f"{'harness':<16}{'controls':>9}{head}{'growth':>9}")
    for r in rows:
        if r.problem is not None:
            print(f"{r.name:<16}{r.controls:>9}  not run: {r.problem}")
            continue
        cells = "".join(f"{r.medians[n]:>12.1f}" for n in turns)
        growth = f"{r.growth:.2f}x" if r.growth is not None else "-"
        print(f"{r.name:<16}{r.controls:>9}{cells}{growth:>9}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--turns", type=int, nargs="+", default=[50, 200, 400],
                   help="run lengths to measure (one run each)")
    p.add_argument("--window", type=int, default=20,
                   help="turns compared at the start and the end of the longest run (growth)")
    p.add_argument("--warmup", type=int, default=10, help="turns of a discarded first run")
    p.add_argument("--repeat", type=int, default=3,
                   help="runs per length for the presets (a turn's time: its median over them)")
    p.add_argument("--peer-repeat", type=int, default=1,
                   help="runs per length for the peers (inspect's react() takes minutes)")
    p.add_argument("--presets", nargs="+", default=sorted(preset_names()),
                   help=f"presets to measure (known: {', '.join(preset_names())})")
    p.add_argument("--peers", nargs="*", default=list(PEERS),
                   help=f"peer harnesses to measure (known: {', '.join(PEERS)}); none: --peers")
    args = p.parse_args(argv)
    if min(args.turns) < 1 or args.warmup < 0 or args.window < 1 or min(args.repeat,
                                                                        args.peer_repeat) < 1:
        p.error("--turns, --window, --repeat and --peer-repeat must be >= 1, --warmup >= 0")
    unknown = sorted(set(args.presets) - set(preset_names()))
    if unknown:
        p.error(f"--presets: unknown preset(s) {unknown}; known: {', '.join(preset_names())}")
    unknown = sorted(set(args.peers) - set(PEERS))
    if unknown:
        p.error(f"--peers: unknown peer(s) {unknown}; known: {', '.join(PEERS)}")
    turns = sorted(set(args.turns))
    rows = [measure(name, str(len(get_preset(name).controls_on())),
                    lambda n, name=name: turn_overheads_us(name, n), turns, args.warmup, args.window,
                    args.repeat)
            for name in args.presets]
    with contextlib.redirect_stdout(io.StringIO()):  # peers print banners on import
        rows += [measure(name, "-", PEERS[name], turns, args.warmup, args.window,
                         args.peer_repeat) for name in args.peers]
    print_table(rows, turns, args.window)
    return 0


if __name__ == "__main__":
    sys.exit(main())
