"""How many distinct benign texts the round-4 loop normalisation merges (a false-positive probe).

Two corpora of text nobody wrote to be a loop: the lines of the documentation files (``.md``,
``.rst``, ``.txt``) under a directory, and the command lines of its shell scripts (``.sh``).
For lines: how many distinct lines that the volatile-token masking kept apart become one once
animation is masked too (spinner frames, growing dots, bars by their fill, rates, ETAs), and,
separately, once the tokens that are not clocks are masked too (``loop_volatile_ids``: ports,
connection ids, temporary names, inodes, pod names, threads, GC lines). For commands: how many
distinct command lines (whitespace collapsed) share one key (``shell_key``: flags as a set, quotes
removed, paths in normal form, wrappers and ``cd`` folded in, the workspace root ``/work``); the
command lines are those of the shell scripts and the ``$ `` lines of the documentation.
Each merge is printed, so it can be read and judged; a merge is only a false positive where
the two texts could each be the result (or the call) of a different step of real work.

    .venv/bin/python benchmarks/loop_merges.py [DIR] [--limit N]
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.controls import loop_volatile  # noqa: E402
from harness.controls.loop_normalise import shell_key  # noqa: E402


def _old_mask(text: str) -> str:
    for token, rx, _ in loop_volatile._VOLATILE_RX:
        text = rx.sub(token, text)
    return loop_volatile._SPACE.sub(" ", text).strip()


def _without_non_clock(text: str) -> str:
    text = loop_volatile.mask_animation(text)
    for token, rx, _ in loop_volatile._VOLATILE_RX:
        text = rx.sub(token, text)
    return loop_volatile._SPACE.sub(" ", text).strip()


def _files(root: Path, suffixes: tuple[str, ...], limit: int) -> list[Path]:
    out = []
    for p in sorted(root.rglob("*")):
        if p.suffix in suffixes and p.is_file():
            out.append(p)
            if len(out) >= limit:
                break
    return out


def _merges(items: set[str], old, new) -> list[list[str]]:
    groups: dict[str, set[str]] = defaultdict(set)
    olds: dict[str, set[str]] = defaultdict(set)
    for item in items:
        key = new(item)
        groups[key].add(item)
        olds[key].add(old(item))
    return [sorted(groups[k])[:3] for k in groups if len(olds[k]) > 1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("root", nargs="?", default=str(next(Path(".venv/lib").glob("python*/site-packages"))))
    ap.add_argument("--limit", type=int, default=3000, help="most files per corpus")
    ap.add_argument("--show", type=int, default=15, help="merges printed per corpus")
    a = ap.parse_args()
    root = Path(a.root)
    lines: set[str] = set()
    commands: set[str] = set()
    for p in _files(root, (".md", ".rst", ".txt"), a.limit):
        lines.update(x.strip() for x in p.read_text(errors="replace").splitlines()[:400] if x.strip())
    commands.update(x.strip()[2:].strip() for x in lines if x.startswith("$ ") and len(x) > 3)
    merged = _merges(lines, _old_mask, loop_volatile.mask_volatile)
    print(f"doc lines: {len(lines)} distinct, {len(merged)} groups merged by animation masking")
    for g in merged[:a.show]:
        print("   ", " | ".join(repr(x[:70]) for x in g))
    merged = _merges(lines, _without_non_clock, loop_volatile.mask_volatile)
    print(f"doc lines: {len(lines)} distinct, {len(merged)} groups merged by the non-clock tokens")
    for g in merged[:a.show]:
        print("   ", " | ".join(repr(x[:70]) for x in g))
    for p in _files(root, (".sh",), a.limit):
        commands.update(x.strip() for x in p.read_text(errors="replace").splitlines()
                        if x.strip() and not x.strip().startswith("#"))
    merged = _merges(commands, lambda c: " ".join(c.split()), lambda c: shell_key(c, "/work"))
    print(f"shell lines: {len(commands)} distinct, {len(merged)} groups share a key")
    for g in merged[:a.show]:
        print("   ", " | ".join(repr(x[:70]) for x in g))


if __name__ == "__main__":
    main()
