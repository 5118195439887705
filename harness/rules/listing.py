"""Every rule of the harness, where it comes from and how many cases it has.

    .venv/bin/python -m harness.security rules [--section NAME]

One row per rule of each rule file (``RULE_FILES``): its set, id, source and the counts of its
``ruleid`` and ``ok`` cases (``cases/<set>/<id>.yaml``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import yaml

from harness.rules import CASES_DIR, RULES_DIR


@dataclass(frozen=True)
class RuleInfo:
    section: str
    """The rule set (the folder of its cases): ``shell_commands``, ``paths``, ``context`` ..."""
    id: str
    source: str
    file: str
    ruleid: int
    ok: int


RULE_FILES: list[tuple[str, str, tuple[str, ...]]] = [
    ("seed_commands", "destructive_commands.yaml", ("blocked",)),
    ("shell_commands", "destructive_commands.yaml", ("shell_rules",)),
    ("paths", "paths.yaml", ("rules",)),
    ("loops", "loops.yaml", ("rules",)),
    ("context", "context_scan_patterns.yaml", ("injection", "injection_variants", "signals", "signals_variants",
                                               "command_signals", "hidden_channel", "hidden_channel_variants",
                                               "document", "exfiltration", "exfiltration_remote", "network_send",
                                               "checks")),
    ("secrets", "redaction_patterns.yaml", ("secrets", "checks")),
]
"""``(set, file under harness/rules, sections of the file that hold its rules)``."""


def _entries(file: str, sections: tuple[str, ...]) -> list[dict[str, Any]]:
    data = yaml.safe_load((RULES_DIR / file).read_text(encoding="utf-8")) or {}
    out = []
    for section in sections:
        default = (data.get("sources") or {}).get(section, "")
        out += [{**e, "source": e.get("source", default)} for e in data.get(section) or [] if isinstance(e, dict)]
    return out


def _counts(section: str, rule_id: str) -> tuple[int, int]:
    path = CASES_DIR / section / f"{rule_id}.yaml"
    if not path.is_file():
        return 0, 0
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return len(data.get("ruleid") or {}), len(data.get("ok") or {})


def rules() -> list[RuleInfo]:
    """Every rule, in the order of its file (a rule id listed twice in one set is one rule)."""
    out: dict[tuple[str, str], RuleInfo] = {}
    for section, file, sections in RULE_FILES:
        for e in _entries(file, sections):
            key = (section, str(e["id"]))
            if key not in out:
                out[key] = RuleInfo(section, str(e["id"]), str(e.get("source", "")), file, *_counts(*key))
    # the shapes of the seeds' list the shell-aware guard also applies are rules of that set too
    for e in _entries("destructive_commands.yaml", ("blocked",)):
        if e.get("shell_aware"):
            key = ("shell_commands", str(e["id"]))
            out.setdefault(key, RuleInfo(*key, str(e.get("source", "")), "destructive_commands.yaml", *_counts(*key)))
    return list(out.values())


def table(section: str | None = None) -> str:
    """The rules as a Markdown table, with totals."""
    rows = [r for r in rules() if section is None or r.section == section]
    lines = ["| set | rule | source | ruleid | ok |", "|---|---|---|---|---|"]
    lines += [f"| {r.section} | {r.id} | {r.source} | {r.ruleid} | {r.ok} |" for r in rows]
    lines.append(f"{len(rows)} rules, {sum(r.ruleid for r in rows)} ruleid cases, {sum(r.ok for r in rows)} ok cases")
    return "\n".join(lines)
