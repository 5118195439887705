"""File metadata of any format, wherever a format puts it (context scanner, ``any_front_matter``).

Front matter is one kind of metadata; a file carries others that editors, tools and mail readers
parse and a rendered page hides or a reviewer skims: Emacs ``-*- ... -*-`` lines and ``Local
Variables:`` blocks, Vim modelines, XML processing instructions, HTML ``<meta>`` tags, and runs
of ``key: value`` / ``key = value`` lines at the top or bottom of a file (RFC 822 headers,
EditorConfig and INI sections, ``.properties``, PEP 723 ``# /// script`` blocks, AsciiDoc
``:attr:`` lines, reStructuredText ``.. meta::`` fields, comment-prefixed headers after a
shebang). A parser per format always misses the next one, so a block is found by shape: the
syntaxes that announce themselves anywhere, and a run of two or more metadata-shaped lines at
either end of the file. Its values are data, not quotations, so the string literals are
unquoted and the block is judged like front matter: an order hidden in metadata weighs like
an order in text.
"""

from __future__ import annotations

import re

from harness.security.context_header import leading_header, unquoted

_EMACS_LINE = re.compile(r"-\*-(.+?)-\*-")
_LOCAL_VARIABLES = re.compile(r"^(?P<prefix>.*?)Local Variables:\s*$", re.IGNORECASE)
# "vim: set ft=markdown tw=100 :" (also vi:/ex: with set), or "vim:ft=markdown:tw=100".
_VIM_MODELINE = re.compile(r"(?:^|\s)(?:vim?|ex)(?:[<=>]?\d+)?:\s*set?\s+(.+)$|(?:^|\s)vim(?:[<=>]?\d+)?:\s*(\w+=.+)$")
_PROCESSING = re.compile(r"<\?([\w:.-]+)(.*?)\?>", re.DOTALL)
_META_TAG = re.compile(r"<meta\b([^>]*)>", re.IGNORECASE)
_ATTRIBUTE = re.compile(r"""([\w:.-]+)\s*=\s*("[^"]*"|'[^']*'|[^\s"'>]+)""")
_PREFIX = re.compile(r"^\s*(?:#+|//+|;+|--|%|\*|/\*+|\.\.)?\s*")
# One line of a metadata run, after its comment prefix: key: value, key = value, :attr: value,
# [section], a fence of the block (# ///), a shebang, an AsciiDoc title, a directive (.. meta::).
_KEY_VALUE = re.compile(r"^:?[A-Za-z_][\w.-]{1,40}:?\s*(?::|=)\s*\S|^:[\w.-]+:\s*$|^#\+\w+:|^[A-Za-z_][\w.-]{1,40}:\s*$")
"""``key: value``, ``key = value``, ``:attr: value``, ``#+KEY:``, and ``key:`` opening a nested mapping."""
_MEMBER = re.compile(r"^\s*(?:---\s*$|\[[^\]\n]{1,60}\]\s*$|#\s*///(?:\s*[\w-]+)?\s*$|#!\S|=\s+\S|\.\.\s+[\w-]+::|End:\s*$)")
_PAIRS = re.compile(r"""(?:[^;"']|"[^"]*"|'[^']*')+""")
_VALUE = re.compile(r"""^(\s*[^:="']{1,60}?(?::|=)\s*)("(?:\\.|[^"\\])*"|'(?:\\.|[^'\\])*')\s*[;,]?\s*$""")
_MAX_RUN = 60
_TAG_BASE = 0.2
_DATA_LINES = 3
"""The lines at either end a run may start on (after blank lines)."""


def metadata_blocks(text: str) -> list[tuple[int, str, float]]:
    """``(line, text, base)`` of each metadata block of ``text`` (cleaned content), its values
    unquoted; the leading header ``context_header`` already reads is left out. ``base``: tags a
    rendered page never shows (processing instructions, ``<meta>``) weigh like an HTML comment."""
    lines = text.split("\n")
    out: list[tuple[int, str]] = []
    tags: list[tuple[int, str]] = []
    for n, line in enumerate(lines, 1):
        for emacs in _EMACS_LINE.finditer(line) if "-*-" in line else ():
            out.append((n, "\n".join(_PAIRS.findall(emacs.group(1)))))
        if "<?" in line or "<meta" in line.lower():
            tags += [(n, body) for body in _tag_attributes(line)]
        if (local := _LOCAL_VARIABLES.match(line)) and (block := _local_variables(lines, n, local.group("prefix"))):
            out.append((n + 1, block))
    for n in _edge_lines(lines, 5):
        if vim := _VIM_MODELINE.search(lines[n - 1]):
            out.append((n, (vim.group(1) or vim.group(2)).replace(":", "\n")))
    if leading_header(text) is None:
        out += _run(lines, range(len(lines)))
    out += _run(lines, range(len(lines) - 1, -1, -1))
    return [(n, _values_unquoted(block), base) for blocks, base in ((out, 0.0), (tags, _TAG_BASE))
            for n, block in blocks if block.strip()]


def _values_unquoted(block: str) -> str:
    """Each line's value unquoted when the quoted literal IS the value (``key: "..."``): a
    sentence that quotes a phrase inside it stays quoted."""
    return "\n".join(_VALUE.sub(lambda m: m.group(1) + unquoted(m.group(2)).strip(), line) for line in block.split("\n"))


def _tag_attributes(line: str) -> list[str]:
    bodies = []
    for m in _PROCESSING.finditer(line):
        if m.group(1).lower() != "xml":  # the XML declaration: version and encoding only
            bodies.append(re.sub(r"[-_.:]", " ", m.group(1)) + "\n" + _attributes(m.group(2)))
    bodies += [_attributes(m.group(1)) for m in _META_TAG.finditer(line)]
    return bodies


def _attributes(text: str) -> str:
    found = _ATTRIBUTE.findall(text)
    # Keys spelled as words ("session-start" -> "session start"), as front matter keys are.
    return "\n".join(f"{re.sub(r'[-_.:]', ' ', k)}: {v}" for k, v in found) if found else text


def _local_variables(lines: list[str], n: int, prefix: str) -> str:
    body: list[str] = []
    for line in lines[n:n + _MAX_RUN]:
        inner = line[len(prefix):] if prefix and line.startswith(prefix) else line
        if inner.strip().lower().startswith("end:"):
            return "\n".join(body)
        body.append(inner)
    return ""


def _edge_lines(lines: list[str], count: int) -> list[int]:
    filled = [i + 1 for i, line in enumerate(lines) if line.strip()]
    return sorted(set(filled[:count] + filled[-count:]))


def _run(lines: list[str], order: range) -> list[tuple[int, str]]:
    """The metadata run that opens (or, read backwards, closes) the file: two or more
    metadata-shaped lines in a row, starting within the first few non-blank lines."""
    run: list[int] = []
    skipped = 0
    for i in order:
        line = lines[i]
        if not line.strip() or line.strip() in ("-->", "<!--"):
            if run:
                break
            continue
        if _metadata_line(line):
            run.append(i)
            if len(run) >= _MAX_RUN:
                break
            continue
        if run or skipped >= _DATA_LINES:
            break
        skipped += 1
    if len(run) < 2 or not any(_KEY_VALUE.match(_PREFIX.sub("", lines[i], count=1)) for i in run):
        return []
    run.sort()
    return [(run[0] + 1, "\n".join(_PREFIX.sub("", lines[i], count=1) for i in run))]


def _metadata_line(line: str) -> bool:
    inner = _PREFIX.sub("", line, count=1)
    return bool(_MEMBER.match(line) or _MEMBER.match(inner) or _KEY_VALUE.match(inner))
