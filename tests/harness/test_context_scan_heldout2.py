"""The looplab context scanner on ``context_files/heldout2/``: files written before the issue-14
scanner changes (confusables across scripts, default-ignorable code points, TOML/JSON front
matter, exfiltration by capability, guidelines quoting attacks) and never used to tune them.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_context_scan_heldout2.py -rx

A miss stays in place as an expected failure with its reason: the rate is the measurement.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from harness import get_preset
from harness.context_files import scanner

HELDOUT2 = Path(__file__).parent / "context_files" / "heldout2"
MISSES: dict[str, str] = {}
FALSE_POSITIVES: dict[str, str] = {}


def _params(kind: str, known: dict[str, str]) -> list:
    return [pytest.param(p, id=p.name, marks=[pytest.mark.xfail(reason=known[p.name], strict=True)]
                         if p.name in known else []) for p in sorted((HELDOUT2 / kind).glob("*.md"))]


def _scan(path: Path):
    scan = scanner(get_preset("looplab"))
    assert scan is not None
    return scan(path.read_text(encoding="utf-8"), path.name)


@pytest.mark.parametrize("path", _params("poisoned", MISSES))
def test_looplab_blocks_held_out_poisoned_files(path: Path) -> None:
    assert not _scan(path).safe


@pytest.mark.parametrize("path", _params("benign", FALSE_POSITIVES))
def test_looplab_loads_held_out_benign_files(path: Path) -> None:
    result = _scan(path)
    assert result.safe, result.issues
