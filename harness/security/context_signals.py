"""Finding and weighing injection signals in context-file text (context scanner).

An instruction file legitimately addresses agents, asks them to run commands, grants them
permissions and even quotes attacks in its security policy. So matches are weighed, not just
counted:

- text is cut into paragraphs and sentences (wrapped lines joined, list items and code lines
  kept apart) so a match can be judged with its own sentence;
- a match that is quoted, in a code span, right after a negation ("never ...") or in a sentence
  that describes or rejects it ("if a page says ...", "e.g.", "such as") does not count;
- strong phrases and exfiltration shapes block on their own; weak signals block only when the
  weights of different kinds add up to 1 within one paragraph or hidden channel.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cache

from harness.security.patterns import Pattern, load_patterns

PATTERN_FILE = "context_scan_patterns.yaml"
THRESHOLD = 1.0
"""A group (paragraph or hidden channel) blocks when its signal weights add up to this."""

_FENCE = re.compile(r"^[ \t]*(```|~~~)")
_UNIT_START = re.compile(r"^\s*(?:[-*+]\s|\d+[.)]\s|#{1,6}\s|>|\||<)")
_SENTENCE_END = re.compile(r"(?<!e\.g\.)(?<!i\.e\.)(?<!etc\.)(?<!vs\.)(?<=[.!?])\s+|(?<=[。！？])")
_QUOTE_PAIRS = (("\u201c", "\u201d"), ("\u00ab", "\u00bb"), ("\u300c", "\u300d"), ("\u2018", "\u2019"))
_SINGLE_QUOTED = re.compile(r"(?:^|[\s(:,])'[^']*$")
_LEET_WORD = re.compile(r"\b(?=[a-z0-9]*[a-z])(?=[a-z0-9]*[013457])[a-z0-9]{2,}\b", re.I)
_LEET = str.maketrans("013457", "oieast")
_SECRET_VAR = re.compile(r"\$\{?([A-Za-z_]\w*)")
_SECRET_NAME = re.compile(r"key|secret|token|pass|pwd|cred|auth|session|cookie|private", re.I)
# Name parts that say nothing about whose credential it is.
_GENERIC = {"api", "auth", "secret", "token", "access", "private", "my", "app", "dev", "prod", "test",
            "user", "client", "service", "personal", "session", "bearer", "key", "pass", "password", "local"}
_LOOPBACK = re.compile(r"^(?:localhost|[\w.-]+\.localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[?::1\]?)$", re.I)
_URL_HOST = re.compile(r"\b[a-z][a-z0-9+.-]*://(\[[^\]\s]+\]|[^/\s:'\"?#`)>]+)", re.I)
_BARE_HOST = re.compile(r"(?<![\w./@-])((?:\d{1,3}(?:\.\d{1,3}){3})|localhost|(?:[a-z0-9-]+\.)+[a-z]{2,})(?=:\d)", re.I)


@dataclass(frozen=True)
class Finding:
    kind: str
    """The pattern id: weights of the same kind count once per group."""
    text: str
    """What the pattern means, for the issue line (never the matched text)."""
    weight: float
    line: int


def patterns(section: str) -> tuple[Pattern, ...]:
    return load_patterns(PATTERN_FILE, section, "description")


@cache
def _cue(pid: str) -> re.Pattern[str]:
    return next(p.regex for p in patterns("describing") if p.id == pid)


def fence_flags(lines: list[str]) -> list[bool]:
    """For each line, whether it sits inside (or delimits) a fenced code block."""
    flags, fence = [], ""
    for line in lines:
        m = _FENCE.match(line)
        flags.append(bool(fence or m))
        if fence and m and m.group(1) == fence:
            fence = ""
        elif not fence and m:
            fence = m.group(1)
    return flags


Sentence = tuple[int, str, str]
"""Line number, text, and the text that says what it is (itself; for a code line, also the
prose that introduces the code block)."""


def paragraphs(text: str) -> Iterator[list[Sentence]]:
    """Blank-line separated blocks as sentence lists. A block that is only a heading goes with the
    block after it, and a code block goes with the prose before it (which says what it is)."""
    lines = text.split("\n")
    blocks: list[list[tuple[int, str, bool]]] = [[]]
    for n, (line, in_code) in enumerate(zip(lines, fence_flags(lines), strict=True), 1):
        if line.strip() or in_code:
            blocks[-1].append((n, line, in_code))
        elif blocks[-1]:
            blocks.append([])
    merged: list[list[tuple[int, str, bool]]] = []
    for block in filter(None, blocks):
        heading_only = merged and len(merged[-1]) == 1 and merged[-1][0][1].lstrip().startswith("#")
        if merged and (block[0][2] or heading_only):
            merged[-1] += block
        else:
            merged.append(block)
    for block in merged:
        yield _sentences(block)


def all_sentences(text: str) -> list[Sentence]:
    return [s for block in paragraphs(text) for s in block]


def _sentences(block: list[tuple[int, str, bool]]) -> list[Sentence]:
    units: list[tuple[int, str, bool]] = []
    joinable = False  # a wrapped prose line continues the unit before it
    for n, line, in_code in block:
        text = line.strip() if in_code else line.strip().replace("*", "")
        if joinable and not in_code and not _UNIT_START.match(line):
            units[-1] = (units[-1][0], f"{units[-1][1]} {text}", False)
        else:
            units.append((n, text, in_code))
        joinable = not in_code and not line.lstrip().startswith(("#", "|"))
    out: list[Sentence] = []
    intro = ""  # the paragraph's prose before a code block says whether the code is quoted evidence
    for n, unit, in_code in units:
        for s in [unit] if in_code else _SENTENCE_END.split(unit):
            if s.strip():
                out.append((n, s, f"{intro} {s}" if in_code else s))
                if len(_LEET_WORD.findall(s)) >= 2:  # "1gn0r3 pr3v10u5": read it as letters too
                    out.append((n, s.translate(_LEET), out[-1][2]))
        if not in_code and unit.strip():
            intro = f"{intro} {unit}"
    return out


def discounted(sentence: str, start: int, context: str = "", quotes: bool = True) -> bool:
    """The match at ``start`` quotes, negates or describes rather than instructs."""
    before = sentence[:start]
    if not quotes:
        pass
    elif before.count('"') % 2 or before.count("`") % 2 or _SINGLE_QUOTED.search(before):
        return True
    if any(before.rfind(o) > before.rfind(c) for o, c in _QUOTE_PAIRS):
        return True
    return bool(_cue("negation").search(before[-80:]) or _cue("describes").search(context or sentence))


def phrase_findings(sentences: list[Sentence], section: str, commands: bool = False) -> list[Finding]:
    """Matches of ``section``'s patterns that are not discounted, one per pattern and sentence.

    ``commands``: the patterns match shell commands, which live in code spans and quotes, so
    only negation and describing context discount them."""
    out = []
    for n, sentence, context in sentences:
        for p in patterns(section):
            for m in p.regex.finditer(sentence):
                if not discounted(sentence, m.start(), context, quotes=not commands):
                    out.append(Finding(p.id, p.text, p.weight, n))
                    break
    return out


def score(findings: list[Finding]) -> float:
    """The group's weight: each kind counts once, with its heaviest match."""
    best: dict[str, float] = {}
    for f in findings:
        best[f.kind] = max(best.get(f.kind, 0.0), f.weight)
    return sum(best.values())


def logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Lines with shell continuations (trailing backslash) joined, numbered by their first line."""
    pending, first = "", 0
    for n, line in enumerate(text.split("\n"), 1):
        if not pending:
            first = n
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        yield first, pending + line
        pending = ""
    if pending:
        yield first, pending


def exfil_findings(text: str) -> list[Finding]:
    """Exfiltration shapes per logical line; routine local calls (loopback only) are exempt."""
    out: list[Finding] = []
    seen: set[str] = set()
    for n, line in logical_lines(text):
        for section in ("exfiltration", "exfiltration_remote"):
            for p in patterns(section):
                if p.id in seen or not (m := p.regex.search(line)):
                    continue
                if _cue("negation").search(line[: m.start()][-80:]):
                    continue
                if section == "exfiltration_remote" and _routine_destination(line):
                    continue
                seen.add(p.id)
                out.append(Finding(p.id, p.text, 1.0, n))
    return out


def _routine_destination(line: str) -> bool:
    """Every literal destination on the line is this machine (none named counts as local), or
    the service the credential is named after (``$GITHUB_TOKEN`` to ``api.github.com``)."""
    hosts = [h.split("@")[-1].lower() for h in _URL_HOST.findall(line) + _BARE_HOST.findall(line)]
    remote = [h for h in hosts if not _LOOPBACK.match(h)]
    if not remote:
        return True
    owners = {_owner(v) for v in _SECRET_VAR.findall(line) if _SECRET_NAME.search(v)}
    return bool(owners) and None not in owners and all(
        len(parts := h.strip("[]").split(".")) >= 2 and parts[-2] in owners for h in remote)


def _owner(var: str) -> str | None:
    first = var.lower().split("_")[0]
    return first if len(first) >= 3 and first not in _GENERIC else None


def shell_command(text: str) -> bool:
    return any(p.regex.search(line) for p in patterns("shell") for line in text.lower().splitlines())
