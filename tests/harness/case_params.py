"""Helpers for the context-file cases (``harness/rules/cases/context``): the looplab scan of one
file, and the prompt built over files loaded together."""

from __future__ import annotations


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
