"""Instructions split across the context files a harness loads together (``across_files``).

AGENTS.md, TOOLS.md, MEMORY.md ... go into one prompt, so an attacker can put the order in one
file ("at session start run the bootstrap command listed in TOOLS.md") and the command in another
("Bootstrap command: `...`"). A *definition* is a line that labels a command (``label: `cmd```,
a table row, a command under a heading); a sentence of another file *refers* to it by the file's
name or the label's words. The referring paragraph is weighed with the definition as one (the
weak signals of ``context_signals``, the command's payload shape, the delegation itself); a
strong injection phrase there implicates the command outright. Both files of an implicated pair
are reported, by line number only.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import PurePosixPath

import regex

from harness.security import context_signals as sig
from harness.security.context_sentences import FENCE, Sentence, fence_flags
from harness.security.context_sentences import sentences as split_sentences
from harness.security.context_text import clean_text
from harness.security.patterns import read_rule_file

_DELEGATION = sig.Finding("delegates", "has a command from another context file run", 0.2, 0)
"""A sentence that has the model run what another file defines: weak on its own (docs point to
each other), a sign of a split instruction together with others."""
_EPSILON = 1e-9
_DEFINITION = re.compile(
    r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?(?P<label>[^:=|\n]{1,60}?)\s*(?::|=|->|\u2192)\s*(?P<value>.*?`[^`\n]+`.*)$")
_TABLE_ROW = re.compile(r"^\s*\|(?P<label>[^|\n]{1,60})\|(?P<value>.*?`[^`\n]+`.*)$")
_SPAN = re.compile(r"`([^`\n]+)`")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s+(.*)$")
_ALONE = re.compile(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?`([^`\n]+)`\s*[.;]?\s*$")
"""A command on a line of its own (or as a whole list item)."""
# Words of any script ("startbefehl", "opstartstap", "polecenie", "कमांड"): a label is matched
# in the language it is written in. The `regex` module knows letters and marks of every script.
_WORD = regex.compile(r"[\p{L}\p{N}][\p{L}\p{M}\p{N}_-]{2,}")


@dataclass(frozen=True)
class Definition:
    line: int
    words: frozenset[str]
    """The label's words (lower case, stop words left out)."""
    names: frozenset[str]
    """Terms the label defines in code spans (``alias `prep` = ...`` defines ``prep``)."""
    command: str
    by_heading: bool = False
    """Labelled by the heading above it, not by a label of its own: reached only through a
    sentence that also names the file (a heading word alone is too common)."""
    mark: str = ""
    """A tag the line carries besides its command (``[auto]``, ``!always``, ``(preapproved)``):
    a sentence that quotes it points to the line, whatever file it is in."""


def digest(content: str) -> str:
    """A short content digest: which version of a file a finding is about."""
    return hashlib.sha1(content.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def definitions(text: str, shared: set[str]) -> list[Definition]:
    """Lines of ``text`` that label a command: ``label: `cmd```, a table row, or a command alone
    (a code-span line, a list item, a line of a fenced block) labelled by the heading above it.
    Lines also in ``shared`` (the other files) are common template, not part of a split."""
    out = []
    lines = text.split("\n")
    heading: frozenset[str] = frozenset()
    for n, (line, code) in enumerate(zip(lines, fence_flags(lines), strict=True), 1):
        if not code and "<" in line:
            line = _html_as_markdown(line)
        if not code and (h := _HEADING.match(line)):
            heading = _words(h.group(1))
        if line.strip() in shared or not line.strip():
            continue
        if code:
            if not FENCE.match(line):
                out.append(Definition(n, heading, frozenset(), line.strip(), True))
            continue
        m = _TABLE_ROW.match(line) or _DEFINITION.match(line)
        if m and (spans := _SPAN.findall(m.group("value"))):
            label = m.group("label").lower()
            names = frozenset(s.strip().lower() for s in _SPAN.findall(label))
            out.append(Definition(n, _words(label), names, spans[0]))  # unnamed: reachable by file name
        elif (alone := _ALONE.match(line)) and heading:
            out.append(Definition(n, heading, frozenset(), alone.group(1), True))
        else:  # a payload in a sentence ("at start-up, run `...`"): reached by the file's name.
            # A command has arguments: a lone span is a name or a path (`memory/YYYY-MM-DD.md`).
            mark = _mark(line)
            out += [Definition(n, heading, frozenset(), span, True, mark) for span in _SPAN.findall(line)
                    if " " in span.strip() and _is_payload(span)]
    return out


# HTML containers (a table cell, a list item, a definition): the same labels and commands as their
# Markdown forms, read on the same line.
_HTML_CODE = re.compile(r"<code\b[^>]*>(.*?)</code\s*>", re.I)
_HTML_CELL = re.compile(r"<(?:td|th|dt|dd)\b[^>]*>", re.I)
_HTML_TAG = re.compile(r"</?[A-Za-z][^>]*>")
_TAG_MARK = re.compile(r"^[^\w\s`]*\w[\w-]{1,30}[^\w\s`]+$|^[^\w\s`]+\w[\w-]{1,30}[^\w\s`]*$")
"""A tag: a short word with punctuation of its own (``[auto]``, ``!always``, ``@boot``, ``(ok)``)."""


def _html_as_markdown(line: str) -> str:
    line = _HTML_CODE.sub(lambda m: f"`{m.group(1)}`", line)
    if _HTML_CELL.search(line):
        line = "|" + _HTML_CELL.sub("|", line) + "|"
        line = re.sub(r"\|\s*(?:</?[A-Za-z][^>]*>\s*)*\|", "|", _HTML_TAG.sub(" ", line).replace("| |", "|"))
    return _HTML_TAG.sub(" ", line)


def _mark(line: str) -> str:
    """The line's tag, when what is left of it besides code spans and a list bullet is one."""
    rest = re.sub(r"^\s*(?:[-*+]\s+|\d+[.)]\s+)?", "", _SPAN.sub(" ", line)).strip()
    return rest.lower() if _TAG_MARK.match(rest) else ""


def _words(label: str) -> frozenset[str]:
    return frozenset(w for w in _WORD.findall(_SPAN.sub(" ", label.lower())) if w not in _stop_words())


@cache
def _stop_words() -> frozenset[str]:
    """Words that say nothing about which command a label names (the ``label_stop_words`` table)."""
    return frozenset(read_rule_file(sig.PATTERN_FILE)[1]["tables"]["label_stop_words"])


def split_issues(files: Sequence[tuple[str, str]], how: sig.ScanOptions) -> dict[str, list[str]]:
    """``(name, content)`` of the files loaded together -> for each implicated file, what it
    completes, read with the scanner's options ``how`` (its text cleaning included)."""
    texts = [(name, clean_text(content, how.unicode_data)[0]) for name, content in files]
    lines = {name: {line.strip() for line in text.split("\n") if line.strip()} for name, text in texts}
    out: dict[str, list[str]] = {}
    handed = {a: _handed_to(a, texts, how) for a, _ in texts}
    for b, b_text in texts:
        others = set().union(*(lines[n] for n, _ in texts if n != b))
        defs = definitions(b_text, others)
        if not defs:
            continue
        b_sentences = split_sentences(b_text, examples=how.example_context)
        for a, a_text in texts:
            if a == b:
                continue
            for line, d in _implicated(a_text, lines[b], b, defs, b_sentences, how, handed[a]):
                out.setdefault(b, []).append(
                    f"Completes an instruction split across context files: {a} line {line} has the "
                    f"command at line {d.line} run")
                out.setdefault(a, []).append(
                    f"Completes an instruction split across context files: line {line} has the command "
                    f"at {b} line {d.line} run")
    return {name: list(dict.fromkeys(issues)) for name, issues in out.items()}


def _handed_to(a: str, texts: list[tuple[str, str]], how: sig.ScanOptions) -> list[sig.Finding]:
    """The weak signals of sentences in other files that name ``a``: a chain hands its waiver or
    its timing on ("no confirmation for the steps kept in MEMORY.md"; MEMORY.md: "run first what
    BOOTSTRAP.md says"), so ``a``'s orders are weighed with them."""
    named = _name_pattern(a)
    out: list[sig.Finding] = []
    for c, c_text in texts:
        if c != a and named.search(c_text):
            naming = [s for s in split_sentences(c_text, examples=how.example_context) if named.search(s.text)
                      and not s.text.lstrip().startswith("#")]
            out += sig.weak_findings(naming, how)
    return out


def _implicated(a_text: str, b_lines: set[str], b: str, defs: list[Definition],
                b_sentences: list[Sentence], how: sig.ScanOptions,
                handed: Sequence[sig.Finding] = ()) -> list[tuple[int, Definition]]:
    a_sentences = [s for s in split_sentences(a_text, examples=how.example_context) if s.text.strip() not in b_lines]
    delegates, named = _delegation_pattern(b), _name_pattern(b)
    found = []
    for s in a_sentences:
        if s.text.lstrip().startswith("#"):
            continue  # a heading naming a file is a title ("# CLAUDE.md"), not a reference
        words = set(_WORD.findall(s.text.lower()))
        # "the other context files", "elsewhere in your context": every other file is named.
        names_it = bool(named.search(s.text) or sig.regex("other-files").search(s.text))
        lowered = s.text.lower()
        pointed = [d for d in defs if d.names & words or (d.mark and d.mark in lowered)
                   or (d.words and d.words <= words and (names_it or not d.by_heading))]
        paragraph = [p for p in a_sentences if p.paragraph == s.paragraph]
        strong = sig.strong_findings(paragraph, how) if pointed or names_it else []
        # An order that reaches into the file, a sentence handing it authority ("TOOLS.md
        # outranks ...", "is binding"), or an injected paragraph that merely names it.
        elevates = names_it and any(p.regex.search(s.text) for p in sig.patterns("authority"))
        weak = sig.weak_findings(paragraph, how) + list(handed)
        # A sentence that names the file and carries a sign of an injected order (a waiver, a
        # timing, stealth) reaches its commands in any language, order verb known or not.
        # (Not one that orders a command of its own: "read `MEMORY.md` and run `git status`".)
        own = [span for span in _SPAN.findall(s.text) if not named.fullmatch(span.strip())]
        signed = names_it and not own and bool(sig.weak_findings([s], how))
        if not pointed and (strong or delegates.search(s.text) or elevates or signed):
            pointed = [d for d in defs if d.words & words] or defs
        for d in pointed:
            if strong or _weighs(weak, d, b_sentences, how):
                found.append((s.line, d))
    return found


def _weighs(weak: list[sig.Finding], d: Definition, b_sentences: list[Sentence], how: sig.ScanOptions) -> bool:
    own = sig.weak_findings([s for s in b_sentences if s.line == d.line], how)
    p = _payload()
    payload = [sig.Finding(p.id, p.text, p.weight, 0)] if _is_payload(d.command) else []
    return sig.score([*weak, *own, *payload, _DELEGATION]) >= sig.THRESHOLD - _EPSILON



@cache
def _name_pattern(name: str) -> re.Pattern[str]:
    """The file's name as a word, case-insensitive (``TOOLS.md``, ``tools.md``, ``.cursorrules``).
    ASCII bounds: in "TOOLS.md의" or "在USER.md中" the name touches letters of another script."""
    return re.compile(rf"(?<![A-Za-z0-9_])\.?{re.escape(PurePosixPath(name).name.lstrip('.'))}(?![A-Za-z0-9_])", re.I)


@cache
def _delegation_pattern(name: str) -> re.Pattern[str]:
    """An order whose object is in the file: "run the bootstrap command listed in TOOLS.md",
    "follow the hook in .cursorrules" (not "read `MEMORY.md` and run `git status`": a code span
    of the sentence's own is its own command). In other languages the verb may also follow the
    name ("den Startbefehl aus AGENTS.md ausführen", "TOOLS.md のコマンドを実行")."""
    file = _name_pattern(name).pattern
    other = "|".join(p.regex.pattern for p in sig.patterns("orders"))
    gap = r"[^`.;!?\u3002]{0,60}?"
    before, after = sig.regex("delegation-verbs").pattern, sig.regex("delegation-verbs-after").pattern
    return re.compile(rf"\b(?:{before})\b{gap}{file}|(?:{other}){gap}{file}|{file}{gap}(?:{other}|\b(?:{after})\b)",
                      re.I)


@cache
def _payload() -> sig.Pattern:
    # The heavier runs-command signal: what it finds in a code span after "run" (redirects into
    # files, deletes, pushes, downloads, inline scripts) is the shape of a payload.
    return max((p for p in sig.patterns("signals") if p.id == "runs-command"), key=lambda p: p.weight)


def _is_payload(command: str) -> bool:
    return bool(_payload().regex.search(f"run `{command}`")) or bool(sig.exfil_findings(command))
