"""The reference harness's own overhead per turn, per preset (``make bench-harness``).

A model that answers instantly with one call to a no-op tool drives N turns; the time between
the end of one model call and the start of the next is what the harness spent on that turn
(controls, tool dispatch, bookkeeping). Printed as median and p95 in microseconds.

    python benchmarks/harness_overhead.py [--turns 200] [--presets naive looplab]

The model is a minimal constant one rather than ``harness.testing.FunctionModel``: that one
copies and estimates the whole history on every call, which is model-side cost that would
otherwise be counted as harness overhead.
"""

from __future__ import annotations

import argparse
import asyncio
import itertools
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout

from harness import Agent, LocalWorkspace, get_preset, preset_names  # noqa: E402
from harness.messages import Message, ToolCall  # noqa: E402
from harness.model import ModelReply, ToolSpec, Usage  # noqa: E402
from harness.tools import Tool, ToolContext, ToolOutcome, register_tool  # noqa: E402


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
    return [(s - e) * 1e6 for e, s in zip(model.ends, model.starts[1:], strict=False)]


def p95(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--turns", type=int, default=200, help="measured turns per preset")
    p.add_argument("--warmup", type=int, default=10, help="turns run first and not counted")
    p.add_argument("--presets", nargs="+", default=["naive", "looplab"],
                   help=f"presets to measure (known: {', '.join(preset_names())})")
    args = p.parse_args(argv)
    if args.turns < 1 or args.warmup < 0:
        p.error("--turns must be >= 1 and --warmup >= 0")
    unknown = sorted(set(args.presets) - set(preset_names()))
    if unknown:
        p.error(f"--presets: unknown preset(s) {unknown}; known: {', '.join(preset_names())}")
    print(f"harness overhead per turn: {args.turns} turns, no-op tool, instant model")
    print(f"{'preset':<12} {'controls':>8} {'median µs':>11} {'p95 µs':>10} {'max µs':>10}")
    for name in args.presets:
        samples = turn_overheads_us(name, args.turns + args.warmup)[args.warmup:]
        n_controls = len(get_preset(name).controls_on())
        print(f"{name:<12} {n_controls:>8} {statistics.median(samples):>11.1f} "
              f"{p95(samples):>10.1f} {max(samples):>10.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
