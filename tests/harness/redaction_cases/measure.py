"""Redaction rates: the secret rules' cases (``harness/rules/cases/secrets``), and lines changed in
real text (false positives).

    .venv/bin/python tests/harness/redaction_cases/measure.py [-v]

Real text: this repository's recent history (``git log -p -n 80``), the harness sources outside
``harness/security`` and ``pip list -v``. A changed line there is a false positive unless it
holds a test fixture's secret (shown with ``-v``)."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import yaml

from harness.rules import case_files
from harness.security.redaction import _redact_uncached as redact

HERE = Path(__file__).parent
ROOT = HERE.parents[2]


def cases(verbose: bool) -> None:
    for rule, path in case_files("secrets"):
        d = yaml.safe_load(path.read_text(encoding="utf-8"))
        secrets, benign = d.get("ruleid") or {}, d.get("ok") or {}
        missed = [name for name, c in secrets.items() if c["secret"] in redact(c["text"])]
        changed = [name for name, c in benign.items() if redact(c) != c]
        print(f"{rule}: secrets caught {len(secrets) - len(missed)}/{len(secrets)}, benign changed "
              f"{len(changed)}/{len(benign)}" + (f"  missed={missed} changed={changed}" if verbose else ""))


def real_text(verbose: bool) -> None:
    # Not the variant families: their held-out rows must not be read while tuning.
    git = subprocess.run(["git", "log", "-p", "-n", "80", "--", "harness", "evals", "scenarios",
                          "reports", ":(exclude)scenarios/families"], cwd=ROOT,
                         capture_output=True, text=True).stdout
    src = "\n".join(p.read_text() for p in sorted((ROOT / "harness").rglob("*.py"))
                    if "security" not in p.parts)
    pip = subprocess.run([sys.executable, "-m", "pip", "list", "-v"], capture_output=True,
                         text=True).stdout
    for name, text in (("git log -p -n 80", git), ("harness sources", src), ("pip list", pip)):
        start = time.perf_counter()
        out = redact(text).splitlines()
        took = time.perf_counter() - start
        pairs = [(a, b) for a, b in zip(text.splitlines(), out, strict=False) if a != b]
        print(f"{name}: {len(pairs)}/{len(out)} lines changed ({len(text) / 1e6:.2f} MB, "
              f"{took:.1f} s)")
        for a, _ in pairs[: 40 if verbose else 0]:
            print("   ", a[:150])


if __name__ == "__main__":
    cases("-v" in sys.argv)
    real_text("-v" in sys.argv)
