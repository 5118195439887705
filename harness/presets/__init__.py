"""Named presets: each is a YAML file in this folder holding a partial ``HarnessConfig``.

Adding a preset is adding a file; nothing else changes.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import ValidationError

from harness.config import HarnessConfig

PRESET_DIR = Path(__file__).parent


class PresetError(ValueError):
    pass


def preset_names() -> list[str]:
    return sorted(p.stem for p in PRESET_DIR.glob("*.yaml"))


def deep_merge(base: dict[str, Any], over: dict[str, Any]) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = deep_merge(out[k], v) if isinstance(v, dict) and isinstance(out.get(k), dict) else v
    return out


@cache
def _load(name: str) -> HarnessConfig:
    path = PRESET_DIR / f"{name}.yaml"
    if not path.exists():
        raise PresetError(f"unknown preset {name!r}; valid presets: {', '.join(preset_names())}")
    data = yaml.safe_load(path.read_text()) or {}
    if not isinstance(data, dict):
        raise PresetError(f"{path}: expected a mapping at top level")
    try:
        return HarnessConfig.model_validate({"name": name, **data})
    except ValidationError as e:
        raise PresetError(f"{path}: invalid preset\n{e}") from e


def get_preset(name: str, **overrides: Any) -> HarnessConfig:
    """The preset ``name`` as a fresh ``HarnessConfig``, with optional deep overrides."""
    cfg = _load(name)
    if not overrides:
        return cfg.model_copy(deep=True)
    return HarnessConfig.model_validate(deep_merge(cfg.model_dump(), overrides))


PRESETS = preset_names()
