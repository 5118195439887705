"""Every secret rule's own cases (``harness/rules/cases/secrets/<rule>.yaml``).

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_secret_rules.py -rx

A ``ruleid`` case is a text holding a ``secret``: redaction must take the secret out, and this
rule must be the first to do it (the rules apply in order: the fixed formats of
``redaction_patterns.yaml``, then the passes of its ``checks``; ``redaction.passes``). An ``ok``
case must come out unchanged. A miss stays with ``xfail``.
"""

from __future__ import annotations

from typing import Any

import pytest

from harness.rules import cases
from harness.security.redaction import _redact_uncached as redact
from harness.security.redaction import passes


def _params() -> list:
    out = []
    for rule, kind, name, case in cases("secrets"):
        case = case if isinstance(case, dict) else {"text": case}
        marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if "xfail" in case else []
        out.append(pytest.param(rule, kind, case, id=f"secrets/{rule}/{name}", marks=marks))
    return out


@pytest.mark.parametrize(("rule", "kind", "case"), _params())
def test_secret_rule_cases(rule: str, kind: str, case: dict[str, Any]) -> None:
    if kind == "ok":
        assert redact(case["text"]) == case["text"]
        return
    assert case["secret"] not in redact(case["text"])
    assert next(r for r, text in passes(case["text"]) if case["secret"] not in text) == rule
