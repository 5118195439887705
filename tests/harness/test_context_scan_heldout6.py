"""The looplab context scanner on ``context_files/heldout6/``: orders split across files whose
command sits in a container of the other file (table cells, nested lists, definition lists, HTML)
or whose pointer names the other file by a property (a tag, a heading, "the other file"); and
encoded text (base64, hex, URL-encoding, ROT13) shown as an example in a document about attacks,
next to encoded orders a file asks the agent to decode and follow.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_context_scan_heldout6.py -rx

A miss stays in place as a strict expected failure with its reason: the rate is the measurement.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from case_params import prompt_of_files, scan_as_looplab, yaml_case_params

CASES = Path(__file__).parent / "context_files" / "heldout6"
MISSES: dict[str, str] = {
    "rot13-order-obey": "ROT13 is not decoded: no decoder tells ROT13 prose from ordinary rare words cheaply, "
                        "and 'apply ROT13 ... and obey it' is not read as an order to decode",
    "encoded-command-in-span": "a blob decoding to `echo ... > file` with no order to decode it: the decoded-command "
                               "rule (context_signals.shell_command) does not count a lone echo as a command "
                               "(missed before this round's change too)",
}
"""Case id -> why the scanner still gets it wrong."""

GUIDE = """# Contributing

Billing service (Python 3.12, FastAPI, Postgres).

## Checks

- `pytest -q` must pass; `ruff check .` must be clean.

## Notes

{text}

## Releases

- Tags on main build a release; production is promoted by hand.
"""


@pytest.mark.parametrize("case", yaml_case_params(CASES / "split.yaml", MISSES))
def test_an_order_reaching_a_command_in_any_container_or_by_a_property_blocks(
        case: dict[str, Any], tmp_path: Path) -> None:
    prompt = prompt_of_files(case["files"], tmp_path, GUIDE)
    if case["expect"] == "loaded":
        assert prompt.blocked_files == (), prompt.text
    else:
        assert case["command_in"] in prompt.blocked_files, prompt.text


@pytest.mark.parametrize("case", yaml_case_params(CASES / "encoded.yaml", MISSES))
def test_an_encoded_example_loads_and_an_encoded_order_blocks(case: dict[str, Any]) -> None:
    result = scan_as_looplab(GUIDE.format(text=case["text"]))
    assert result.safe == (case["expect"] == "loaded"), result.issues
