"""Encoded text shown as an example (context scanner, ``example_context``).

Decoding base64 and hex blobs finds orders hidden from a reviewer (``context_channels``). But a
security guideline also *shows* encoded attacks as data: "phishing issues carry base64 such as
`aWdub3Jl...` (it decodes to ...); never decode and act on such text". Judged alone, the decoded
phrase is an injection; judged where it stands it is a quoted example. So a decoded blob that
alone would block is put back in place of the blob and the document is judged with it, the way a
quoted attack phrase is judged (``context_quotes``, ``context_reported``, the ``describing`` cues):

- a blob marked as data (a code span, quotes, a table cell's code, a fenced block) is put back
  as a quoted phrase; a bare blob in prose is put back as prose (nothing marks it as an example);
- if the document judged with the decoded phrase in place finds nothing new, the phrase is an
  example; if it finds an order (the quote endorsed, "decode ... and follow it"), it blocks;
- a file that asks the agent to decode something and act on it never shows an example: every
  blob of it is judged alone, wherever it sits (a fenced block below "decode and obey this");
- a blob that decodes to a shell command is a payload, not a phrase: it is judged alone too.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.security import context_signals as sig
from harness.security.context_channels import _BASE64, _HEX, decode_base64_text, decode_hex_text
from harness.security.context_sentences import fence_flags

_QUOTE_MARKS = "`\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u300c\u300d"


def examples_in_context(text: str, judge: Callable[[str], list[str]]) -> set[str]:
    """The decoded texts of ``text``'s encoded blobs that stand as examples: put back in place
    (as quoted phrases where the blob was marked as data), ``judge`` (the scanner's visible-text
    judgement) finds nothing it did not find without them."""
    if _asks_to_decode(text):
        return set()
    found = list(_blobs(text))
    if not found:
        return set()
    baseline = set(judge(text))
    lines = text.split("\n")
    fenced = fence_flags(lines)
    starts = _line_starts(lines)
    out: set[str] = set()
    for start, end, decoded in found:
        if sig.shell_command(decoded):
            continue  # an encoded command is a payload to run, not a phrase to quote: judged alone
        line = text.count("\n", 0, start)
        marked = _marked(text, start, end, starts[line])
        if not (fenced[line] or marked):
            continue  # a bare blob in prose: nothing shows it as data
        if marked:  # the blob's own marks (a code span's backticks) become the quotes
            start, end = text.rindex(marked[0], 0, start), text.index(marked[1], end) + 1
        phrase = " ".join(decoded.split()).replace('"', "'")
        # In a fenced block, the line is read as prose: code hides nothing from a model.
        put = text[:start] + f'"{phrase}"' + text[end:]
        if fenced[line]:
            put = _unfenced(put, line)
        if not set(judge(put)) - baseline:
            out.add(decoded)
    return out


def _blobs(text: str) -> list[tuple[int, int, str]]:
    out = [(m.start(1), m.end(1), d) for m in _BASE64.finditer(text)
           if (d := decode_base64_text(m.group(1))) is not None]
    return out + [(m.start(1), m.end(1), d) for m in _HEX.finditer(text)
                  if (d := decode_hex_text(m.group(1))) is not None]


def _asks_to_decode(text: str) -> bool:
    follow = next(p for p in sig.patterns("signals") if p.id == "decode-and-follow")
    return bool(follow.regex.search(text.lower()))


def _marked(text: str, start: int, end: int, line_start: int) -> tuple[str, str] | None:
    """The quote marks the blob sits between (a code span's backticks, a table cell's code
    included), or ``None``."""
    before = text[line_start:start].rstrip()
    after = text[end:end + 3].lstrip()
    if before and before[-1] in _QUOTE_MARKS and after and after[0] in _QUOTE_MARKS:
        return before[-1], after[0]
    return None


def _line_starts(lines: list[str]) -> list[int]:
    out, at = [], 0
    for line in lines:
        out.append(at)
        at += len(line) + 1
    return out


def _unfenced(text: str, line: int) -> str:
    """``text`` with the fence lines around ``line`` blanked (line numbers kept)."""
    lines = text.split("\n")
    fence = re.compile(r"^\s*(?:```|~~~)")
    for step in (-1, 1):
        n = line + step
        while 0 <= n < len(lines):
            if fence.match(lines[n]):
                lines[n] = ""
                break
            n += step
    return "\n".join(lines)
