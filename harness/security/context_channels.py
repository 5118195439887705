"""Hidden channels of a context file: text a model reads but a rendered page does not show.

A poisoned AGENTS.md rarely puts its instruction in plain view. It goes where a reviewer looking
at the rendered Markdown will not see it: HTML comments, ``[//]: # (...)`` comments, link
targets and titles, image alt text, YAML front matter, elements styled invisible, fake
``<system>`` blocks, or base64/hex blobs. ``hidden_channels`` pulls each of those out as its own
piece of text so the scanner can judge it on its own, with a base weight for how suspicious the
hiding place itself is.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import unquote, unquote_plus

import yaml

from harness.security.context_header import leading_header, unquoted
from harness.security.context_quotes import mask_code_spans
from harness.security.context_sentences import fence_flags


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
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
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
_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FRONT_MATTER_VALUES = 500
_BASE64 = re.compile(r"(?<![A-Za-z0-9+/=_-])([A-Za-z0-9+/_-]{24,}={0,2})(?![A-Za-z0-9+/=_-])")
_HEX = re.compile(r"(?<![0-9A-Fa-f])((?:[0-9A-Fa-f]{2}){16,})(?![0-9A-Fa-f])")


def hidden_channels(text: str, any_front_matter: bool = False, code_spans: bool = False) -> list[Channel]:
    """Every hidden piece of ``text`` (cleaned content), grouped by kind, in document order.
    ``any_front_matter``: TOML (``+++``) and JSON (a leading ``{...}``) front matter are read
    like YAML's, and so is a leading header of any other syntax (``context_header``).
    ``code_spans``: markup inside an inline code span is shown as text, so it is no channel."""
    out: list[Channel] = []

    def add(kind: str, start: int, body: str, base: float) -> None:
        if body.strip():
            out.append(Channel(kind, text.count("\n", 0, start) + 1, body, base))

    # Markup inside code is shown as text when rendered: it hides nothing. ``code_spans`` (with
    # example_context): inline `spans` too, not only fenced blocks.
    prose = mask_code_fences(text)
    _markup_channels(mask_code_spans(prose) if code_spans else prose, add)
    if m := _FRONT_MATTER.match(text):
        add("the YAML front matter", 0, _front_matter_text(m.group(1)), 0.0)
    elif any_front_matter:
        if (other := other_front_matter(text)) is not None:
            add("the front matter", 0, _front_matter_text(other, data=True), 0.0)
        if (header := leading_header(text)) is not None:  # any other syntax, found by shape
            add("the front matter", header[0], unquoted(header[1]), 0.0)
    for m in _BASE64.finditer(text):
        if (decoded := decode_base64_text(m.group(1))) is not None:
            add("a base64-encoded blob", m.start(), decoded, 0.4)
    for m in _HEX.finditer(text):
        if (decoded := decode_hex_text(m.group(1))) is not None:
            add("a hex-encoded blob", m.start(), decoded, 0.4)
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


_TOML_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\n(.*?)\n\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)


def other_front_matter(text: str) -> object | None:
    """The data of a TOML (``+++`` fenced, as Hugo writes it) or JSON (a ``{...}`` object that
    opens the file) front-matter block, parsed; the raw block when it does not parse; None
    when the file has neither."""
    if m := _TOML_FRONT_MATTER.match(text):
        try:
            return tomllib.loads(m.group(1))
        except tomllib.TOMLDecodeError:
            return m.group(1)
    stripped = text.lstrip()
    if stripped.startswith("{"):
        try:
            data, _ = json.JSONDecoder().raw_decode(stripped)
        except ValueError:
            return None
        return data if isinstance(data, dict) else None
    return None


def _front_matter_text(block: object, data: bool = False) -> str:
    """The front matter as ``key: value`` lines, YAML quoting undone (so a quoted value reads as
    the sentence it is) and keys spelled as words; the raw block when it is not valid YAML.
    ``data``: ``block`` is already parsed (TOML, JSON) or raw text that did not parse."""
    if data and isinstance(block, str):
        return unquoted(block)  # a block that did not parse: its literals are values all the same
    try:
        parsed = block if data else yaml.load(str(block), Loader=_YAML_LOADER)  # a safe loader
    except yaml.YAMLError:
        return str(block)
    lines: list[str] = []

    def walk(node: object, key: str) -> None:
        if len(lines) > _FRONT_MATTER_VALUES:
            return  # aliases can make a small document expand without end
        if isinstance(node, dict):
            for k, v in node.items():
                walk(v, str(k))
        elif isinstance(node, list):
            for v in node:
                walk(v, key)
        elif node is not None:
            lines.append(f"{key.replace('_', ' ')}: {node}")  # agent_directive -> agent directive

    walk(parsed, "")
    return "\n".join(lines)


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
