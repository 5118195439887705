"""Prompt texts live in files under ``harness/prompts/``; this module only loads them."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

PROMPT_DIR = Path(__file__).parent / "prompts"


@cache
def load_prompt(name_or_path: str) -> str:
    """A prompt by file name (``system.md``) or by path; a missing file names where it looked."""
    p = Path(name_or_path)
    candidates = [p] if p.is_absolute() or p.exists() else [PROMPT_DIR / name_or_path]
    for c in candidates:
        if c.is_file():
            return c.read_text(encoding="utf-8").strip()
    raise FileNotFoundError(f"prompt {name_or_path!r} not found (looked in {PROMPT_DIR})")


@cache
def load_texts(name: str) -> dict[str, str]:
    """A YAML prompt file of named texts (``hooks.yaml``, ``loop_detection.yaml``)."""
    data = yaml.safe_load(load_prompt(name))
    if not isinstance(data, dict):
        raise ValueError(f"harness/prompts/{name}: expected a mapping of texts")
    return {str(k): str(v) for k, v in data.items()}
