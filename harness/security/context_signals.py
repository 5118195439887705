"""Finding and weighing injection signals in context-file text (context scanner).

An instruction file legitimately addresses agents, asks them to run commands, grants them
permissions and even quotes attacks in its security policy. So matches are weighed, not just
counted:

- a match that is quoted, in a code span, right after a negation ("never ...") or in a sentence
  that describes or rejects it ("if a page says ...", "e.g.", "such as") does not count;
- strong phrases and exfiltration shapes block on their own; weak signals block only when the
  weights of different kinds add up to 1 within one paragraph or hidden channel;
- a secret sent to this machine, or to the service it is named after (``$GITHUB_TOKEN`` to
  ``api.github.com``), is routine, not exfiltration.

Each pattern is searched once over the whole text (C speed); only where it hits is the sentence
or line looked at in Python, which keeps a 20 KB file in the low milliseconds.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import cache
from itertools import accumulate

from harness.security.context_sentences import Sentence
from harness.security.patterns import Pattern, load_patterns

PATTERN_FILE = "context_scan_patterns.yaml"
THRESHOLD = 1.0
"""A group (paragraph or hidden channel) blocks when its signal weights add up to this."""

_QUOTE_PAIRS = (("\u201c", "\u201d"), ("\u00ab", "\u00bb"), ("\u300c", "\u300d"), ("\u2018", "\u2019"))
_SINGLE_QUOTED = re.compile(r"(?:^|[\s(:,])'[^']*$")
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
    paragraph: int = 0


def patterns(section: str) -> tuple[Pattern, ...]:
    return load_patterns(PATTERN_FILE, section, "description")


@cache
def _cue(pid: str) -> re.Pattern[str]:
    return next(p.regex for p in patterns("describing") if p.id == pid)


def discounted(sentence: str, start: int, context: str = "", quotes: bool = True) -> bool:
    """The match at ``start`` quotes, negates or describes rather than instructs."""
    before = sentence[:start]
    if quotes and _quoted(before):
        return True
    return bool(_cue("negation").search(before[-80:]) or _cue("describes").search(context or sentence))


def _quoted(before: str) -> bool:
    if before.count('"') % 2 or before.count("`") % 2 or _SINGLE_QUOTED.search(before):
        return True
    return any(before.rfind(o) > before.rfind(c) for o, c in _QUOTE_PAIRS)


def phrase_findings(sentences: list[Sentence], section: str, commands: bool = False) -> list[Finding]:
    """Matches of ``section``'s patterns that are not discounted, one per pattern and sentence.

    ``commands``: the patterns match shell commands, which live in code spans and quotes, so
    only negation and describing context discount them."""
    if not sentences:
        return []
    joined = "\n".join(s.text for s in sentences)
    starts = list(accumulate((len(s.text) + 1 for s in sentences[:-1]), initial=0))
    out = []
    for p in patterns(section):
        pos = 0
        while m := p.regex.search(joined, pos):
            i = bisect_right(starts, m.start()) - 1
            s = sentences[i]
            # Judge the sentence on its own: the joined hit may run on into the next sentence.
            if any(not discounted(s.text, sm.start(), s.context, quotes=not commands)
                   for sm in p.regex.finditer(s.text)):
                out.append(Finding(p.id, p.text, p.weight, s.line, s.paragraph))
            if i + 1 == len(sentences):
                break
            pos = starts[i + 1]
    return out


def score(findings: list[Finding]) -> float:
    """The group's weight: each kind counts once, with its heaviest match."""
    best: dict[str, float] = {}
    for f in findings:
        best[f.kind] = max(best.get(f.kind, 0.0), f.weight)
    return sum(best.values())


def logical_lines(text: str) -> list[tuple[int, str]]:
    """Lines with shell continuations (trailing backslash) joined, numbered by their first line."""
    out, pending, first = [], "", 0
    for n, line in enumerate(text.split("\n"), 1):
        if not pending:
            first = n
        if line.rstrip().endswith("\\"):
            pending += line.rstrip()[:-1] + " "
            continue
        out.append((first, pending + line))
        pending = ""
    if pending:
        out.append((first, pending))
    return out


def exfil_findings(text: str) -> list[Finding]:
    """Exfiltration shapes per logical line; routine local or same-service calls are exempt."""
    out: list[Finding] = []
    lines: list[tuple[int, str]] | None = None
    for section in ("exfiltration", "exfiltration_remote"):
        for p in patterns(section):
            if not p.regex.search(text):
                continue  # the common case: one C-speed pass, no per-line work
            lines = lines if lines is not None else logical_lines(text)
            for n, line in lines:
                m = p.regex.search(line)
                if not m or _cue("negation").search(line[: m.start()][-80:]):
                    continue
                if section == "exfiltration_remote" and _routine_destination(line):
                    continue
                out.append(Finding(p.id, p.text, 1.0, n))
                break
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
    """Some line of ``text`` is a shell command (decoded blobs)."""
    return any(p.regex.search(line) for p in patterns("shell") for line in text.lower().splitlines())
