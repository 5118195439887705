"""Variant families: scenarios generated from parameter tables, split into dev, untuned and fresh.

Each ``scenarios/families/<family-id>.yaml`` names a generator ``kind`` (one small module per
kind below) and lists variants with stable ids. ``load_families()`` builds one ``Scenario`` per
row, id ``<family-id>--<variant-id>``, with ``family_id`` and ``split`` set; the scenario loader
adds them to the library, so every command that runs the library runs them too.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from scenarios.families import (  # noqa: F401  (each module registers its generators)
    destructive,
    identifiers,
    injection,
    loops,
    paths,
    polls,
    provider,
    secret_leaks,
)
from scenarios.families.base import GENERATORS, FamilyTable, Row
from scenarios.schema import Scenario, describe_validation

FAMILIES_DIR = Path(__file__).parent


class FamilyError(ValueError):
    pass


def _errors(where: str, e: ValidationError) -> str:
    return describe_validation(f"{where}: invalid", e)


def load_table(path: Path) -> FamilyTable:
    try:
        raw = yaml.safe_load(path.read_text(encoding="utf-8"))
        table = FamilyTable.model_validate(raw)
    except yaml.YAMLError as e:
        raise FamilyError(f"{path}: not valid YAML: {e}") from e
    except ValidationError as e:
        raise FamilyError(_errors(str(path), e)) from e
    if table.id != path.stem:
        raise FamilyError(f"{path}: field id: {table.id!r} must match the file name {path.stem!r}")
    if table.kind not in GENERATORS:
        raise FamilyError(f"{path}: field kind: unknown generator {table.kind!r}; "
                          f"known: {', '.join(sorted(GENERATORS))}")
    return table


def rows(path: Path, table: FamilyTable) -> list[Row]:
    model = GENERATORS[table.kind].row_model
    out: list[Row] = []
    for i, raw in enumerate(table.variants):
        try:
            out.append(model.model_validate({**table.defaults, **raw}))
        except ValidationError as e:
            raise FamilyError(_errors(f"{path}: variants[{i}] ({raw.get('id', '?')})", e)) from e
    ids = [r.id for r in out]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    if dupes:
        raise FamilyError(f"{path}: field variants: duplicate ids {dupes}")
    return out


def build_family(path: Path) -> list[Scenario]:
    table = load_table(path)
    build = GENERATORS[table.kind].build
    return [build(table, row) for row in rows(path, table)]


def load_families(directory: Path = FAMILIES_DIR) -> list[Scenario]:
    """Every variant of every family file in ``directory``."""
    return [s for p in sorted(directory.glob("*.yaml")) for s in build_family(p)]
