"""Context-file scanner (seed 004 "context file injection").

AGENTS.md and friends go into the system prompt verbatim, so a poisoned file in the workspace can
steer the agent. ``scan_context_file`` blocks the whole file when it finds an injection (a
partial clean-up would leave the attacker's remaining text in the prompt). It reads what the
model reads (tag characters mapped, invisible characters removed, look-alikes folded:
``context_text``) and looks at:

- the visible text, sentence by sentence: strong injection phrases block on their own unless
  quoted, negated or described; weak signals ("run `...`", "every session", "silently" ...)
  block when several add up within one paragraph (``context_signals``);
- hidden channels (comments, link targets, alt text, front matter, fake ``<system>`` blocks,
  base64/hex blobs), where the same signals weigh more (``context_channels``);
- exfiltration: secrets or secret files sent by any network client or script, the environment
  piped out (``context_signals``, ``context_reach``); routine calls to localhost are exempt;
- with ``across_files``, an order in one file whose command another file defines (``context_split``).

Findings name the kind of problem and a line, never the matched text: quoting the attacker's
words in the BLOCKED notice would put them back into the prompt. Patterns are data
(``context_scan_patterns.yaml``).

Source: seed 004, ``scan_context_file`` (``INJECTION_PATTERNS``, ``INVISIBLE_UNICODE``, ``EXFIL_PATTERNS``).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from harness.security import context_channels as ch
from harness.security import context_reported as rep
from harness.security import context_signals as sig
from harness.security.context_reach import reach_findings
from harness.security.context_sentences import sentences as split_sentences
from harness.security.context_split import digest, split_issues
from harness.security.context_text import FORMAT_CHARS, clean_text, invisible_issues
from harness.security.patterns import compile_extra

__all__ = ["ScanResult", "scan_context_file", "scan_many", "split_findings"]

_MIN_SPOOFED_WORDS = 2
"""Look-alike letters in this many Latin words is spoofing (one can be a typo or a unit)."""


@dataclass(frozen=True)
class ScanResult:
    safe: bool
    replacement: str
    """The content itself when safe; a ``[CONTEXT FILE BLOCKED: <path>]`` notice when not."""
    issues: list[str] = field(default_factory=list)
    """One human-readable line per finding (empty when safe)."""
    rules: list[str] = field(default_factory=list)
    """The rules behind the findings, in order (``harness/rules/context_scan_patterns.yaml``:
    a pattern's id, or a check's id from its ``checks`` section)."""


SplitFindings = tuple[tuple[str, str, tuple[str, ...]], ...]
"""``(path, content digest, issues)`` per file that completes an instruction split across files."""


def _options(config: object | None) -> sig.ScanOptions:
    return sig.ScanOptions(**{f: bool(getattr(config, f, False)) for f in sig.ScanOptions.__dataclass_fields__})


def scan_context_file(content: str, path: str, extra_patterns: Sequence[str] = (),
                      config: object | None = None, split: SplitFindings = ()) -> ScanResult:
    """Scan one context file; ``extra_patterns`` are more regexes (case-insensitive) that block;
    ``config`` (a ``ContextScanConfig``) switches the options of ``sig.ScanOptions`` on; ``split``:
    what ``split_findings`` found over the files loaded with this one."""
    found = _findings(content, extra_patterns, _options(config))
    if split:
        mine = digest(content)
        found += [(i, "split-order") for p, d, issues in split if p == path and d == mine for i in issues]
    if not found:
        return ScanResult(safe=True, replacement=content, issues=[])
    issues = [i for i, _ in found]
    return ScanResult(
        safe=False,
        replacement=f"[CONTEXT FILE BLOCKED: {path}]\n[Reason: {'; '.join(issues)}]",
        issues=issues,
        rules=list(dict.fromkeys(r for _, r in found)),
    )


def split_findings(files: Sequence[tuple[str, str]], config: object | None = None) -> SplitFindings:
    """With ``across_files``: the files among ``files`` (``(path, content)`` of the context files
    loaded together) that complete an instruction split across them (``context_split``)."""
    options = _options(config)
    if not options.across_files or len(files) < 2:
        return ()
    return _split_findings(tuple(files), options)


@lru_cache(maxsize=64)
def _split_findings(files: tuple[tuple[str, str], ...], options: sig.ScanOptions) -> SplitFindings:
    # Cached by the files' contents: a prompt rebuilt every turn rereads them, but they rarely change.
    found = split_issues(files, options)
    contents = dict(files)
    return tuple((p, digest(contents[p]), tuple(found[p])) for p in sorted(found))


Found = list[tuple[str, str]]
"""``(issue line, rule id)`` per finding."""


def _findings(content: str, extra_patterns: Sequence[str], options: sig.ScanOptions) -> Found:
    """Every finding in ``content`` with its rule, deduplicated, in a stable order."""
    issues: Found = [(i, "invisible-characters") for i in invisible_issues(content, options.unicode_data)]
    text, spoofed = clean_text(content, options.unicode_data)
    if spoofed >= _MIN_SPOOFED_WORDS:
        issues.append((f"Spells {spoofed} Latin words with look-alike letters of another script: homoglyph spoofing",
                       "look-alike-letters"))
    issues += _visible_issues(text, options)
    channels = ch.hidden_channels(text, options.any_front_matter, options.example_context)
    shown: set[str] | None = None
    for channel in channels:
        found = _channel_issues(channel, options.phrase_variants)
        if found and options.example_context and channel.kind.endswith("-encoded blob"):
            # An encoded attack shown as data is judged where it stands, like a quoted phrase.
            if shown is None:
                shown = ch.examples_in_context(text, lambda t: [i for i, _ in _visible_issues(t, options)])
            if channel.text in shown:
                continue
        issues += found
        issues += [(f"Contains potential exfiltration pattern in {channel.kind} ({f.text})", f.kind)
                   for f in _capability_exfil(channel.text, options)]
    extra = compile_extra(tuple(extra_patterns), "context_scan.extra_patterns")
    if extra:  # also matched NFKC, invisible characters removed, lower case (newlines kept)
        lowered = FORMAT_CHARS.sub("", unicodedata.normalize("NFKC", content)).lower()
        issues += [(f"Matches configured pattern {rx.pattern!r}", "configured-pattern") for rx in extra
                   if rx.search(lowered) or rx.search(content)]
    return list({i: (i, r) for i, r in reversed(issues)}.values())[::-1]


def _visible_issues(text: str, options: sig.ScanOptions) -> Found:
    examples = options.example_context
    sentences = split_sentences(text, examples=examples)
    index = sig.TriggerIndex([s.text for s in sentences])
    strong, weak = sig.strong_findings(sentences, options, index), sig.weak_findings(sentences, options, index)
    exfil = sig.exfil_findings(text, options.exfil_by_capability) + _capability_exfil(text, options)
    # A report that quotes the payload (context_reported): judged on the lines where something was found.
    hits = {f.line for f in [*strong, *weak, *exfil]} if examples else set()
    reported = rep.reported_lines(text, hits) if hits else set()
    strong = [f for f in strong if f.line not in reported]
    weak = [f for f in weak if f.line not in reported]
    issues = [(f"Contains injection phrase ({f.text})", f.kind) for f in strong]
    issues += [(f"Quotes an attack and tells the agent to follow it (line {n})", "endorsed-quote")
               for n in (rep.endorsed_quotes(text) if examples else [])]
    for paragraph in sorted({f.paragraph for f in weak} - {f.paragraph for f in strong}):
        found = [f for f in weak if f.paragraph == paragraph]
        if sig.score(found) >= sig.THRESHOLD:
            line = min(f.line for f in found)
            issues.append((f"Paragraph at line {line} combines signs of an injected instruction ({_listed(found)})",
                           "combined-signals"))
    listed = (rep.described_lines(sentences) | reported) if examples else set()
    if examples:
        listed |= rep.cited_lines(text, sentences, {f.line for f in exfil} - listed)
    issues += [(f"Contains potential exfiltration pattern ({f.text}, line {f.line})", f.kind) for f in exfil
               if f.line not in listed]
    prose = ch.mask_code_fences(text)
    issues += [(f"Contains injection phrase ({p.text})", p.id) for p in sig.patterns("document") if sig.hit(p, prose)]
    return issues


def _channel_issues(channel: ch.Channel, variants: bool = False) -> Found:
    where = f" in {channel.kind}"
    sentences = split_sentences(channel.text, channel.line)
    index = sig.TriggerIndex([s.text for s in sentences])
    issues = [(f"Contains injection phrase{where} ({f.text})", f.kind)
              for f in sig.phrase_findings(sentences, sig.sections("injection", variants), index=index)]
    issues += [(f"Contains potential exfiltration pattern{where} ({f.text})", f.kind)
               for f in sig.exfil_findings(channel.text)]
    if issues:
        return issues
    weak = sig.phrase_findings(sentences, sig.sections("hidden_channel", variants), index=index)
    label = re.sub(r"^(?:an?|the) ", "", channel.kind)
    label = label[0].upper() + label[1:]
    if channel.base + sig.score(weak) >= sig.THRESHOLD:
        detail = f" ({_listed(weak)})" if weak else ""
        return [(f"{label} at line {channel.line} carries instructions for the agent{detail}", "hidden-instructions")]
    if channel.kind.endswith("-encoded blob") and sig.shell_command(channel.text):
        return [(f"{label} decodes to a shell command", "encoded-command")]
    return []


def _capability_exfil(text: str, options: sig.ScanOptions) -> list[sig.Finding]:
    """With ``exfil_by_capability``: secrets sent by any program, by pattern and by data flow."""
    return sig.capability_exfil(text) + reach_findings(text) if options.exfil_by_capability else []


def _listed(findings: list[sig.Finding]) -> str:
    return ", ".join(dict.fromkeys(f.text for f in findings))


def scan_many(files: Iterable[tuple[str, str]], extra_patterns: Sequence[str] = (),
              config: object | None = None) -> list[ScanResult]:
    """Scan ``(path, content)`` pairs, in order, each alone and (``across_files``) together."""
    files = list(files)
    split = split_findings(files, config)
    return [scan_context_file(content, path, extra_patterns, config, split) for path, content in files]
