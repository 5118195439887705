"""Loading pattern files (YAML data under ``harness/rules/``): one place, clear errors.

Every pattern list the security controls use is data so it can be read, reviewed and extended
without touching code. A bad regex names the file and the entry.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml

from harness.prompts import shipped_or_path

PATTERN_DIR = Path(__file__).resolve().parents[1] / "rules"
"""Where rule files named without a directory are found (``harness/rules/``)."""


class PatternFileError(ValueError):
    pass


@dataclass(frozen=True)
class Pattern:
    id: str
    regex: re.Pattern[str]
    text: str
    """Guidance, a description or a replacement template, depending on the file."""
    weight: float = 1.0
    """How much a match counts where findings are scored (the context scanner); 1.0 elsewhere."""
    triggers: tuple[str, ...] = ()
    """Lower-case substrings one of which every match contains, so a text holding none of them
    need not be searched (a fast pre-filter); empty: always search."""


def _resolve(name_or_path: str) -> Path:
    return shipped_or_path(name_or_path, PATTERN_DIR)  # (a bare name: a file of harness/rules/)


# libyaml when installed: pattern files are read on the first scan of every run.
_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


@cache
def _read_yaml(path: Path) -> object:
    """A pattern file parsed once per process, however many sections are loaded from it."""
    try:
        return yaml.load(path.read_text(encoding="utf-8"), Loader=_LOADER) or {}  # a safe loader
    except yaml.YAMLError as e:
        raise PatternFileError(f"{path}: not valid YAML: {e}") from e


def read_rule_file(name_or_path: str) -> tuple[Path, dict[str, Any]]:
    """A rule file (a name under ``harness/rules/`` or a path), parsed once per process."""
    path = _resolve(name_or_path)
    if not path.is_file():
        raise PatternFileError(f"rule file {name_or_path!r} not found (looked at {path})")
    data = _read_yaml(path)
    if not isinstance(data, dict):
        raise PatternFileError(f"{path}: expected a mapping of sections")
    return path, data


def _section(name_or_path: str, section: str) -> tuple[Path, list[Any]]:
    """The list under ``section`` of a pattern file, and the file's resolved path."""
    path = _resolve(name_or_path)
    if not path.is_file():
        raise PatternFileError(f"pattern file {name_or_path!r} not found (looked at {path})")
    data = _read_yaml(path)
    entries = data.get(section) if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise PatternFileError(f"{path}: expected a list under {section!r}")
    return path, entries


@cache
def load_patterns(name_or_path: str, section: str, text_key: str, flags: int = re.IGNORECASE) -> tuple[Pattern, ...]:
    """Patterns from ``section`` of a YAML file: a list of ``{id, pattern, <text_key>}``."""
    path, entries = _section(name_or_path, section)
    out = []
    for i, entry in enumerate(entries):
        where = f"{path}: {section}[{i}]"
        if not isinstance(entry, dict) or "pattern" not in entry:
            raise PatternFileError(f"{where}: each entry needs 'pattern' (and 'id', {text_key!r})")
        try:
            rx = re.compile(str(entry["pattern"]), flags)
        except re.error as e:
            raise PatternFileError(f"{where} ({entry.get('id', '?')}): bad regex: {e}") from e
        try:
            weight = float(entry.get("weight", 1.0))
        except (TypeError, ValueError) as e:
            raise PatternFileError(f"{where} ({entry.get('id', '?')}): 'weight' must be a number") from e
        triggers = entry.get("triggers", [])
        if not isinstance(triggers, list) or not all(isinstance(t, str) and t == t.lower() and t for t in triggers):
            raise PatternFileError(f"{where} ({entry.get('id', '?')}): 'triggers' must be a list of lower-case strings")
        out.append(Pattern(str(entry.get("id", f"{section}-{i}")), rx, str(entry.get(text_key, "")), weight,
                           tuple(triggers)))
    return tuple(out)


@cache
def compile_extra(patterns: tuple[str, ...], what: str, flags: int = re.IGNORECASE) -> tuple[re.Pattern[str], ...]:
    """User-supplied extra regexes (from ``HarnessConfig``); a bad one names the config field."""
    out = []
    for p in patterns:
        try:
            out.append(re.compile(p, flags))
        except re.error as e:
            raise PatternFileError(f"{what}: bad regex {p!r}: {e}") from e
    return tuple(out)
