"""The harness's cost per turn on realistic ``bash`` work, every preset side by side
(``make bench-realistic``).

``harness_overhead.py`` drives a no-op tool, which never reaches the shell model, redaction,
loop detection's output masking or compaction. Here an instant scripted model plays a working
session (``realistic_session.py``: listings, grep, whole-file reads, here-documents, pytest
logs with tracebacks, one-liners, ``find | xargs``, ``kubectl`` polls and logs, JSON answers,
``git log``, and a 200 KB log every 25 turns) through the real ``bash`` tool; the workspace is a
real local directory whose shell answers the session's commands with their canned outputs (every
other command, such as the harness's own checks, really runs). The history grows, compaction
summarises it (the model answers a summary request at once with a short text that keeps no
identifiers, so the verification has work), truncation cuts, the transcript is written.

Per preset and run length (default 200 and 400 turns): wall and CPU milliseconds per turn
(the time from the end of one model call to the start of the next), median and p90, the ratio of
the median to naive's, and the growth: the median of the last ``--window`` turns of the longest
run over the median of the ``--window`` turns around turn 50, on the wall clock and on the CPU
clock (on a shared machine the CPU clock is the steadier of the two). Then, for the ``--breakdown``
presets (looplab by default), one more run of the longest length with timers around each
control's hooks and around the parts that cost most (output masking, shell parsing, redaction,
the compaction identifier scan, token counting, transcript writes), and how many times bashlex
parsed a line for how many distinct command lines.

    python benchmarks/harness_realistic.py [--turns 200 400] [--presets looplab naive]
                                           [--breakdown looplab | --breakdown]

The timers of the breakdown run wrap functions, so that run is a little slower than the timed
ones; a part is counted once where it calls itself, and parts may nest (shell parsing is also
inside loop detection's and the guards' hooks).
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import importlib
import inspect
import os
import statistics
import sys
import tempfile
import time
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Run from a checkout; ``realistic_ab.py`` points LOOPLAB_BENCH_TREE at another one to compare.
sys.path.insert(0, os.environ.get("LOOPLAB_BENCH_TREE") or str(Path(__file__).resolve().parent.parent))

from harness import Agent, LocalWorkspace, get_preset, preset_names  # noqa: E402
from harness.controls.base import Control  # noqa: E402
from harness.messages import Message, ToolCall  # noqa: E402
from harness.model import ModelReply, ToolSpec, Usage  # noqa: E402
from harness.workspace import ExecResult  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # realistic_session.py, next to this file
from machine import describe  # noqa: E402
from realistic_session import session_turn  # noqa: E402

SUMMARY = ("Summary of the work so far: the services' failing tests were investigated, configs were "
           "edited, a rollout of the api was watched and an ingest job was followed.")
"""The summariser's answer: a paraphrase that keeps no identifier, as weak models write them."""


class CannedWorkspace(LocalWorkspace):
    """A local directory whose shell answers the session's commands with their canned outputs;
    any other command (the harness's own) runs for real."""

    def __init__(self, root: str) -> None:
        super().__init__(root)
        self.canned: dict[str, ExecResult] = {}

    async def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        canned = self.canned.get(command)
        return canned if canned is not None else await super().exec(command, timeout)


class SessionModel:
    """Answers each turn at once with the session's next ``bash`` call (and a summary request
    with ``SUMMARY``); records when each turn's call started and ended, on the wall clock and
    on the process's CPU clock."""

    name = "bench/session"

    def __init__(self, workspace: CannedWorkspace) -> None:
        self.workspace = workspace
        self.starts: list[tuple[float, float]] = []
        self.ends: list[tuple[float, float]] = []
        self.commands: list[str] = []

    async def generate(self, messages: list[Message], tools: list[ToolSpec]) -> ModelReply:
        usage = Usage(input_tokens=20, output_tokens=5)  # the token budget is not what is measured
        if not tools:  # compaction's summariser
            return ModelReply(message=Message(role="assistant", content=SUMMARY), usage=usage, model=self.name)
        self.starts.append((time.perf_counter(), time.process_time()))
        t = len(self.commands)
        turn = session_turn(t)
        self.workspace.canned[turn.command] = ExecResult(exit_code=turn.exit_code, stdout=turn.output)
        self.commands.append(turn.command)
        msg = Message(role="assistant", tool_calls=[ToolCall(id=f"c{t}", name="bash",
                                                             arguments={"command": turn.command})])
        self.ends.append((time.perf_counter(), time.process_time()))
        return ModelReply(message=msg, usage=usage, model=self.name)

    async def count_tokens(self, messages: list[Message]) -> int | None:
        return None

    def turn_costs_ms(self, turns: int) -> tuple[list[float], list[float]]:
        """(wall, CPU) milliseconds of each of the first ``turns`` turns."""
        pairs = list(zip(self.ends, self.starts[1:], strict=False))[:turns]
        return ([(s[0] - e[0]) * 1e3 for e, s in pairs], [(s[1] - e[1]) * 1e3 for e, s in pairs])


@dataclass
class Run:
    wall: list[float]
    cpu: list[float]
    agent: Agent
    events: Counter[str]
    commands: list[str]


def run_session(preset: str, turns: int, before_run: Callable[[Agent], None] | None = None) -> Run:
    base = get_preset(preset)
    tools = base.tools if "bash" in base.tools else [*base.tools, "bash"]
    cfg = get_preset(
        preset, tools=tools,
        limits={"max_turns": turns + 1, "max_tool_calls": None},
        loop_detection={"circuit_breaker_threshold": 10 * turns + 10},
    )
    with tempfile.TemporaryDirectory(prefix="looplab-bench-") as root:
        workspace = CannedWorkspace(root)
        model = SessionModel(workspace)
        agent = Agent(cfg, model, workspace)
        if before_run is not None:
            before_run(agent)
        result = asyncio.run(agent.run("The api's tests fail since the retry change: find out why, "
                                       "fix it and watch the rollout."))
    if result.turns < turns + 1:
        raise RuntimeError(f"preset {preset}: run ended early ({result.status}: {result.message})")
    wall, cpu = model.turn_costs_ms(turns)
    return Run(wall, cpu, agent, Counter(e.type for e in result.events), model.commands[:turns])


def p90(xs: list[float]) -> float:
    return statistics.quantiles(xs, n=10)[-1] if len(xs) >= 2 else xs[0]


@dataclass
class Row:
    preset: str
    controls: int
    wall: dict[int, tuple[float, float]] = field(default_factory=dict)
    cpu: dict[int, tuple[float, float]] = field(default_factory=dict)
    growth: tuple[float, float] | None = None
    """(wall, CPU)."""
    events: Counter[str] = field(default_factory=Counter)


def measure(preset: str, turns: list[int], window: int) -> Row:
    row = Row(preset, len(get_preset(preset).controls_on()))
    for n in turns:
        run = run_session(preset, n)
        row.wall[n] = (statistics.median(run.wall), p90(run.wall))
        row.cpu[n] = (statistics.median(run.cpu), p90(run.cpu))
        if n == max(turns):
            row.events = run.events
            if n >= 50 + window // 2 + window:
                row.growth = (_growth(run.wall, window), _growth(run.cpu, window))
    return row


def _growth(turns: list[float], window: int) -> float:
    """The median of the last ``window`` turns over the median of the ``window`` around turn 50."""
    return statistics.median(turns[-window:]) / statistics.median(turns[max(0, 50 - window // 2):50 + window // 2])


_SEEN = ("context.compacted", "loop.warning", "loop.critical", "security.redacted")


def print_table(rows: list[Row], turns: list[int], window: int) -> None:
    longest = max(turns)
    naive = next((r for r in rows if r.preset == "naive"), None)
    print(f"harness cost per turn on a realistic bash session, ms (median / p90), wall and CPU; "
          f"x naive: wall medians; growth (wall/CPU): median of turns {longest - window + 1}-{longest} over "
          f"turns {50 - window // 2 + 1}-{50 + window // 2} of the {longest}-turn run; {describe()}")
    head = "".join(f"{f'wall {n}':>15}{f'cpu {n}':>15}{'x naive':>9}" for n in turns)
    print(f"{'preset':<10}{'controls':>9}{head}{'growth':>12}  events of the {longest}-turn run")
    for r in rows:
        cells = ""
        for n in turns:
            ratio = f"{r.wall[n][0] / naive.wall[n][0]:.0f}x" if naive and naive.wall[n][0] else "-"
            cells += f"{r.wall[n][0]:>8.2f}/{r.wall[n][1]:<6.2f}{r.cpu[n][0]:>8.2f}/{r.cpu[n][1]:<6.2f}{ratio:>9}"
        growth = f"{r.growth[0]:.2f}/{r.growth[1]:.2f}x" if r.growth is not None else "-"
        seen = ", ".join(f"{k} {r.events[k]}" for k in _SEEN if r.events[k])
        print(f"{r.preset:<10}{r.controls:>9}{cells}{growth:>12}  {seen or '-'}")


# --- breakdown -------------------------------------------------------------------------------------

PARTS: list[tuple[str, str, str]] = [
    ("loop detection: output masking", "harness.controls.loop_volatile", "mask_volatile"),
    ("loop detection: call keys", "harness.controls.loop_normalise", "call_key"),
    ("shell parsing", "harness.shell.syntax", "parse"),
    ("redaction", "harness.security.redaction", "redact"),
    ("compaction: identifier scan", "harness.compaction.identifiers", "verify_summary"),
    ("token counting", "harness.tokens", "TokenCounter.count"),
    ("transcript writes", "harness.sessions.transcript", "TranscriptWriter.sync"),
]
"""(label, module, function or Class.method) of the parts timed in the breakdown run."""
HOOKS = ("before_model", "after_reply", "before_tool", "after_tool", "after_tools")


class Timers:
    """Seconds spent in each label; a label entered again from inside itself is not counted
    twice."""

    def __init__(self) -> None:
        self.seconds: dict[str, float] = defaultdict(float)
        self._inside: Counter[str] = Counter()

    @contextmanager
    def timing(self, label: str) -> Iterator[None]:
        outer = not self._inside[label]
        self._inside[label] += 1
        t0 = time.perf_counter()
        try:
            yield
        finally:
            self._inside[label] -= 1
            if outer:
                self.seconds[label] += time.perf_counter() - t0

    def wrap(self, label: str, fn: Callable[..., Any]) -> Callable[..., Any]:
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def timed_async(*args: Any, **kwargs: Any) -> Any:
                with self.timing(label):
                    return await fn(*args, **kwargs)
            return timed_async

        @functools.wraps(fn)
        def timed(*args: Any, **kwargs: Any) -> Any:
            with self.timing(label):
                return fn(*args, **kwargs)
        return timed


def clear_caches() -> None:
    """Empty the harness's per-process caches (the shell model's parse of a line, its rule
    verdicts...): the timed run starts as cold as a new run, so its parse count is its own, not
    zero because an earlier run in this process parsed the same lines."""
    for m in list(sys.modules.values()):
        if getattr(m, "__name__", "").startswith("harness"):
            for value in list(vars(m).values()):
                if callable(getattr(value, "cache_clear", None)):
                    value.cache_clear()


@contextmanager
def patched(timers: Timers, parse_calls: Counter[str]) -> Iterator[None]:
    """Every binding of each part (in each ``harness`` module that imported it) and bashlex's
    parser wrapped for the breakdown run; restored after."""
    undo: list[tuple[Any, str, Any]] = []
    clear_caches()
    for label, module, name in PARTS:
        mod = importlib.import_module(module)
        cls_name, _, method = name.rpartition(".")
        if cls_name:
            cls = getattr(mod, cls_name)
            undo.append((cls, method, cls.__dict__[method]))
            setattr(cls, method, timers.wrap(label, cls.__dict__[method]))
            continue
        original = getattr(mod, name)
        timed = timers.wrap(label, original)
        for m in list(sys.modules.values()):
            if getattr(m, "__name__", "").startswith("harness"):
                for attr, value in list(vars(m).items()):
                    if value is original:
                        undo.append((m, attr, value))
                        setattr(m, attr, timed)
    import bashlex

    original_parse = bashlex.parse

    def counted(text: str, *args: Any, **kwargs: Any) -> Any:
        parse_calls[text] += 1
        return original_parse(text, *args, **kwargs)

    undo.append((bashlex, "parse", original_parse))
    bashlex.parse = counted
    try:
        yield
    finally:
        for owner, attr, value in reversed(undo):
            setattr(owner, attr, value)


def time_hooks(timers: Timers) -> Callable[[Agent], None]:
    def install(agent: Agent) -> None:
        for control in agent.controls:
            for hook in HOOKS:
                if getattr(type(control), hook) is not getattr(Control, hook):
                    setattr(control, hook, timers.wrap(f"control {control.name}", getattr(control, hook)))
    return install


def breakdown(preset: str, turns: int) -> None:
    timers, parse_calls = Timers(), Counter[str]()
    with patched(timers, parse_calls):
        run = run_session(preset, turns, time_hooks(timers))
    total = sum(run.wall) / 1e3
    print(f"\n{preset}, {turns} turns with timers: {statistics.median(run.wall):.2f} ms wall median per turn, "
          f"{total * 1e3 / turns:.2f} ms mean; time per turn (mean ms) and share of the harness's time:")
    controls = sorted(((k, v) for k, v in timers.seconds.items() if k.startswith("control ")),
                      key=lambda kv: -kv[1])
    parts = [(label, timers.seconds.get(label, 0.0)) for label in dict.fromkeys(p[0] for p in PARTS)]
    for title, items in (("controls (hooks)", controls), ("parts (may nest in the controls above)", parts)):
        print(f"  {title}:")
        for label, seconds in items:
            print(f"    {label:<44}{seconds * 1e3 / turns:>8.2f} ms {100 * seconds / total:>6.1f}%")
    distinct = len(set(run.commands))
    print(f"  shell parsing: bashlex parsed {sum(parse_calls.values())} times, {len(parse_calls)} distinct "
          f"lines, for {distinct} distinct command lines of the model ({turns} calls)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--turns", type=int, nargs="+", default=[200, 400], help="run lengths (one run each)")
    p.add_argument("--window", type=int, default=40, help="turns compared around turn 50 and at the end (growth)")
    p.add_argument("--warmup", type=int, default=20, help="turns of a discarded first run per preset")
    p.add_argument("--presets", nargs="+", default=sorted(preset_names()),
                   help=f"presets to measure (known: {', '.join(preset_names())})")
    p.add_argument("--breakdown", nargs="*", default=["looplab"],
                   help="presets profiled part by part at the longest length; none: --breakdown")
    args = p.parse_args(argv)
    if min(args.turns) < 2 or args.window < 2 or args.warmup < 0:
        p.error("--turns and --window must be >= 2, --warmup >= 0")
    for flag, names in (("--presets", args.presets), ("--breakdown", args.breakdown)):
        unknown = sorted(set(names) - set(preset_names()))
        if unknown:
            p.error(f"{flag}: unknown preset(s) {unknown}; known: {', '.join(preset_names())}")
    turns = sorted(set(args.turns))
    rows = []
    for preset in args.presets:
        if args.warmup:
            run_session(preset, args.warmup)
        rows.append(measure(preset, turns, args.window))
    print_table(rows, turns, args.window)
    for preset in args.breakdown:
        breakdown(preset, max(turns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
