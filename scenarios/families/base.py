"""What every family shares: the parameter-table format, the generator registry, and helpers.

A family is a YAML table (``scenarios/families/<family-id>.yaml``) naming a generator ``kind``
and listing variants, each with a stable ``id``, a ``split`` and the parameters its kind
takes. The generator (one small module per kind) turns one row into a ``Scenario``; the loader
gives it the id ``<family-id>--<variant-id>`` and the family metadata.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scenarios.schema import Scenario

ID_PATTERN = r"^[a-z0-9][a-z0-9-]*$"


class Row(BaseModel):
    """One variant of a family. Kinds subclass this with their own parameters."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=ID_PATTERN)
    """Stable variant id (kebab-case), unique within the family; never reused."""
    split: Literal["dev", "untuned", "fresh"]
    """``dev``: controls may be tuned on it. ``untuned``: made with other parameters (other
    spellings, encodings, shapes), only measured. ``fresh``: written after the last control
    change, each a new surface form of the family's failure, and never used to change a control;
    once a later round tunes a control on its misses, the round relabels those rows ``untuned``
    and writes a new fresh batch (see ``scenarios/README.md``)."""
    note: str = ""
    """What this variant exercises (shown in the scenario title)."""


class FamilyTable(BaseModel):
    """A family file: one generator kind and its parameter rows."""

    model_config = ConfigDict(extra="forbid")

    id: str = Field(pattern=ID_PATTERN)
    """Stable family id; must equal the file name. Scenario ids are ``<id>--<variant id>``."""
    kind: str
    """The generator (``scenarios.families.GENERATORS``) that builds each variant."""
    title: str
    """The failure the family probes, in one line."""
    defaults: dict[str, Any] = Field(default_factory=dict)
    """Parameters every row gets unless it sets its own."""
    variants: list[dict[str, Any]]
    """The rows (validated by the kind's row model)."""


@dataclass(frozen=True)
class Generator:
    kind: str
    row_model: type[Row]
    build: Callable[[FamilyTable, Any], Scenario]


GENERATORS: dict[str, Generator] = {}


def generator(kind: str, row_model: type[Row]) -> Callable[[Callable[[FamilyTable, Any], Scenario]], Callable[[FamilyTable, Any], Scenario]]:
    """Register ``build(table, row) -> Scenario`` for family files of ``kind``."""

    def register(fn: Callable[[FamilyTable, Any], Scenario]) -> Callable[[FamilyTable, Any], Scenario]:
        GENERATORS[kind] = Generator(kind, row_model, fn)
        return fn

    return register


def token(*parts: str, n: int = 12, alphabet: str = "0123456789abcdef") -> str:
    """A stable pseudo-random token derived from ``parts`` (canaries, secrets, markers): the
    same variant always gets the same value, different variants different ones."""
    digest = hashlib.sha256("/".join(parts).encode()).digest()
    out: list[Any] = []
    while len(out) < n:
        for b in digest:
            out.append(alphabet[b % len(alphabet)])
        digest = hashlib.sha256(digest).digest()
    return "".join(out[:n])


def scenario(table: FamilyTable, row: Row, **fields: Any) -> Scenario:
    """A ``Scenario`` for ``row`` with the family's id, split and title filled in; the loader
    sets the final id."""
    title = f"{table.title} [{row.split}: {row.note or row.id}]"
    return Scenario.model_validate({
        "id": f"{table.id}--{row.id}", "title": title, "family_id": table.id,
        "split": row.split, "variant": row.id, **fields,
    })


def counting_script(counter: str, output: str, failing: bool = False) -> str:
    """A workspace script that records each execution in ``counter`` (black-box evidence for
    ``counter_at_most``) and prints ``output`` (to stderr, exiting 1, when ``failing``)."""
    tail = " >&2\nexit 1\n" if failing else "\n"
    return ("#!/bin/bash\n"
            f"mkdir -p .looplab && echo run >> {counter}\n"
            f"printf '%s\\n' {_sq(output)}{tail}")


def _sq(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"
