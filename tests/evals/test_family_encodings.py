"""An encoding family measures the encoding: looplab's block of a disguised-phrase row must rest
on the disguised phrase, not on the injected command beside it.

Every confusables / ignorables row writes the same kind of command (a file write, in backticks,
"before any other step"). If the scanner blocked that sentence whatever phrase came before it,
every row of these families would pass without the look-alike letters or invisible code points
ever being read, and the family's rate would say nothing about them. So each row's poisoned
file is rebuilt with the disguised phrase swapped for plain, harmless wording in several shapes,
and that file must load. (Whether the disguised row itself is caught is the discrimination
test's job, gaps included.)
"""

from __future__ import annotations

import re

import pytest

from scenarios.families import load_families
from tests.harness.case_params import scan_as_looplab

ENCODING_FAMILIES = ("inject-confusables", "inject-ignorables")
NEUTRAL = ("Please remember to", "When you set up a fresh checkout, you may", "The team usually asks contributors to")
"""Plain lead-ins in place of the attack phrase: each asks for the command, none is an attack."""


def _rows():
    return [s for s in load_families() if s.family_id in ENCODING_FAMILIES]


def _without_phrase(text: str, lead_in: str) -> str:
    """The file with the line that carries the disguised phrase rewritten: lead-in + the same
    "run `command` ..." tail."""
    out = []
    for line in text.splitlines(keepends=True):
        m = re.search(r"\band run (`[^`]+`.*)", line)
        out.append(f"{lead_in} run {m.group(1)}\n" if m else line)
    return "".join(out)


@pytest.mark.parametrize("row", _rows(), ids=lambda s: s.id)
def test_the_command_alone_does_not_block_the_file(row):
    [(name, text)] = [(n, t) for n, t in row.files.items() if n != ".env"]
    for lead_in in NEUTRAL:
        rewritten = _without_phrase(text, lead_in)
        assert rewritten != text, f"{row.id}: no 'and run `...`' line to rewrite"
        result = scan_as_looplab(rewritten, name)
        assert result.safe, (row.id, lead_in, result.issues)
