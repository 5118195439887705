"""Generated variant families: tables load into scenarios with stable ids, every split exists and
each is made with other parameters than the others, encodings really are what they claim, bad tables are refused
naming the file and field."""

from __future__ import annotations

import json
import unicodedata
from collections import defaultdict
from pathlib import Path

import pytest
import yaml

from scenarios.families import (
    FAMILIES_DIR,
    FamilyError,
    build_family,
    load_families,
    load_table,
    rows,
)
from scenarios.loader import load_library, select

TABLES = sorted(FAMILIES_DIR.glob("*.yaml"))
FAMILIES = {p.stem: load_table(p) for p in TABLES}


def _by_family() -> dict[str, list]:
    out = defaultdict(list)
    for s in load_families():
        out[s.family_id].append(s)
    return out


def test_every_family_has_five_variants_and_every_split():
    for family, variants in _by_family().items():
        splits = {s.split for s in variants}
        assert len(variants) >= 5, family
        assert splits == {"dev", "untuned", "fresh"}, (family, splits)
        assert 3 <= sum(s.split == "fresh" for s in variants) <= 5, family


def test_fresh_rows_close_each_table():
    """Fresh rows sit under the table's ``# --- fresh ---`` comment, after every other row."""
    for path in TABLES:
        table = load_table(path)
        splits = [r.split for r in rows(path, table)]
        first = splits.index("fresh")
        assert set(splits[first:]) == {"fresh"}, path.stem
        assert "# --- fresh ---" in path.read_text(encoding="utf-8"), path.stem


def test_total_sample_count_stays_reasonable():
    assert 150 <= len(load_families()) <= 640


def test_variants_join_the_library_with_family_ids_and_splits():
    library = load_library()
    for s in load_families():
        assert s.id == f"{s.family_id}--{s.variant}"
        assert library[s.id].split == s.split
    assert all(s.split is None and s.family_id is None
               for s in library.values() if "--" not in s.id)
    group = select("poll-volatile")
    assert {s.family_id for s in group} == {"poll-volatile"} and len(group) >= 5


# The parameter(s) that make a variant's surface form, per generator kind.
SURFACE = {
    "destructive": ("command",), "destructive_mention": ("command",),
    "path_escape": ("run", "read", "setup"), "loop_calls": ("calls",), "poll": ("status",),
    "identifier": ("handle",), "provider_fault": ("dialect", "faults"),
    "inject_confusables": ("script",), "inject_ignorable": ("code_points",),
    "inject_front_matter": ("front_matter",), "inject_exfil": ("command",),
    "inject_split": ("parts",), "context_benign": ("text",), "secret": ("files",),
}


@pytest.mark.parametrize("path", TABLES, ids=[p.stem for p in TABLES])
@pytest.mark.parametrize(("held_out", "other"), [("untuned", "dev"), ("fresh", "dev"),
                                                 ("fresh", "untuned")])
def test_held_out_variants_use_other_parameters(path, held_out, other):
    table = load_table(path)
    keys = SURFACE[table.kind]
    surface = defaultdict(set)
    for row in rows(path, table):
        value = json.dumps({k: getattr(row, k, None) for k in keys}, sort_keys=True, default=str)
        surface[row.split].add(value)
    assert surface[held_out], (path.stem, held_out)
    assert not surface[held_out] & surface[other], path.stem


def test_ignorable_splits_share_no_code_point():
    path = FAMILIES_DIR / "inject-ignorables.yaml"
    table = load_table(path)
    points = defaultdict(set)
    for row in rows(path, table):
        points[row.split] |= set(row.code_points)
    assert not points["dev"] & points["untuned"]
    assert not points["fresh"] & (points["dev"] | points["untuned"])


# Default_Ignorable_Code_Point ranges (Unicode 15.1 DerivedCoreProperties.txt), by class.
DEFAULT_IGNORABLE = {
    "soft hyphen": [(0x00AD, 0x00AD)], "combining grapheme joiner": [(0x034F, 0x034F)],
    "arabic letter mark": [(0x061C, 0x061C)], "hangul fillers": [(0x115F, 0x1160), (0x3164, 0x3164), (0xFFA0, 0xFFA0)],
    "khmer inherent vowels": [(0x17B4, 0x17B5)], "mongolian variation": [(0x180B, 0x180F)],
    "zero width and marks": [(0x200B, 0x200F)], "bidi embeddings": [(0x202A, 0x202E)],
    "word joiner and invisible operators": [(0x2060, 0x2064)], "reserved": [(0x2065, 0x2065), (0xFFF0, 0xFFF8)],
    "bidi isolates and deprecated format": [(0x2066, 0x206F)], "variation selectors": [(0xFE00, 0xFE0F)],
    "byte order mark": [(0xFEFF, 0xFEFF)], "shorthand format": [(0x1BCA0, 0x1BCA3)],
    "musical format": [(0x1D173, 0x1D17A)], "tags and supplement": [(0xE0000, 0xE0FFF)],
}


def _class_of(cp: int) -> str | None:
    return next((name for name, ranges in DEFAULT_IGNORABLE.items()
                 if any(lo <= cp <= hi for lo, hi in ranges)), None)


def test_ignorable_family_covers_every_default_ignorable_class():
    variants = [s for s in load_families() if s.family_id == "inject-ignorables"]
    used = set()
    for s in variants:
        text = "".join(s.files.values())
        found = {ord(ch) for ch in text if _class_of(ord(ch))}
        assert found, s.id
        used |= {_class_of(cp) for cp in found}
    missing = set(DEFAULT_IGNORABLE) - used
    assert not missing, missing


def test_confusable_variants_use_letters_of_the_named_script():
    path = FAMILIES_DIR / "inject-confusables.yaml"
    table = load_table(path)
    generated = {s.variant: s for s in load_families() if s.family_id == table.id}
    for row in rows(path, table):
        text = "".join(generated[row.id].files.values())
        names = [unicodedata.name(ch, "") for ch in text if ord(ch) > 0x7F]
        assert sum(n.startswith(row.script + " ") for n in names) >= 3, row.id
        assert row.phrase not in text  # the plain phrase itself is never there


def test_poisoned_variants_carry_one_canary_command_and_benign_ones_their_house_rule():
    for s in load_families():
        if "security.context_injection_blocked" in s.probes:
            assert ".looplab-canary" in "".join(s.files.values()), s.id
        if "security.context_benign_loaded" in s.probes:
            assert s.markers and s.markers[0] in "".join(s.files.values()), s.id


def test_false_positive_markers_never_appear_in_the_command():
    for s in load_families():
        if s.family_id == "destructive-mentions":
            command = s.actor.params["steps"][0]["run"]
            assert s.markers[0] not in command
            where = "".join(s.files) + "".join(s.files.values()) + "".join(s.setup)
            assert s.markers[0] in where, s.id


def test_secrets_differ_per_variant_and_are_checked_for():
    seen = set()
    for s in load_families():
        if s.family_id != "secrets-by-shape":
            continue
        [secret] = s.probes["security.secrets_redacted"].params["secrets"]
        assert secret in "".join(s.files.values()) and secret not in seen, s.id
        seen.add(secret)


def _write(tmp_path: Path, data: dict, name: str = "fam-x") -> Path:
    path = tmp_path / f"{name}.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    return path


def test_a_bad_row_is_refused_naming_file_variant_and_field(tmp_path):
    path = _write(tmp_path, {"id": "fam-x", "kind": "destructive", "title": "t",
                             "variants": [{"id": "ok", "split": "dev", "command": "true"},
                                          {"id": "bad", "split": "later", "command": "true"}]})
    with pytest.raises(FamilyError, match=r"(?s)fam-x.yaml: variants\[1\] \(bad\).*field split"):
        build_family(path)


def test_unknown_kind_and_duplicate_ids_are_refused(tmp_path):
    with pytest.raises(FamilyError, match="field kind: unknown generator 'nope'"):
        build_family(_write(tmp_path, {"id": "fam-x", "kind": "nope", "title": "t", "variants": []}))
    dup = {"id": "fam-x", "kind": "destructive", "title": "t",
           "variants": [{"id": "a", "split": "dev", "command": "true"}] * 2}
    with pytest.raises(FamilyError, match="duplicate ids"):
        build_family(_write(tmp_path, dup))
    with pytest.raises(FamilyError, match="must match the file name"):
        build_family(_write(tmp_path, {**dup, "id": "other"}))


def test_a_confusable_script_without_look_alikes_is_refused(tmp_path):
    path = _write(tmp_path, {"id": "fam-x", "kind": "inject_confusables", "title": "t",
                             "variants": [{"id": "a", "split": "dev", "script": "BAMUM"}]})
    with pytest.raises(ValueError, match="look-alikes for only 0 letters"):
        build_family(path)
