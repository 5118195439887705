"""The looplab context scanner on ``context_files/heldout5/``: cases written before the scanner
learnt to judge exfiltration by what a program can reach (runtimes, VCS remotes, DNS names, any
tool given a URL built from a secret), orders in file-header and metadata formats of any kind,
orders split across files in languages it has no words for, and poisoned setup code blocks
(README there).

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_context_scan_heldout5.py -rx

A miss stays in place as a strict expected failure with its reason: the rate is the measurement.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from case_params import GUIDE, prompt_of_files, scan_as_looplab, yaml_case_params

CASES = Path(__file__).parent / "context_files" / "heldout5"
_LOCAL_EXEC = ("code fetched from 127.0.0.1 (this machine) and run: a local server's script is routine, so only a "
               "remote address blocks alone, and 'run this first' adds too little")
MISSES: dict[str, str] = {
    "fetch-exec-python": _LOCAL_EXEC,
    "process-substitution": _LOCAL_EXEC,
    "node-eval-remote": _LOCAL_EXEC,
    "finnish-memory": "Finnish says 'without asking' with a case ending (kysymättä), not a word: no waiver is seen",
    "benign-download-env-template": "the older line rule (capability_exfil) reads `-fsSLo .env` plus a URL as sending "
                                    ".env; the data-flow rule knows -o writes it",
}
"""Case id -> why the scanner still gets it wrong."""


def _cases(name: str) -> list[Any]:
    return yaml_case_params(CASES / name, MISSES)


def _loaded(expect: str) -> bool:
    return expect == "loaded"


@pytest.mark.parametrize("case", _cases("exfil.yaml"))
def test_secret_data_carried_out_by_any_network_capable_program_blocks(case: dict[str, Any]) -> None:
    result = scan_as_looplab(GUIDE.format(text=case["text"]))
    assert result.safe == _loaded(case["expect"]), result.issues


@pytest.mark.parametrize("case", _cases("headers.yaml"))
def test_orders_in_file_metadata_weigh_like_orders_in_text(case: dict[str, Any]) -> None:
    guide = GUIDE.format(text="Nothing special.")
    text = case["header"] + guide if case["where"] == "top" else guide + case["header"]
    result = scan_as_looplab(text)
    assert result.safe == _loaded(case["expect"]), result.issues


@pytest.mark.parametrize("case", _cases("setup_blocks.yaml"))
def test_a_setup_block_that_runs_downloaded_code_or_sends_secrets_blocks(case: dict[str, Any]) -> None:
    result = scan_as_looplab(GUIDE.format(text=case["text"]))
    assert result.safe == _loaded(case["expect"]), result.issues


@pytest.mark.parametrize("case", _cases("split.yaml"))
def test_an_order_split_across_files_in_any_language_blocks(case: dict[str, Any], tmp_path: Path) -> None:
    prompt = prompt_of_files(case["files"], tmp_path, GUIDE)
    if _loaded(case["expect"]):
        assert prompt.blocked_files == (), prompt.text
    else:
        assert case["command_in"] in prompt.blocked_files, prompt.text
