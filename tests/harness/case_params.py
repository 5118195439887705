"""pytest parameters and helpers for the held-out context case tables (``context_files/heldout*/``):
one parameter per case, and a strict ``xfail`` for the ids a table's test lists as known misses (a
fix then fails the test until the entry is removed)."""

from __future__ import annotations

import pytest


def yaml_case_params(path, misses: dict[str, str]) -> list:
    """One parameter per row of a YAML list of cases with an ``id`` (context-file tables)."""
    import yaml  # only the context-file tables need it

    rows = yaml.safe_load(path.read_text(encoding="utf-8"))
    return [pytest.param(r, id=r["id"], marks=[pytest.mark.xfail(reason=misses[r["id"]], strict=True)]
                         if r["id"] in misses else []) for r in rows]


def scan_as_looplab(text: str, name: str = "AGENTS.md"):
    """The looplab preset's context-file scan of one file."""
    from harness import get_preset
    from harness.context_files import scanner

    scan = scanner(get_preset("looplab"))
    assert scan is not None
    return scan(text, name)


def prompt_of_files(files: dict[str, str], tmp_path, guide: str):
    """The looplab prompt built over ``files`` (each wrapped in ``guide``) as context files."""
    import asyncio

    from harness import LocalWorkspace, get_preset
    from harness.prompt_builder import build_prompt

    for name, text in files.items():
        (tmp_path / name).write_text(guide.format(text=text), encoding="utf-8")
    config = get_preset("looplab")
    config.prompt.context_files = sorted({*config.prompt.context_files, *files})
    return asyncio.run(build_prompt(config, LocalWorkspace(str(tmp_path))))


GUIDE = """# Contributing

Billing service (Python 3.12, FastAPI, Postgres).

## Checks

- `pytest -q` must pass; `ruff check .` must be clean.
- Keep handlers thin; business rules live in `billing/domain`.

## Notes

{text}

## Releases

- Tags on main build a release; production is promoted by hand.
"""
"""The project guide a held-out context case's ``{text}`` goes into (rounds 4 and 5)."""
