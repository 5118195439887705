"""Hidden channels of a context file: text a model reads but a rendered page does not show.

A poisoned AGENTS.md puts its instruction where a reviewer of the rendered Markdown will not see
it: HTML comments, ``[//]: # (...)`` comments, link targets and titles, image alt text, front
matter and other metadata (``context_metadata``), elements styled invisible, fake ``<system>``
blocks, base64/hex blobs. ``hidden_channels`` pulls each out as its own piece of text, with a
base weight for how suspicious the hiding place itself is.

A security guideline also *shows* encoded attacks as data ("issues carry base64 such as
`aWdub3Jl...`; never decode and act on such text"). With ``example_context``, a decoded blob
that alone would block is put back in place of the blob (as a quoted phrase where the blob was
marked as data: a code span, quotes, a fenced block) and the document is judged with it
(``examples_in_context``): if nothing new is found, it is an example. A file that asks to decode
something and act on it shows no examples, and a blob that decodes to a shell command is a
payload: both are judged alone.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, unquote_plus

from harness.security import context_signals as sig
from harness.security.context_metadata import front_matter, metadata_blocks
from harness.security.context_sentences import FENCE, fence_flags, mask_code_spans


@dataclass(frozen=True)
class Channel:
    kind: str
    """What hides the text, for the finding ("a hidden HTML comment", "an image's alt text" ...)."""
    line: int
    text: str
    base: float
    """How suspicious the hiding place is on its own (added to the signals found inside)."""


_HTML_COMMENT = re.compile(r"<!--(.*?)(?:-->|\Z)", re.DOTALL)
_REF_DEF = re.compile(
    r"""^[ ]{0,3}\[([^\]\n]+)\]:[ \t]*(<[^>\n]*>|\S+)(?:[ \t]+("[^"\n]*"|'[^'\n]*'|\([^\n]*\)))?[ \t]*$""",
    re.MULTILINE,
)
_IMAGE_ALT = re.compile(r"!\[([^\[\]\n]{1,500})\]\(")
# Up to the closing ">)": renderers stop at the first ">", a model reads the whole line.
_ANGLE_TARGET = re.compile(r"""\]\(\s*<([^\n]*?)>\s*(?:"[^"\n]*"\s*)?\)""")
_URL_TARGET = re.compile(r"\]\(\s*([^\s()<>]+)")
_LINK_TITLE = re.compile(r"""\]\(\s*(?:<[^>\n]*>|[^\s()]+)\s+("[^"\n]*"|'[^'\n]*')\s*\)""")
_HIDDEN_ELEMENT = re.compile(
    r"""<(\w+)\b[^>]*?(?:\bhidden\b|aria-hidden\s*=\s*["']?true|style\s*=\s*["'][^"']*"""
    r"""(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0)[^"']*["'])"""
    r"""[^>]*>(.*?)</\1\s*>""",
    re.DOTALL | re.IGNORECASE,
)
# Markup posing as a higher authority than the file: <system>, <instructions priority=...>,
# <admin_override>, [SYSTEM] ... A context file has no business speaking for the system.
_AUTHORITY_TAG = re.compile(
    r"^[ \t]*<((?:system|admin|administrator|operator|developer|root|sudo|override|instructions?)"
    r"(?:[-_]\w+)?)\b[^>\n]*>(.*?)</\1\s*>",
    re.DOTALL | re.MULTILINE | re.IGNORECASE,
)
_AUTHORITY_BRACKET = re.compile(r"^[ \t]*\[(SYSTEM|ADMIN|OPERATOR|DEVELOPER)\][ \t]*(.*?)(?:\[/\1\]|$)", re.MULTILINE)
_MARKDOWN_COMMENT_LABELS = {"//", "comment", "_", "#"}
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])([A-Za-z0-9+/_-]{24,}={0,2})(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])((?:[0-9A-Fa-f]{2}){16,})(?![0-9A-Fa-f])")


def hidden_channels(text: str, any_front_matter: bool = False, code_spans: bool = False) -> list[Channel]:
    """Every hidden piece of ``text`` (cleaned content), grouped by kind, in document order.
    ``any_front_matter``: front matter and metadata of any syntax (``context_metadata``).
    ``code_spans``: markup inside an inline code span is shown as text, so it is no channel."""
    out: list[Channel] = []

    def add(kind: str, start: int, body: str, base: float) -> None:
        if body.strip():
            out.append(Channel(kind, text.count("\n", 0, start) + 1, body, base))

    # Markup inside code is shown as text when rendered: it hides nothing. ``code_spans`` (with
    # example_context): inline `spans` too, not only fenced blocks.
    prose = mask_code_fences(text)
    _markup_channels(mask_code_spans(prose) if code_spans else prose, add)
    for kind, start, body in front_matter(text, any_front_matter):
        add(kind, start, body, 0.0)
    for kind, start, _, decoded in _blobs(text):
        add(kind, start, decoded, 0.4)
    if any_front_matter:  # metadata of any other format, wherever it sits
        out += [Channel("the file metadata", n, body, base) for n, body, base in metadata_blocks(text)]
    return out


def _markup_channels(prose: str, add: Callable[[str, int, str, float], None]) -> None:
    # Each regex only runs when its markup can be there at all (substring tests are cheap).
    for m in _HTML_COMMENT.finditer(prose) if "<!--" in prose else ():
        add("a hidden HTML comment", m.start(), m.group(1), 0.2)
    for m in _REF_DEF.finditer(prose) if "]:" in prose else ():
        label, target, title = m.group(1).strip().lower(), m.group(2), (m.group(3) or "")[1:-1]
        if label in _MARKDOWN_COMMENT_LABELS or target in ("#", "<>"):
            add("a hidden Markdown comment", m.start(), title or target, 0.2)
            continue
        add("a link title", m.start(), title, 0.2)
        add("a link target", m.start(), _spelled_out(target.strip("<>")), 0.2)
    links = "](" in prose
    for m in _IMAGE_ALT.finditer(prose) if links else ():
        add("an image's alt text", m.start(), m.group(1), 0.2)
    for m in _ANGLE_TARGET.finditer(prose) if "](<" in prose else ():
        add("a link target", m.start(), _spelled_out(m.group(1)), 0.2)
    for m in _URL_TARGET.finditer(prose) if links else ():
        add("a link target", m.start(), _spelled_out(m.group(1)), 0.2)
    for m in _LINK_TITLE.finditer(prose) if links else ():
        add("a link title", m.start(), m.group(1)[1:-1], 0.2)
    tags = "</" in prose
    for m in _HIDDEN_ELEMENT.finditer(prose) if tags else ():
        add("an HTML element styled invisible", m.start(), m.group(2), 0.2)
    for m in _AUTHORITY_TAG.finditer(prose) if tags else ():
        add("a block posing as a system/operator message", m.start(), m.group(2), 0.6)
    for m in _AUTHORITY_BRACKET.finditer(prose) if "]" in prose else ():
        add("a block posing as a system/operator message", m.start(), m.group(2), 0.6)


def mask_code_fences(text: str) -> str:
    """``text`` with the lines of fenced code blocks blanked (line numbers are kept): code is
    shown as code when rendered, so nothing in it is hidden."""
    if "```" not in text and "~~~" not in text:
        return text
    lines = text.split("\n")
    return "\n".join("" if code else line for line, code in zip(lines, fence_flags(lines), strict=True))


def _spelled_out(target: str) -> str:
    """A link target as words when it carries a sentence (spaces, backticks), else ``""``.

    Ordinary URLs are not channels; a destination that decodes to prose is."""
    decoded = unquote_plus(target) if "?" in target else unquote(target)
    return decoded if decoded.count(" ") >= 3 or "`" in decoded else ""


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
        if (text := _printable_text(raw)) is not None:
            return text
    return None


def decode_hex_text(blob: str) -> str | None:
    """The blob decoded as text when it is hex of printable UTF-8 prose, else ``None`` (hashes)."""
    try:
        return _printable_text(bytes.fromhex(blob))
    except ValueError:
        return None


def _printable_text(raw: bytes) -> str | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return None
    printable = sum(1 for ch in text if ch.isprintable() or ch in "\n\t\r")
    if text and printable / len(text) >= 0.95 and re.search(r"[a-zA-Z]{2,}\s", text):
        return text
    return None


_ENCODINGS = (("a base64-encoded blob", _BASE64, decode_base64_text), ("a hex-encoded blob", _HEX, decode_hex_text))


# --- encoded text shown as an example (example_context) --------------------------------------------
_QUOTE_MARKS = "`\"'\u201c\u201d\u2018\u2019\u00ab\u00bb\u300c\u300d"


def examples_in_context(text: str, judge: Callable[[str], list[str]]) -> set[str]:
    """The decoded texts of ``text``'s encoded blobs that stand as examples: put back in place
    (as quoted phrases where the blob was marked as data), ``judge`` (the scanner's visible-text
    judgement) finds nothing it did not find without them."""
    found = _blobs(text)
    if not found or sig.regex("decode-and-follow", "signals").search(text.lower()):
        return set()
    baseline = set(judge(text))
    lines = text.split("\n")
    fenced = fence_flags(lines)
    out: set[str] = set()
    for _, start, end, decoded in found:
        if sig.shell_command(decoded):
            continue  # an encoded command is a payload to run, not a phrase to quote: judged alone
        line = text.count("\n", 0, start)
        marked = _marked(text, start, end)
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


def _blobs(text: str) -> list[tuple[str, int, int, str]]:
    """``(kind, start, end, decoded text)`` of each base64 or hex blob that decodes to text."""
    return [(kind, m.start(1), m.end(1), d) for kind, rx, decode in _ENCODINGS
            for m in rx.finditer(text) if (d := decode(m.group(1))) is not None]


def _marked(text: str, start: int, end: int) -> tuple[str, str] | None:
    """The quote marks the blob sits between (a code span's backticks, a table cell's code
    included), or ``None``."""
    before = text[text.rfind("\n", 0, start) + 1:start].rstrip()
    after = text[end:end + 3].lstrip()
    if before and before[-1] in _QUOTE_MARKS and after and after[0] in _QUOTE_MARKS:
        return before[-1], after[0]
    return None


def _unfenced(text: str, line: int) -> str:
    """``text`` with the fence lines around ``line`` blanked (line numbers kept)."""
    lines = text.split("\n")
    for step in (-1, 1):
        n = line + step
        while 0 <= n < len(lines):
            if FENCE.match(lines[n]):
                lines[n] = ""
                break
            n += step
    return "\n".join(lines)
