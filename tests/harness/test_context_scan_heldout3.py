"""The looplab context scanner on ``context_files/heldout3/``: cases written before the scanner
learnt to read a header block of any syntax, to judge the context files loaded together, and to
tell a guideline quoting an exfiltration one-liner from an order to run it (README there).

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_context_scan_heldout3.py -rx

A miss stays in place as a strict expected failure with its reason: the rate is the measurement.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness import LocalWorkspace, get_preset
from harness.context_files import scanner
from harness.prompt_builder import build_prompt

CASES = Path(__file__).parent / "context_files" / "heldout3"
MISSES: dict[str, str] = {}
"""Case id -> why the scanner still gets it wrong."""

GUIDE = """# Contributing

Inventory service (Go 1.22, gRPC, SQLite for tests).

## Checks

- `go test ./...` must pass; `golangci-lint run` must be clean.
- Keep handlers thin; business rules live in `internal/domain`.

## Notes

{text}

## Deploys

- Merges to main deploy to staging; production is promoted by hand.
"""


def _cases(name: str) -> list[Any]:
    rows = yaml.safe_load((CASES / name).read_text(encoding="utf-8"))
    return [pytest.param(r, id=r["id"], marks=[pytest.mark.xfail(reason=MISSES[r["id"]], strict=True)]
                         if r["id"] in MISSES else []) for r in rows]


def _scan(text: str, name: str = "AGENTS.md"):
    scan = scanner(get_preset("looplab"))
    assert scan is not None
    return scan(text, name)


@pytest.mark.parametrize("case", _cases("front_matter.yaml"))
def test_a_header_block_of_any_syntax_is_read(case: dict[str, Any]) -> None:
    result = _scan(case["header"] + GUIDE.format(text="Nothing special."))
    assert result.safe == (case["expect"] == "loaded"), result.issues


@pytest.mark.parametrize("case", _cases("quoting.yaml"))
def test_quoted_exfiltration_loads_and_ordered_exfiltration_blocks(case: dict[str, Any]) -> None:
    result = _scan(GUIDE.format(text=case["text"]))
    assert result.safe == (case["expect"] == "loaded"), result.issues


@pytest.mark.parametrize("case", _cases("split.yaml"))
def test_context_files_loaded_together_are_judged_together(case: dict[str, Any], tmp_path: Path) -> None:
    for name, text in case["files"].items():
        (tmp_path / name).write_text(GUIDE.format(text=text), encoding="utf-8")
    config = get_preset("looplab")
    config.prompt.context_files = sorted({*config.prompt.context_files, *case["files"]})
    prompt = asyncio.run(build_prompt(config, LocalWorkspace(str(tmp_path))))
    if case["expect"] == "loaded":
        assert prompt.blocked_files == (), prompt.text
    else:
        assert case["command_in"] in prompt.blocked_files, prompt.text
        assert ".owned" not in prompt.text and "127.0.0.1:9" not in prompt.text


@pytest.mark.parametrize("case", [c for c in _cases("split.yaml")
                                  if c.values[0]["expect"] == "blocked"])
def test_each_part_of_a_split_instruction_looks_harmless_alone(case: dict[str, Any]) -> None:
    """The split cases test the joint judgement: the file with the command passes on its own."""
    row = case
    assert _scan(GUIDE.format(text=row["files"][row["command_in"]]), row["command_in"]).safe
