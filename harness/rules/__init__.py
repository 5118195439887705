"""The harness's rules as data: destructive commands, paths, context files, secrets and loops.

Each rule file here lists rules with an id, the seed or real-world failure each comes from
(``source``) and what it matches; ``cases/<set>/<rule id>.yaml`` beside them holds each rule's
cases (``ruleid``: must match, ``ok``: must not). ``python -m harness.security rules`` lists
every rule with its source and case counts. The code that applies them lives with its control
(``harness/security``, ``harness/controls``); this package only finds them (``case_files``,
``cases``, ``listing``). Tables the harness reads beside them: ``provider_errors.yaml`` (the
labels and transport reasons of provider failures), ``identifiers.yaml`` (what a summary must
carry verbatim), ``volatile.yaml`` (the tokens a poll repeats with new values).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

RULES_DIR = Path(__file__).parent
CASES_DIR = RULES_DIR / "cases"


def case_files(section: str) -> list[tuple[str, Path]]:
    """``(rule id, case file)`` for each rule of ``section`` that has cases, by rule id."""
    return [(p.stem, p) for p in sorted((CASES_DIR / section).glob("*.yaml"))]


def cases(section: str) -> list[tuple[str, str, str, Any]]:
    """``(rule id, "ruleid" | "ok", case name, case)`` for every case of ``section``, by rule."""
    import yaml  # only readers of cases need it

    out = []
    for rule, path in case_files(section):
        data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        out += [(rule, kind, name, case) for kind in ("ruleid", "ok") for name, case in (data.get(kind) or {}).items()]
    return out
