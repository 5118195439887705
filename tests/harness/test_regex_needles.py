"""The needles of a regex (``regex_needles``): strings one of which every match holds, so that a
text without any is never scanned. A needle that is not necessary would drop a redaction: each
derivation is checked against ``re`` itself on every secret case text."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

import pytest
import yaml

from harness.security.patterns import load_patterns
from harness.security.redaction_passes import _STRONG
from harness.security.redaction_shapes import PATTERN_FILE
from harness.security.regex_needles import may_match, needles, proves

CASES = Path(__file__).resolve().parents[2] / "harness" / "rules" / "cases" / "secrets"
SECTIONS = {"secrets": re.IGNORECASE, "credential-calls": 0, "structured-documents": 0, "secret-shapes": 0,
            "syntax-positions": 0, "shapes": 0}


def _strings(node: object) -> list[str]:
    if isinstance(node, str):
        return [node]
    if isinstance(node, dict):
        return [s for v in node.values() for s in _strings(v)]
    if isinstance(node, list):
        return [s for v in node for s in _strings(v)]
    return []


@cache
def _case_texts() -> list[str]:
    texts = {s for p in sorted(CASES.glob("*.yaml")) for s in _strings(yaml.safe_load(p.read_text()))}
    # the same texts in other cases: a needle of a case-insensitive regex must be found in any
    return sorted({v for t in texts for v in (t, t.upper(), t.swapcase())})


def _regexes() -> list[re.Pattern[str]]:
    found = [p.regex for section, flags in SECTIONS.items() for p in load_patterns(PATTERN_FILE, section, "", flags)]
    return [*found, _STRONG]


@pytest.mark.parametrize("pattern, flags, expected", [
    (r"\bxox[abposr]-[A-Za-z0-9-]{10,}", re.IGNORECASE, {"xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-"}),
    (r"\b(Bearer\s+)[\w.]{20,}", re.IGNORECASE, {"bearer"}),
    (r"\b(?-i:(?:AKIA|ASIA)[A-Z0-9]{16})\b", re.IGNORECASE, {"akia", "asia"}),
    (r"(?i)(?P<q>['\"])x+(?P=q)(?=[ \t]+-AsPlainText\b)", 0, {"-asplaintext"}),  # a lookahead's text
    (r"pass(?:word|wd)?(?=[ \t])", 0, {"pass"}),  # a string holding another is left out
    (r"(?-i:é)", re.IGNORECASE, set()),  # no ASCII text can match
    (r"a|.*", 0, None),
    (r"\d+x?", 0, None),
])
def test_needles_of_a_regex(pattern: str, flags: int, expected: set[str] | None) -> None:
    found = needles(re.compile(pattern, flags))
    assert (None if found is None else set(found)) == expected


def test_texts_with_other_characters_are_always_scanned() -> None:
    rx = re.compile(r"(?i)sk-\w+")
    assert not may_match(rx, "no key here", "no key here")
    assert may_match(rx, "\u017fk-abc", "\u017fk-abc")  # the long s matches `s` when case is ignored
    assert rx.search("\u017fk-abc")


@pytest.mark.parametrize("regex", _regexes(), ids=lambda rx: rx.pattern[:40])
def test_every_match_in_a_case_text_holds_a_needle(regex: re.Pattern[str]) -> None:
    texts = [t for t in _case_texts() if t.isascii()]
    assert texts
    matched = [t for t in texts if regex.search(t)]
    assert all(may_match(regex, t, t.lower()) for t in matched)
    missed = [t for t in texts if not may_match(regex, t, t.lower())]
    assert not any(regex.search(t) for t in missed)


@pytest.mark.parametrize(("pattern", "flags", "exact"), [
    (r"abc[0-9]", 0, True),
    (r"abc", re.IGNORECASE, False),         # the long s and the Kelvin sign fold to ASCII letters
    (r"(?i:abc)x", 0, False),
    (r"a\u2026b", 0, False),                # a literal outside ASCII
    (r"(a)(?(1)\u00e9|a)", 0, False),        # in a conditional group
    (r"(?>ab|c)x(?=d)", 0, True),
])
def test_texts_with_other_characters_are_judged_by_needles_where_case_is_exact(
        pattern: str, flags: int, exact: bool) -> None:
    rx = re.compile(pattern, flags)
    text = "\u00e9t\u00e9 zzz"  # not ASCII, holds no needle of any pattern above
    assert may_match(rx, text, text.lower()) is not exact


# Hand-written `triggers:` of the rule files: a text holding none of a rule's triggers is not
# searched by it, so a trigger that some match lacks loses that match without a sound. Each is
# proven from the regex's parse, for the text the code seeks triggers in.
RULES = Path(__file__).resolve().parents[2] / "harness" / "rules"
_CONTEXT = ("injection", "injection_variants", "signals", "signals_variants", "document", "command_signals",
            "hidden_channel", "hidden_channel_variants", "exfiltration", "exfiltration_remote", "network_send")
TRIGGER_SECTIONS: dict[tuple[str, str], tuple[int, bool]] = {
    # (file, section): (regex flags as loaded, whether triggers are sought with whitespace collapsed)
    **{("context_scan_patterns.yaml", s): (re.IGNORECASE, True) for s in _CONTEXT},  # context_signals._spaced
    **{("redaction_patterns.yaml", s): (0, False)
       for s in ("credential-calls", "structured-documents", "secret-shapes", "syntax-positions")},
    ("volatile.yaml", "volatile"): (0, False),
    ("volatile.yaml", "non_clock"): (0, False),
}


def _triggered_rules() -> list[tuple[str, str, str, str, tuple[str, ...]]]:
    found = []
    for path in sorted(RULES.glob("*.yaml")):
        data = yaml.safe_load(path.read_text())
        for section, entries in data.items() if isinstance(data, dict) else ():
            for e in entries if isinstance(entries, list) else ():
                if isinstance(e, dict) and e.get("triggers"):
                    found.append((path.name, section, str(e["id"]), str(e["pattern"]), tuple(e["triggers"])))
    return found


def test_every_rule_with_triggers_is_in_a_proven_section() -> None:
    rules = _triggered_rules()
    assert len(rules) > 90  # (the rule files hold them: the proof below means something)
    assert {(f, s) for f, s, *_ in rules} <= set(TRIGGER_SECTIONS)


@pytest.mark.parametrize(("file", "section", "rule", "pattern", "triggers"), _triggered_rules(),
                         ids=lambda v: v if isinstance(v, str) and len(v) < 40 else "")
def test_a_rules_triggers_are_in_every_match(file: str, section: str, rule: str, pattern: str,
                                             triggers: tuple[str, ...]) -> None:
    flags, spaced = TRIGGER_SECTIONS[(file, section)]
    assert proves(re.compile(pattern, flags), triggers, single_spaces=spaced), (
        f"{file} {section} {rule}: a match without any of {triggers} is possible")


@pytest.mark.parametrize(("pattern", "triggers", "spaced", "proven"), [
    (r"\bvalue\s*=\s*\"", ("value",), False, True),
    (r"\bvalue\s*=\s*\"", ('alue="',), False, False),     # `value = "x"` holds no `alue="`
    (r"your\s+(?:real|true)\s+task", ("your real", "your true"), False, False),
    (r"your\s+(?:real|true)\s+task", ("your real", "your true"), True, True),  # single spaces
    (r"(?:don't|do\s+not)\s+tell|never\s+tell", ("tell",), False, True),     # every alternative
    (r"(?:don't|do\s+not)\s+tell|never\s+say", ("tell",), False, False),
    (r"^[ \t]*\w+[ \t]{2,}\S+$", ("  ", " \t", "\t ", "\t\t"), False, True),  # a repeat's first copies
])
def test_what_a_trigger_proof_shows(pattern: str, triggers: tuple[str, ...], spaced: bool, proven: bool) -> None:
    assert proves(re.compile(pattern, re.IGNORECASE), triggers, single_spaces=spaced) is proven
