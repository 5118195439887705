"""pytest parameters for the held-out case tables (``shell_cases/*.yaml``): one parameter per
case, id ``<prefix>-<form>-<index>``, and a strict ``xfail`` for the ids a table's test lists
as known misses (a fix then fails the test until the entry is removed)."""

from __future__ import annotations

import pytest


def case_params(groups: dict[str, list[str]] | list[str], prefix: str, misses: dict[str, str]) -> list:
    """``groups``: form → commands (or one plain list, form ``all``)."""
    items = groups.items() if isinstance(groups, dict) else [("all", groups)]
    out = []
    for form, commands in items:
        for i, command in enumerate(commands):
            case_id = f"{prefix}-{form}-{i}"
            marks = [pytest.mark.xfail(reason=misses[case_id], strict=True)] if case_id in misses else []
            out.append(pytest.param(command, id=case_id, marks=marks))
    return out
