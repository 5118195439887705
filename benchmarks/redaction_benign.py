"""False positives of secret redaction on a large benign corpus: lines changed in installed code.

    .venv/bin/python benchmarks/redaction_benign.py [--mb 6] [-v] [--root DIR]

The corpus is the virtual environment's site-packages (``*.py``, ``*.json``, ``*.yaml``,
``*.yml``, ``*.toml``, ``*.cfg``, ``*.ini``), files ordered by a hash of their path (a spread over
every package, not the first few in alphabetical order) until ``--mb`` megabytes are read, so
the same environment always gives the same corpus. Third-party sources and data
hold almost no live credentials, so nearly every changed line is a false positive (test fixtures
with fake keys excepted: ``-v`` prints the changed lines to judge them). The figure printed is
``changed lines / lines`` and the time the redaction took (no cache: each file is scanned once).
"""

from __future__ import annotations

import argparse
import hashlib
import sys
import time
from pathlib import Path

# this checkout's harness, not the one the environment installed (another worktree's)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness.security.redaction import _redact_uncached as redact

SUFFIXES = (".py", ".json", ".yaml", ".yml", ".toml", ".cfg", ".ini")


def corpus(root: Path, limit_bytes: int) -> list[tuple[Path, str]]:
    files, total = [], 0
    paths = [p for p in root.rglob("*") if p.suffix in SUFFIXES and p.is_file()]
    for path in sorted(paths, key=lambda p: hashlib.sha1(str(p.relative_to(root)).encode()).digest()):
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        files.append((path, text))
        total += len(text.encode())
        if total >= limit_bytes:
            break
    return files


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--mb", type=float, default=6.0, help="megabytes of corpus to read")
    ap.add_argument("--root", type=Path, default=None, help="corpus folder (default: site-packages)")
    ap.add_argument("-v", action="store_true", help="print each changed line")
    args = ap.parse_args()
    root = args.root or next(Path(sys.prefix).glob("lib/python3*/site-packages"))
    files = corpus(root, int(args.mb * 1e6))
    lines = changed = 0
    start = time.perf_counter()
    for path, text in files:
        before, after = text.splitlines(), redact(text).splitlines()
        lines += len(before)
        for a, b in zip(before, after, strict=False):
            if a != b:
                changed += 1
                if args.v:
                    print(f"{path.relative_to(root)}: {a.strip()[:160]}")
        changed += abs(len(before) - len(after))
    took = time.perf_counter() - start
    size = sum(len(t.encode()) for _, t in files) / 1e6
    print(f"redaction on {len(files)} files ({size:.1f} MB) under {root}: "
          f"{changed}/{lines} lines changed, {took:.1f} s")


if __name__ == "__main__":
    main()
