"""The looplab context scanner on ``context_files/heldout3/``: cases written before the scanner
learnt to read a header block of any syntax, to judge the context files loaded together, and to
tell a guideline quoting an exfiltration one-liner from an order to run it (README there).

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_context_scan_heldout3.py -rx

A miss stays in place as a strict expected failure with its reason: the rate is the measurement.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from case_params import prompt_of_files, scan_as_looplab, yaml_case_params

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
    return yaml_case_params(CASES / name, MISSES)


def _scan(text: str, name: str = "AGENTS.md"):
    return scan_as_looplab(text, name)


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
    prompt = prompt_of_files(case["files"], tmp_path, GUIDE)
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
