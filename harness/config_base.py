"""What every config model shares: strict models (a typo in a preset names the field) and a
regex check. Imports nothing from the harness, so any config module can use it."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict


class Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


def check_regex(pattern: str | None, field: str) -> str | None:
    """``pattern`` if it compiles (or is None), else a ValueError naming ``field``."""
    if pattern is not None:
        try:
            re.compile(pattern)
        except re.error as e:
            raise ValueError(f"{field} {pattern!r} is not a valid regex: {e}") from e
    return pattern


Regex = Annotated[str, AfterValidator(lambda p: check_regex(p, "pattern"))]
"""A config string that must compile as a regular expression."""


def check_regexes(patterns: Iterable[str], field: str) -> list[str]:
    return [p for p in patterns if check_regex(p, field) is not None]
