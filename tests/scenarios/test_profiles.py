"""Profiles (``scenarios/profiles/``) against the library and the checklist."""

from __future__ import annotations

import pytest

from evals.library import load_library
from scenarios.checklist import FAMILIES, load_checklist
from scenarios.loader import select
from scenarios.profiles import ProfileError, load_profile, profile_names


def test_core_covers_every_item_and_family_with_scenarios_that_exist() -> None:
    library = load_library()
    core = load_profile("core")
    assert len(core.ids) == len(set(core.ids)), "a scenario listed twice"
    for entry in core.scenarios:
        assert entry.id in library, f"{entry.id}: no such scenario"
        probed = set(library[entry.id].probes)
        assert set(entry.items) <= probed, f"{entry.id} does not probe {set(entry.items) - probed}"
    covered = {item for entry in core.scenarios for item in entry.items}
    probed_somewhere = {item for s in library.values() for item in s.probes}
    items = {i.id: i for i in load_checklist()}
    assert probed_somewhere - covered == set(), "checklist items with a scenario but not in core"
    assert set(items) - covered == set(), "checklist items core does not cover"
    assert {items[i].family for i in covered} == set(FAMILIES)


def test_core_runs_within_the_library_suite() -> None:
    """``--suite library --profile core`` selects them all (no generated variant in core)."""
    ids = load_profile("core").ids
    assert [s.id for s in select(ids, None, "library")] == ids


def test_every_profile_loads() -> None:
    assert "core" in profile_names()
    for name in profile_names():
        assert load_profile(name).scenarios


def test_an_unknown_profile_is_refused_naming_the_valid_ones() -> None:
    with pytest.raises(ProfileError, match="unknown profile 'nope'; valid: .*core"):
        load_profile("nope")
