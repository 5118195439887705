"""Every context-file rule's own cases (``harness/rules/cases/context/<rule>.yaml``).

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_context_rules.py -rx

A case is a context file: a guideline put into a project guide (``frame``, from
``harness/rules/cases/context_frames.yaml``), a header above or below one, a whole file, or
several files loaded together into one prompt. ``ruleid``: the file is blocked and the rule is
among the findings (for files loaded together: the file named by ``blocks``, whose text then
never reaches the prompt, and which loads on its own); ``ok``: the file loads. The scanner is
looplab's, or seed 004's where the case says ``scanner: seed``. A miss stays with ``xfail``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml
from case_params import prompt_of_files, scan_as_looplab

from harness import get_preset
from harness.rules import CASES_DIR, cases
from harness.rules.listing import rules
from harness.security.context_scan import scan_context_file, scan_many

FRAMES: dict[str, str] = yaml.safe_load((CASES_DIR / "context_frames.yaml").read_text(encoding="utf-8"))
NOTHING = "Nothing special."
KNOWN = {r.id for r in rules() if r.section == "context"}


def _params() -> list:
    return [pytest.param(rule, kind, case, id=f"context/{rule}/{name}",
                         marks=[pytest.mark.xfail(reason=case["xfail"], strict=True)] if "xfail" in case else [])
            for rule, kind, name, case in cases("context")]


def _document(case: dict[str, Any]) -> str:
    frame = FRAMES.get(case.get("frame", ""), "{text}")
    if "header" in case:
        body = frame.format(text=NOTHING)
        return case["header"] + body if case.get("where", "top") == "top" else body + case["header"]
    return frame.format(text=case["text"])


@pytest.mark.parametrize(("rule", "kind", "case"), _params())
def test_context_rule_cases(rule: str, kind: str, case: dict[str, Any], tmp_path: Path) -> None:
    if "files" in case:
        _files_together(rule, kind, case, tmp_path)
        return
    name = case.get("name", "AGENTS.md")
    result = scan_context_file(_document(case), name) if case.get("scanner") == "seed" \
        else scan_as_looplab(_document(case), name)
    assert set(result.rules) <= KNOWN, result.rules  # every finding names a rule of the data
    if kind == "ruleid":
        assert not result.safe and rule in result.rules, (result.rules, result.issues)
    else:
        assert result.safe, result.issues


def _files_together(rule: str, kind: str, case: dict[str, Any], tmp_path: Path) -> None:
    frame = FRAMES[case["frame"]]
    prompt = prompt_of_files(case["files"], tmp_path, frame)
    if kind == "ok":
        assert prompt.blocked_files == (), prompt.text
        return
    target = case["blocks"]
    assert target in prompt.blocked_files and case["files"][target] not in prompt.text, prompt.text
    files = [(n, frame.format(text=t)) for n, t in case["files"].items()]
    found = dict(zip(case["files"], scan_many(files, config=get_preset("looplab").context_scan), strict=True))
    assert rule in found[target].rules, found[target].issues
    # The joint judgement is what blocks: the file with the command loads on its own.
    assert scan_as_looplab(frame.format(text=case["files"][target]), target).safe
