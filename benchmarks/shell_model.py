"""What reading shell costs: time per parse of a distinct command, and parses per command in a run.

    .venv/bin/python benchmarks/shell_model.py [--turns 200] [--repeat 20]

The corpus is ``benchmarks/data/shell_commands.txt``: command lines an agent sends to a bash tool
(git, pytest, grep, kubectl, one-liners, loops, here-documents). Three figures:

- time per parse of a distinct line (``harness.shell.parse`` without its cache: bashlex, the
  here-document cut, the walk to simple commands), median and 90th percentile over the corpus,
  for the one-line commands and for all; beside it bashlex alone, the parser's own cost;
- time per repeated line (the cache);
- a run of ``--turns`` calls drawn from the corpus with repeats (a few lines come back often, as
  in an agent's session), each read by the three controls that read shell in the looplab preset:
  loop detection's key, the command guard and the path guard. Printed: distinct lines, parses
  (cache misses: a line run by ``bash -c`` or ``eval`` inside another is a line of its own),
  bashlex calls (a line bashlex rejects is tried again with ``time``/``coproc`` read through) and
  the time per call of the three readers together (a repeated line costs almost nothing: the
  parse, the guard's verdict, the path words and the loop key of a line are each cached).
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bashlex  # noqa: E402

from harness import get_preset  # noqa: E402
from harness.controls.loop_normalise import call_key, wrapped_keys  # noqa: E402
from harness.security.commands import CommandGuard  # noqa: E402
from harness.shell import syntax  # noqa: E402
from harness.shell.file_args import path_words  # noqa: E402

CORPUS = Path(__file__).parent / "data" / "shell_commands.txt"


def corpus() -> list[str]:
    lines = CORPUS.read_text(encoding="utf-8").splitlines()
    return [line.replace("\\n", "\n") for line in lines if line.strip() and not line.startswith("#")]


def _ms(seconds: list[float]) -> str:
    q = statistics.quantiles(seconds, n=10)
    return f"median {statistics.median(seconds) * 1e3:.3f} ms, p90 {q[8] * 1e3:.3f} ms, max {max(seconds) * 1e3:.3f} ms"


def _per_line(fn, lines: list[str], repeat: int) -> list[float]:
    """The median time of ``fn(line)`` for each line."""
    out = []
    for line in lines:
        times = []
        for _ in range(repeat):
            t = time.perf_counter()
            fn(line)
            times.append(time.perf_counter() - t)
        out.append(statistics.median(times))
    return out


def _run(lines: list[str], turns: int) -> tuple[int, int, int, float]:
    """A run's calls read by the three controls: (distinct lines, parses, bashlex calls, seconds)."""
    rng = random.Random(7)
    weights = [1.0 / (i + 1) for i in range(len(lines))]  # a few lines come back often
    calls = rng.choices(lines, weights, k=turns)
    guard = CommandGuard(get_preset("looplab").command_guard)
    syntax.parse.cache_clear()
    counted = [0]
    original = bashlex.parse

    def counting(*a, **k):
        counted[0] += 1
        return original(*a, **k)

    bashlex.parse = counting
    try:
        t = time.perf_counter()
        for line in calls:
            args = {"command": line}
            call_key("bash", args, root="/work")
            wrapped_keys("bash", args, root="/work")
            guard.check(line)
            path_words(line, "/work")
        elapsed = time.perf_counter() - t
    finally:
        bashlex.parse = original
    return len(set(calls)), syntax.parse.cache_info().misses, counted[0], elapsed


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--turns", type=int, default=200)
    ap.add_argument("--repeat", type=int, default=20, help="timings per line (the median is kept)")
    args = ap.parse_args()
    lines = corpus()
    one_liners = [line for line in lines if "\n" not in line and len(line) <= 80]
    uncached = syntax.parse.__wrapped__
    uncached(lines[0])  # imports and bashlex's tables loaded before timing
    print(f"corpus: {len(lines)} lines ({len(one_liners)} one-liners of at most 80 characters)")
    print(f"parse, distinct one-liners:  {_ms(_per_line(uncached, one_liners, args.repeat))}")
    print(f"parse, distinct, all lines:  {_ms(_per_line(uncached, lines, args.repeat))}")
    accepted = [line for line in lines if syntax._try_parse(line) is not None]
    print(f"bashlex alone, the {len(accepted)} lines it parses as they are: "
          f"{_ms(_per_line(bashlex.parse, accepted, args.repeat))}")
    for line in lines:
        syntax.parse(line)
    print(f"parse, repeated (cached):    {_ms(_per_line(syntax.parse, lines, args.repeat))}")
    distinct, parses, bashlex_calls, elapsed = _run(lines, args.turns)
    print(f"run of {args.turns} calls read by loop key, command guard and path guard: {distinct} distinct lines, "
          f"{parses} parses ({parses / distinct:.2f} per distinct line), {bashlex_calls} bashlex calls, "
          f"{elapsed / args.turns * 1e3:.3f} ms per call for the three readers")


if __name__ == "__main__":
    main()
