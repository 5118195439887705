"""Identifier kinds after compaction (IPv6, JWT, base64, URLs with ports and paths, Windows
paths, any other opaque token) and cut-off fragments, on tuned and held-out cases
(``identifier_cases/``)."""

from __future__ import annotations

import random
from itertools import pairwise
from pathlib import Path
from typing import Any

import pytest
import yaml

from harness.compaction.identifier_scan import PATTERNS, scan_pieces
from harness.compaction.identifiers import extract_identifiers, verify_summary
from harness.security.regex_needles import may_match
from harness.textcut import truncate

CASES = Path(__file__).parent / "identifier_cases"


def load(name: str) -> list[dict[str, Any]]:
    return yaml.safe_load((CASES / name).read_text())


def check(case: dict[str, Any]) -> None:
    found = [t for _, t in extract_identifiers(case["text"])]
    for p in case.get("present", []):
        assert p in found, f"{case['id']}: {p!r} not in {found}"
    for a in case.get("absent", []):
        assert a not in found, f"{case['id']}: fragment {a!r} kept"


@pytest.mark.parametrize("case", load("tuned.yaml"), ids=lambda c: c["id"])
def test_tuned_cases(case: dict[str, Any]) -> None:
    check(case)


@pytest.mark.parametrize("case", load("untuned.yaml"), ids=lambda c: c["id"])
def test_untuned_cases(case: dict[str, Any]) -> None:
    check(case)


@pytest.mark.parametrize("case", load("opaque.yaml"), ids=lambda c: c["id"])
def test_opaque_token_cases(case: dict[str, Any]) -> None:
    check(case)


# Written before the `number` kind (before: 4/12, every present id missed, the absents held).
@pytest.mark.parametrize("case", load("numeric.yaml"), ids=lambda c: c["id"])
def test_long_numeric_identifier_cases(case: dict[str, Any]) -> None:
    check(case)


# Written after the round-4 rows were read (next members of the numeric and opaque classes).
@pytest.mark.parametrize("case", load("next_members.yaml"), ids=lambda c: c["id"])
def test_next_member_cases(case: dict[str, Any]) -> None:
    check(case)


# Written in round 6 before the `handle` kind (before: 4/11; composite handles were missed or
# cut into their numbers).
@pytest.mark.parametrize("case", load("handles.yaml"), ids=lambda c: c["id"])
def test_composite_handle_cases(case: dict[str, Any]) -> None:
    check(case)


def test_a_weak_summary_of_a_composite_handle_is_restored_whole() -> None:
    src = "paused the replay; stream cursor is payments-ap:12@90871234 (resume there)\nok"
    result = verify_summary("Replay paused on partition 12 of payments-ap.", [src])
    assert "payments-ap:12@90871234" in result.missing_identifiers
    assert "90871234" not in result.missing_identifiers  # not a fragment of it


def test_a_weak_summary_of_a_snowflake_id_is_repaired() -> None:
    src = "import started; message id: 1187654321098765432 (needed to finish it)\nstep 2 ok"
    # A paraphrase that rounded the id (as a float would) does not carry it.
    v = verify_summary("Import started (message id 1187654321098765400).", [src])
    assert v.missing_identifiers == ["1187654321098765432"] and "1187654321098765432" in v.block
    kept = verify_summary("Import started, message id 1187654321098765432.", [src])
    assert kept.missing_identifiers == []


def test_a_weak_summary_of_an_opaque_handle_is_repaired() -> None:
    src = "build reserved; handle: bld-9x2Lq7Wm-r4 (needed to release it)\npage 3 row 7: ok"
    v = verify_summary("A build was reserved (handle bld-9x…).", [src])
    assert v.missing_identifiers == ["bld-9x2Lq7Wm-r4"] and "bld-9x2Lq7Wm-r4" in v.block


@pytest.mark.parametrize("address", [
    "2001:db8::1", "fe80::a00:27ff:fe4e:66a1", "2001:0db8:0000:0000:0000:ff00:0042:8329",
    "::ffff:203.0.113.9", "64:ff9b::192.0.2.33", "fd12:3456:789a:1::1",
])
def test_ipv6_forms_are_kept_whole(address: str) -> None:
    assert ("ipv6", address) in extract_identifiers(f"peer {address} answered")


def test_summary_loses_an_ipv6_address_and_verification_restores_it() -> None:
    src = "the canary listens on 2001:db8:4::17 port 9000"
    v = verify_summary("The canary listens on an IPv6 address.", [src])
    assert "2001:db8:4::17" in v.missing_identifiers and "2001:db8:4::17" in v.block


def test_an_identifier_cut_by_truncation_is_not_required() -> None:
    sha = "0123456789abcdef0123456789abcdef01234567"
    text = "x" * 5000 + " " + sha + " " + "y" * 2000
    cut = next(c for n in range(5000, 5200) if sha[:20] in (c := truncate(text, n, keep_tail=False))
               and sha not in c)  # a size that cuts the SHA mid-way
    assert sha not in cut and sha[:10] in cut
    v = verify_summary("nothing", [cut])
    assert not any(t in sha for t in v.missing_identifiers)


# --- each compacted message scanned alone gives the scan of their joined text ---------------------
CASE_TEXTS = [c["text"] for f in sorted(CASES.glob("*.yaml")) for c in load(f.name)]


def test_the_scan_of_messages_one_by_one_is_the_scan_of_their_joined_text() -> None:
    rng = random.Random(4)
    checked = 0
    for text in CASE_TEXTS + ["\n".join(rng.sample(CASE_TEXTS, 6)) for _ in range(40)]:
        lines = text.split("\n")
        for _ in range(3):
            cuts = sorted(rng.sample(range(1, len(lines)), min(len(lines) - 1, rng.randint(1, 5))))
            pieces = ["\n".join(lines[a:b]) for a, b in pairwise([0, *cuts, len(lines)])]
            assert scan_pieces(pieces) == scan_pieces([text]), text
            checked += len(pieces) > 1
    assert checked > 100


def test_a_token_found_in_one_message_is_a_repeat_in_the_next() -> None:
    # The SHA found in the first message is blanked as a repeat where only the later `token`
    # pattern matches it (before `-`): the joined scan's texts differ from the messages' own,
    # so the joined text is scanned.
    pieces = ["commit deadbeef1234 ok", "value deadbeef1234- end"]
    assert scan_pieces(pieces) == scan_pieces(["\n".join(pieces)]) == [("sha", "deadbeef1234", 29)]
    # A number the `sha` pattern meets again (after a comma) counts as its most recent match.
    pieces = ["id 1234567890123 x and more", "a,1234567890123 b"]
    assert scan_pieces(pieces) == [("number", "1234567890123", 30)]


def test_every_identifier_match_in_the_cases_holds_a_needle() -> None:
    """The scan skips a pattern for a message that holds none of its needles
    (``harness.security.regex_needles``, derived from the pattern): every match in the cases
    holds one, so the skip loses nothing there."""
    checked = 0
    for text in CASE_TEXTS:
        for kind, pattern in PATTERNS:
            for m in pattern.finditer(text):
                assert may_match(pattern, m.group(0), m.group(0).lower()), (kind, m.group(0))
                checked += 1
    assert checked > 50  # the cases exercise the patterns, so the check means something
