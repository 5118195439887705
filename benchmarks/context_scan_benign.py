"""False positives of the context-file scanner on a large benign corpus of documentation.

    .venv/bin/python benchmarks/context_scan_benign.py [--preset looplab] [-v] [--root DIR ...]

The corpus is every ``*.md``, ``*.markdown``, ``*.rst`` and ``*.txt`` file under 200 KB in the
virtual environment's site-packages (or the ``--root`` folders): READMEs, changelogs, licences,
contributing guides, security policies of third-party packages. None is a poisoned context file,
so every blocked file is a false positive (``-v`` prints each with its findings to judge).

Two figures: files blocked when each is loaded alone as ``AGENTS.md``; and pairs blocked when a
file is loaded together with another file of the corpus it names (``see CONTRIBUTING.md``), under
their own names, the shape a split instruction takes (``context_scan.across_files``).

``--known``: instead, every ordered pair of the 94 benign context files of the repository (the
scanner's test folders and the scenario corpus) under three pairs of context-file names
(26,226 pairs), judged together.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from pathlib import Path

# this checkout's harness, not the one the environment installed (another worktree's)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import get_preset
from harness.security.context_scan import scan_context_file, split_findings

SUFFIXES = (".md", ".markdown", ".rst", ".txt")
REPO = Path(__file__).resolve().parent.parent
KNOWN = ["tests/harness/context_files/benign", "scenarios/corpus/context_files/benign"]
"""Folders of benign context files; with the whole benign files among the context rules' ``ok``
cases (``harness/rules/cases/context``), the known corpus."""
NAME_PAIRS = [("AGENTS.md", "TOOLS.md"), ("CLAUDE.md", "MEMORY.md"), ("SOUL.md", "BOOTSTRAP.md")]
_NAMED = re.compile(r"(?<![\w/.-])([\w.-]+\.(?:md|markdown|rst|txt))\b")


def corpus(roots: list[Path]) -> list[tuple[Path, str]]:
    files = []
    for root in roots:
        for path in sorted(p for p in root.rglob("*") if p.suffix.lower() in SUFFIXES and p.is_file()):
            if path.stat().st_size > 200_000:
                continue
            try:
                files.append((path, path.read_text(encoding="utf-8")))
            except (UnicodeDecodeError, OSError):
                continue
    return files


def named_pairs(files: list[tuple[Path, str]], stand_ins: int) -> list[tuple[tuple[str, str], tuple[str, str]]]:
    """``(a, b)`` where file ``a`` names file ``b``: the named file itself when it sits in ``a``'s
    folder or a parent, and ``stand_ins`` other files of the corpus under the name ``a`` gives
    (what a document that says "see CONTRIBUTING.md" would be judged with, had it another
    CONTRIBUTING.md beside it)."""
    by_dir = {(p.parent, p.name): text for p, text in files}
    texts = [text for _, text in files]
    out = []
    for i, (path, text) in enumerate(files):
        for name in dict.fromkeys(_NAMED.findall(text)):
            if name == path.name:
                continue
            folder = path.parent
            for _ in range(3):
                if (folder, name) in by_dir:
                    out.append(((path.name, text), (name, by_dir[(folder, name)])))
                    break
                folder = folder.parent
            for k in range(1, stand_ins + 1):
                out.append(((path.name, text), (name, texts[(i + 97 * k) % len(texts)])))
    return out


def known_files() -> list[tuple[Path, str]]:
    import yaml

    from harness.rules import case_files

    texts = [(p, p.read_text(encoding="utf-8")) for d in KNOWN for p in sorted((REPO / d).glob("*.md"))]
    for _, path in case_files("context"):
        ok = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).get("ok") or {}
        texts += [(Path(c["name"]), c["text"]) for c in ok.values() if "name" in c and "frame" not in c]
    return texts


def known_pairs(config: object, verbose: bool) -> None:
    texts = known_files()
    start, pairs, joint = time.perf_counter(), 0, 0
    for a_name, b_name in NAME_PAIRS:
        for pa, a in texts:
            for pb, b in texts:
                if pa == pb:
                    continue
                pairs += 1
                if found := split_findings([(a_name, a), (b_name, b)], config):
                    joint += 1
                    if verbose:
                        print(f"JOINT {pa.name} as {a_name} + {pb.name} as {b_name}: {found}")
    print(f"{len(texts)} benign context files: {joint}/{pairs} pairs blocked together "
          f"({time.perf_counter() - start:.1f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--preset", default="looplab")
    ap.add_argument("--root", type=Path, action="append", default=None, help="corpus folder (repeatable)")
    ap.add_argument("--stand-ins", type=int, default=5, help="other corpus files tried under each named name")
    ap.add_argument("-v", action="store_true", help="print each blocked file or pair with its findings")
    ap.add_argument("--known", action="store_true", help="the repository's benign context files, pairwise")
    args = ap.parse_args()
    if args.known:
        return known_pairs(get_preset(args.preset).context_scan, args.v)
    roots = args.root or [next(Path(sys.prefix).glob("lib/python3*/site-packages"))]
    config = get_preset(args.preset).context_scan
    files = corpus(roots)
    start = time.perf_counter()
    blocked = 0
    for path, text in files:
        result = scan_context_file(text, "AGENTS.md", config=config)
        if not result.safe:
            blocked += 1
            if args.v:
                print(f"BLOCKED {path}: {result.issues}")
    pairs = named_pairs(files, args.stand_ins)
    joint = 0
    for a, b in pairs:
        if found := split_findings([a, b], config):
            joint += 1
            if args.v:
                print(f"JOINT {a[0]} + {b[0]}: {found}")
    took = time.perf_counter() - start
    print(f"{args.preset}: {blocked}/{len(files)} files blocked alone; "
          f"{joint}/{len(pairs)} naming pairs blocked together ({took:.1f} s)")


if __name__ == "__main__":
    main()
