"""Context-file scanner (seed 004 "context file injection").

AGENTS.md and friends go into the system prompt verbatim, so a poisoned file in the workspace can
steer the agent. ``scan_context_file`` looks for five things and blocks the whole file when it
finds any (a partial clean-up would leave the attacker's remaining text in the prompt):

- injection phrases ("ignore previous instructions", "you are now", "new system prompt" ...);
- invisible and bidi-control Unicode (zero-width, U+202A-202E, U+2066-2069, U+FEFF, tag chars);
- HTML comments that address an AI and tell it to act (invisible when the markdown is rendered);
- base64 blobs that decode to injection phrases or shell commands;
- exfiltration (secrets sent with curl/wget/nc, ``env | curl``, ``cat ~/.ssh/...``, uploads).

Findings name the kind of problem and a line, never the matched text: quoting the attacker's
words in the BLOCKED notice would put them back into the prompt. Patterns are data
(``context_scan_patterns.yaml``). Matching runs on a normalised copy (NFKC,
invisible characters removed, lower case, whitespace collapsed) so that zero-width characters or
line breaks inside a phrase do not hide it.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field

from harness.security.patterns import Pattern, compile_extra, load_patterns

PATTERN_FILE = "context_scan_patterns.yaml"

# Zero-width and bidi controls, invisible operators, BOM and the Unicode "tag" block. These render
# as nothing (or reorder what is shown), so a human reviewer cannot see what the model reads.
INVISIBLE = re.compile(
    "[\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\u180e\ufeff\U000e0000-\U000e007f]"
)
_ZWJ = "\u200d"
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])([A-Za-z0-9+/_-]{24,}={0,2})(?![A-Za-z0-9+/=_-])")
_HTML_COMMENT = re.compile(r"<!--(.*?)(?:-->|\Z)", re.DOTALL)


@dataclass(frozen=True)
class ScanResult:
    safe: bool
    replacement: str
    """The content itself when safe; a ``[CONTEXT FILE BLOCKED: <path>]`` notice when not."""
    issues: list[str] = field(default_factory=list)
    """One human-readable line per finding (empty when safe)."""


def scan_context_file(content: str, path: str, extra_patterns: Sequence[str] = ()) -> ScanResult:
    """Scan one context file; ``extra_patterns`` are more regexes (case-insensitive) that block."""
    issues = find_issues(content, extra_patterns)
    if not issues:
        return ScanResult(safe=True, replacement=content, issues=[])
    return ScanResult(
        safe=False,
        replacement=f"[CONTEXT FILE BLOCKED: {path}]\n[Reason: {'; '.join(issues)}]",
        issues=issues,
    )


def find_issues(content: str, extra_patterns: Sequence[str] = ()) -> list[str]:
    """Every finding in ``content``, deduplicated, in a stable order."""
    issues: list[str] = []
    issues += _invisible_issues(content)
    text = normalise(content)
    issues += _phrase_issues(text, "")
    issues += _exfil_issues(text, "")
    issues += _comment_issues(content)
    issues += _base64_issues(content)
    for rx in compile_extra(tuple(extra_patterns), "context_scan.extra_patterns"):
        if rx.search(text) or rx.search(content):
            issues.append(f"Matches configured pattern {rx.pattern!r}")
    return list(dict.fromkeys(issues))


def normalise(text: str) -> str:
    """NFKC, invisible characters removed, lower case (newlines kept for line-based patterns)."""
    text = unicodedata.normalize("NFKC", text)
    return INVISIBLE.sub("", text).lower()


def _collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text)


def _patterns(section: str) -> tuple[Pattern, ...]:
    return load_patterns(PATTERN_FILE, section, "description")


def _invisible_issues(content: str) -> list[str]:
    found: dict[str, int] = {}
    for m in INVISIBLE.finditer(content):
        ch, i = m.group(), m.start()
        if ch == "\ufeff" and i == 0:
            continue  # a byte-order mark at the start of a file is normal
        if ch == _ZWJ and _is_emoji_joiner(content, i):
            continue  # emoji sequences (family, flags) use ZWJ between pictographs
        code = f"U+{ord(ch):04X}"
        found[code] = found.get(code, 0) + 1
    if not found:
        return []
    listed = ", ".join(f"{c} x{n}" for c, n in sorted(found.items()))
    return [f"Contains invisible or bidi-control Unicode characters ({listed}): potential injection vector"]


def _is_emoji_joiner(text: str, i: int) -> bool:
    def pictograph(ch: str) -> bool:
        return ord(ch) > 0x2000 and (unicodedata.category(ch) in ("So", "Sk") or ch == "\ufe0f")

    return 0 < i < len(text) - 1 and pictograph(text[i - 1]) and pictograph(text[i + 1])


def _phrase_issues(normalised: str, where: str) -> list[str]:
    text = _collapse(normalised)
    out = []
    for p in _patterns("injection"):
        m = p.regex.search(text)
        if m:
            out.append(f"Contains injection phrase{where} ({p.text})")
    return out


def _exfil_issues(normalised: str, where: str) -> list[str]:
    out = []
    for p in _patterns("exfiltration"):
        for n, line in enumerate(normalised.splitlines(), 1):
            if p.regex.search(line):
                out.append(f"Contains potential exfiltration pattern{where} ({p.text}, line {n})")
                break
    return out


def _comment_issues(content: str) -> list[str]:
    out = []
    for m in _HTML_COMMENT.finditer(content):
        body = normalise(m.group(1))
        where = " inside a hidden HTML comment"
        found = _phrase_issues(body, where) + _exfil_issues(body, where)
        if not found:
            flat = _collapse(body)
            addresses, directive, secrecy = (
                any(p.regex.search(flat) for p in _patterns("hidden_comment") if p.id == pid)
                for pid in ("addresses-ai", "directive", "secrecy")
            )
            if (addresses and directive) or secrecy:
                line = content.count("\n", 0, m.start()) + 1
                found = [f"Hidden HTML comment at line {line} carries instructions for the agent"]
        out += found
    return out


def _base64_issues(content: str) -> list[str]:
    out = []
    for blob in _BASE64.findall(content):
        decoded = decode_base64_text(blob)
        if decoded is None:
            continue
        where = " in a base64-encoded blob"
        text = normalise(decoded)
        found = _phrase_issues(text, where) + _exfil_issues(text, where)
        if not found and any(p.regex.search(line) for p in _patterns("shell") for line in text.splitlines()):
            found = ["Base64-encoded blob decodes to a shell command"]
        out += found
    return out


def decode_base64_text(blob: str) -> str | None:
    """The blob decoded as text when it is base64 of (mostly) printable UTF-8, else ``None``.

    Identifiers, hashes and binary payloads (images in data URIs) decode to garbage and are
    ignored, which keeps the scan quiet on ordinary files."""
    padded = blob + "=" * (-len(blob) % 4)
    for decoder in (base64.b64decode, base64.urlsafe_b64decode):
        try:
            raw = decoder(padded.encode("ascii"))
        except (binascii.Error, ValueError):
            continue
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\t\r")
        if text and printable / len(text) >= 0.95 and re.search(r"[a-zA-Z]{2,}\s", text):
            return text
    return None


def scan_many(files: Iterable[tuple[str, str]], extra_patterns: Sequence[str] = ()) -> list[ScanResult]:
    """Scan ``(path, content)`` pairs, in order."""
    return [scan_context_file(content, path, extra_patterns) for path, content in files]
