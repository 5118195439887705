"""Prompt texts live in files under ``harness/prompts/``; this module only loads them."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml

PROMPT_DIR = Path(__file__).parent / "prompts"


def shipped_or_path(name_or_path: str, directory: Path) -> Path:
    """A bare file name is a file the package ships in ``directory``; anything with a directory in
    it (``./mine.md``, ``/etc/looplab/x.yaml``) is a path. A file that merely exists under the
    same name in the working directory is not read instead: run from a project holding its own
    ``system.md``, ``tools.yaml`` or ``paths.yaml``, the harness would load that as its own."""
    p = Path(name_or_path)
    return p if p.is_absolute() or "/" in name_or_path else directory / name_or_path


@cache
def load_prompt(name_or_path: str) -> str:
    """A prompt by file name (``system.md``) or by path (``shipped_or_path``); a missing file
    names where it looked."""
    path = shipped_or_path(name_or_path, PROMPT_DIR)
    if not path.is_file():
        raise FileNotFoundError(f"prompt {name_or_path!r} not found (looked at {path}; a file of your own "
                                "is named by a path with a directory, e.g. ./my_prompt.md)")
    return path.read_text(encoding="utf-8").strip()


@cache
def load_texts(name: str) -> dict[str, str]:
    """A YAML prompt file of named texts (``hooks.yaml``, ``loop_detection.yaml``)."""
    data = yaml.safe_load(load_prompt(name))
    if not isinstance(data, dict):
        raise ValueError(f"harness/prompts/{name}: expected a mapping of texts")
    return {str(k): str(v) for k, v in data.items()}
