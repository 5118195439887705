"""Secret redaction in this checkout against another checkout: the same output on every text, and
the time per text, interleaved (``realistic_ab.py`` does the same for whole turns).

    git worktree add /tmp/looplab-base <rev>
    python benchmarks/redaction_ab.py /tmp/looplab-base [--rounds 3] [--mb 2]

The texts are the tool outputs of the realistic session (``realistic_session.py``, 400 turns,
with its 200 KB logs) and ``--mb`` megabytes of the benign corpus (``redaction_benign.py``), each
also upper-cased and with its case swapped. Each round redacts them all once in each checkout,
each in a fresh process with the redaction caches empty; a text's time is its fastest over the
rounds. Printed: how many texts the two checkouts redact differently (the first few shown), and
per checkout the median and mean milliseconds per session output and per benign file.
"""

from __future__ import annotations

import argparse
import os
import pickle
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from machine import describe  # noqa: E402


def _texts(mb: float) -> dict[str, list[str]]:
    from realistic_session import session_turn
    from redaction_benign import corpus

    root = next(Path(sys.prefix).glob("lib/python3*/site-packages"))
    groups = {"session": [session_turn(t).output for t in range(400)],
              "benign": [text for _, text in corpus(root, int(mb * 1e6))]}
    return {name: [v for t in texts for v in (t, t.upper(), t.swapcase())] for name, texts in groups.items()}


def _worker(tree: str, texts_file: str, out_file: str) -> None:
    sys.path.insert(0, tree)
    from harness.security import redaction

    assert redaction.__file__.startswith(tree), redaction.__file__
    with open(texts_file, "rb") as f:
        groups: dict[str, list[str]] = pickle.load(f)
    out: dict[str, tuple[list[str], list[float]]] = {}
    for name, texts in groups.items():
        results, seconds = [], []
        for text in texts:
            t0 = time.perf_counter()
            results.append(redaction._redact_uncached(text))
            seconds.append(time.perf_counter() - t0)
        out[name] = (results, seconds)
    with open(out_file, "wb") as f:
        pickle.dump(out, f)


def main(argv: list[str] | None = None) -> int:
    if argv is None and sys.argv[1:2] == ["--worker"]:
        _worker(*sys.argv[2:5])
        return 0
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("other", help="the other checkout (its harness/ is measured)")
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--mb", type=float, default=2.0, help="megabytes of the benign corpus")
    args = p.parse_args(argv)
    other = Path(args.other).resolve()
    if not (other / "harness" / "__init__.py").is_file():
        p.error(f"other: {other} is not a looplab checkout (no harness/__init__.py)")
    if args.rounds < 1:
        p.error("--rounds must be >= 1")
    trees = {"this": str(HERE.parent), "other": str(other)}
    groups = _texts(args.mb)
    best: dict[str, dict[str, list[float]]] = {}
    outputs: dict[str, dict[str, list[str]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        texts_file = os.path.join(tmp, "texts.pkl")
        with open(texts_file, "wb") as f:
            pickle.dump(groups, f)
        for _ in range(args.rounds):
            for name, tree in trees.items():
                out_file = os.path.join(tmp, f"{name}.pkl")
                # the working directory is the tree: its rule files, not a stray one elsewhere
                subprocess.run([sys.executable, __file__, "--worker", tree, texts_file, out_file],
                               check=True, cwd=tree)
                with open(out_file, "rb") as f:
                    result = pickle.load(f)
                for group, (texts, seconds) in result.items():
                    outputs.setdefault(name, {})[group] = texts
                    kept = best.setdefault(name, {}).setdefault(group, seconds)
                    kept[:] = [min(a, b) for a, b in zip(kept, seconds, strict=True)]
    print(f"redaction, this checkout ({trees['this']}) against {trees['other']}: {args.rounds} interleaved "
          f"rounds; {describe()}")
    for group, texts in groups.items():
        differ = [i for i, t in enumerate(texts) if outputs["this"][group][i] != outputs["other"][group][i]]
        print(f"{group}: {len(texts)} texts, {sum(map(len, texts)) / 1e6:.1f} MB; {len(differ)} redacted differently")
        for i in differ[:5]:
            print(f"  text {i}: {texts[i][:120]!r}")
        for name in trees:
            ms = [s * 1e3 for s in best[name][group]]
            print(f"  {name:<6} median {statistics.median(ms):7.3f} ms, mean {statistics.fmean(ms):7.3f} ms per text")
    return 0


if __name__ == "__main__":
    sys.exit(main())
