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

Patterns carry trigger substrings; a regex runs only on the sentences or lines that contain one
(found by substring tests), which keeps a 20 KB file in the low milliseconds.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache, lru_cache
from itertools import islice

from harness.security.context_sentences import Sentence, open_quote
from harness.security.patterns import Pattern, load_patterns

PATTERN_FILE = "context_scan_patterns.yaml"
THRESHOLD = 1.0
"""A group (paragraph or hidden channel) blocks when its signal weights add up to this."""

_QUOTE_PAIRS = (("\u201c", "\u201d"), ("\u00ab", "\u00bb"), ("\u300c", "\u300d"), ("\u2018", "\u2019"))
_SINGLE_QUOTED = re.compile(r"(?:^|[\s(:,])'[^']*$")
_SECRET_VAR = re.compile(r"\$\{?([A-Za-z_]\w*)")
_SECRET_NAME = re.compile(r"key|secret|token|pass|pwd|cred|auth|session|cookie|private", re.I)
_LOOPBACK = re.compile(r"^(?:localhost|[\w.-]+\.localhost|127(?:\.\d{1,3}){3}|0\.0\.0\.0|\[?::1\]?)$", re.I)
_URL_HOST = re.compile(r"\b[a-z][a-z0-9+.-]*://(\[[^\]\s]+\]|[^/\s:'\"?#`)>]+)", re.I)
_BARE_HOST = re.compile(r"(?<![\w./@-])((?:\d{1,3}(?:\.\d{1,3}){3})|localhost|(?:[a-z0-9-]+\.)+[a-z]{2,})(?=:\d)", re.I)


@dataclass(frozen=True)
class ScanOptions:
    """The scanner's switches beyond the seed (``ContextScanConfig`` fields of the same names)."""

    unicode_data: bool = False
    any_front_matter: bool = False
    exfil_by_capability: bool = False
    example_context: bool = False
    across_files: bool = False
    phrase_variants: bool = False


@dataclass(frozen=True)
class Finding:
    kind: str
    """The pattern id: weights of the same kind count once per group."""
    text: str
    """What the pattern means, for the issue line (never the matched text)."""
    weight: float
    line: int
    paragraph: int = 0


def patterns(section: str | tuple[str, ...]) -> tuple[Pattern, ...]:
    """The patterns of one section, or of several in order."""
    if isinstance(section, tuple):
        return tuple(p for name in section for p in patterns(name))
    return load_patterns(PATTERN_FILE, section, "description")


def sections(name: str, variants: bool) -> str | tuple[str, ...]:
    """``name`` and, with ``context_scan.phrase_variants``, its ``<name>_variants`` section."""
    return (name, f"{name}_variants") if variants else name


@cache
def regex(pid: str, section: str = "vocabulary") -> re.Pattern[str]:
    """A building block of the pattern file by id: a word list of ``vocabulary``, a cue of ``describing``."""
    return next(p.regex for p in patterns(section) if p.id == pid)


def _cue(pid: str) -> re.Pattern[str]:
    return regex(pid, "describing")


_MAX_MATCHES = 20
"""Matches of one pattern judged per sentence; a sentence whose first 20 are all quoted or
described is taken as describing (bounds the work on pathological input)."""


def discounted(sentence: str, start: int, context: str = "", quotes: bool = True, defines: bool = False) -> bool:
    """The match at ``start`` quotes, negates or describes rather than instructs. ``defines``:
    a sentence that names what the phrase is ("X is a persona swap") describes it too."""
    before = sentence[:start]
    if quotes and _quoted(before, defines):
        return True
    if defines and _cue("defines").search(context or sentence):
        return True
    return bool(_cue("negation").search(before[-80:]) or _describing(context or sentence))


@lru_cache(maxsize=256)
def _describing(context: str) -> bool:
    # Cached: several patterns hit the same sentence, and the cue pattern is a long alternation.
    return bool(_cue("describes").search(context))


def _quoted(before: str, any_script: bool = False) -> bool:
    """``any_script`` (with example_context): quotation marks of every script (context_sentences)."""
    if before.count("`") % 2 or _SINGLE_QUOTED.search(before):
        return True
    if any_script:
        return open_quote(before)
    return bool(before.count('"') % 2) or any(before.rfind(o) > before.rfind(c) for o, c in _QUOTE_PAIRS)


def phrase_findings(sentences: list[Sentence], section: str | tuple[str, ...], commands: bool = False,
                    index: TriggerIndex | None = None, defines: bool = False) -> list[Finding]:
    """Matches of ``section``'s patterns that are not discounted, one per pattern and sentence.

    ``commands``: the patterns match shell commands, which live in code spans and quotes, so
    only negation and describing context discount them. ``index``: the sentences' index, when
    several sections are searched in the same sentences."""
    index = index or TriggerIndex([s.text for s in sentences])
    out = []
    for p in patterns(section):
        for i in index.candidates(p):
            s = sentences[i]
            matches = islice(p.regex.finditer(s.text), _MAX_MATCHES)
            if any(not discounted(s.text, m.start(), s.context, not commands, defines) for m in matches):
                out.append(Finding(p.id, p.text, p.weight, s.line, s.paragraph))
    return out


def strong_findings(sentences: list[Sentence], how: ScanOptions, index: TriggerIndex | None = None) -> list[Finding]:
    """The injection phrases of ``sentences``, read with the scanner's options ``how``."""
    return phrase_findings(sentences, sections("injection", how.phrase_variants), index=index, defines=how.example_context)


def weak_findings(sentences: list[Sentence], how: ScanOptions, index: TriggerIndex | None = None) -> list[Finding]:
    """The weak signals of ``sentences`` (``signals``, ``command_signals``), read with ``how``."""
    return (phrase_findings(sentences, sections("signals", how.phrase_variants), index=index, defines=how.example_context)
            + phrase_findings(sentences, "command_signals", True, index=index, defines=how.example_context))


class TriggerIndex:
    """Which pieces (sentences, lines) hold a pattern's trigger substrings: the regex then runs
    on those few short pieces only, instead of over the whole file."""

    def __init__(self, pieces: list[str]) -> None:
        self.pieces = [_spaced(p) for p in pieces]
        self.text = "\n".join(self.pieces)
        self._ascii = self.text.isascii()  # most files: skip the other-language triggers at once
        self._hits: dict[str, set[int]] = {}

    def candidates(self, p: Pattern) -> list[int]:
        if not p.triggers:
            return list(range(len(self.pieces)))
        return sorted(set().union(*(self._pieces_with(t) for t in p.triggers)))

    def _pieces_with(self, trigger: str) -> set[int]:
        if (hit := self._hits.get(trigger)) is None:
            present = (not self._ascii or trigger.isascii()) and trigger in self.text
            hit = self._hits[trigger] = {i for i, piece in enumerate(self.pieces) if trigger in piece} if present else set()
        return hit


@lru_cache(maxsize=64)  # (``hit`` asks it of one text for pattern after pattern)
def _spaced(text: str) -> str:
    """``text`` lower-cased with each whitespace run one space: where triggers are sought. A
    test proves each pattern's triggers for such a text (``regex_needles.proves``), so that
    ``\\s+`` in a pattern may stand for the one space a trigger spells."""
    return " ".join(text.lower().split())


def triggered(p: Pattern, spaced: str) -> bool:
    """``p`` can match a text at all: one of its trigger substrings occurs in ``spaced``
    (``_spaced(text)``)."""
    return not p.triggers or any(t in spaced for t in p.triggers)


def hit(p: Pattern, text: str) -> bool:
    """``p`` matches ``text`` (the trigger test first)."""
    return triggered(p, _spaced(text)) and bool(p.regex.search(text))


def score(findings: list[Finding]) -> float:
    """The group's weight: each kind counts once, with its heaviest match."""
    return sum(max(f.weight for f in findings if f.kind == kind) for kind in dict.fromkeys(f.kind for f in findings))


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


def exfil_findings(text: str, credential_use: bool = False) -> list[Finding]:
    """Exfiltration shapes per logical line; routine local or same-service calls are exempt.
    ``credential_use``: keys a program authenticates with (``ssh -i key``) are not sent."""
    lines = logical_lines(text)
    index = TriggerIndex([line for _, line in lines])
    out: list[Finding] = []
    for section in ("exfiltration", "exfiltration_remote"):
        for p in patterns(section):
            for i in index.candidates(p):
                n, line = lines[i]
                m = p.regex.search(line)
                if m and credential_use and regex("credential-use").search(line):  # look again without them
                    line = regex("credential-use").sub(" ", line)
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
    remote = _remote_hosts(line)
    return not remote or _owned(remote, [v for v in _SECRET_VAR.findall(line) if _SECRET_NAME.search(v)])


def _remote_hosts(line: str) -> list[str]:
    hosts = [h.split("@")[-1].lower() for h in _URL_HOST.findall(line) + _BARE_HOST.findall(line)]
    return [h for h in hosts if not _LOOPBACK.match(h)]


def _owned(remote: list[str], names: list[str]) -> bool:
    """Every host of ``remote`` is the service one of the secret variables ``names`` is named after."""
    # A name's first part, unless it says nothing about whose credential it is (API_KEY, MY_TOKEN).
    owners = {first if len(first := v.lower().split("_")[0]) >= 3 and not regex("generic-name-part").fullmatch(first)
              else None for v in names}
    return bool(owners) and None not in owners and all(
        len(parts := h.strip("[]").split(".")) >= 2 and parts[-2] in owners for h in remote)


def shell_command(text: str) -> bool:
    """Some line of ``text`` is a shell command (decoded blobs)."""
    return any(p.regex.search(line) for p in patterns("shell") for line in text.lower().splitlines())


_QUOTED_IP = re.compile(r"""['"](\d{1,3}(?:\.\d{1,3}){3})['"]""")


def capability_exfil(text: str) -> list[Finding]:
    """Exfiltration by capability, in any language: a logical line that sends over the network
    (``network_send``) and reads a secret source (``secret_source``), not negated, to some
    destination that is neither this machine nor the service the secret is named after."""
    net, src, files = patterns("network_send"), patterns("secret_source"), patterns("secret_file_source")
    out: list[Finding] = []
    for n, raw in logical_lines(text):
        spaced = _spaced(raw)
        m = next((m for p in net if triggered(p, spaced) and (m := p.regex.search(raw))), None)
        line = regex("credential-use").sub(" ", raw) if m else raw
        if m is None or not any(p.regex.search(line) for p in src) or _cue("negation").search(line[: m.start()][-80:]):
            continue
        if not any(p.regex.search(line) for p in files):  # a secrets file goes out to any listener
            remote = _remote_hosts(line)
            # ``os.environ['GITHUB_TOKEN']`` sent to ``api.github.com``: the service the secret is for.
            if remote and _owned(remote, [g for m in regex("code-secret-var").finditer(line) for g in m.groups() if g]):
                continue
            quoted = [h for h in _QUOTED_IP.findall(line) + regex("quoted-host").findall(line) if not _LOOPBACK.match(h)]
            if not quoted and _routine_destination(line):
                continue
        out.append(Finding("network-send", "sends a secret or credentials file over the network", 1.0, n))
    return out

