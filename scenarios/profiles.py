"""Profiles: named scenario selections (``scenarios/profiles/<name>.yaml``), e.g. ``core``, one
scenario per checklist item, to iterate on a harness before the whole library.

A profile is data: a list of scenario ids, each with the checklist items it stands for and why
it was chosen. ``tests/scenarios/test_profiles.py`` checks every profile against the library
and the checklist.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path

import yaml
from pydantic import BaseModel, ConfigDict, ValidationError

PROFILES_DIR = Path(__file__).resolve().parent / "profiles"


class ProfileError(ValueError):
    """A profile that is unknown or does not load (the message names the file or the name)."""


class ProfileEntry(BaseModel):
    """One scenario of a profile."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    id: str
    """A scenario id of the library (an expanded corpus sample's id included)."""
    items: tuple[str, ...]
    """The checklist items the scenario stands for in the profile."""
    why: str
    """Why this scenario (its cost, beside the others probing the same items)."""


class Profile(BaseModel):
    """A named selection of scenarios."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    name: str
    """The name given to ``--profile`` / ``PROFILE=``: the file's stem."""
    scenarios: tuple[ProfileEntry, ...]

    @property
    def ids(self) -> list[str]:
        return [entry.id for entry in self.scenarios]


def profile_names() -> list[str]:
    return sorted(p.stem for p in PROFILES_DIR.glob("*.yaml"))


@cache
def load_profile(name: str) -> Profile:
    """The profile ``name``; an unknown name or a bad file raises ``ProfileError``."""
    path = PROFILES_DIR / f"{name}.yaml"
    if name not in profile_names():
        raise ProfileError(f"unknown profile {name!r}; valid: {', '.join(profile_names())}")
    try:
        profile = Profile.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    except (OSError, yaml.YAMLError, ValidationError) as e:
        raise ProfileError(f"{path}: cannot load profile: {e}") from e
    if profile.name != name:
        raise ProfileError(f"{path}: name {profile.name!r} must equal the file's stem {name!r}")
    return profile
