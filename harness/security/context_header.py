"""The leading header of a context file, whatever its syntax (context scanner, ``any_front_matter``).

Front matter comes in many syntaxes: YAML between ``---`` lines (closed by ``---`` or ``...``),
TOML between ``+++``, JSON or JSON5 objects, ``;;;``-fenced blocks, MDX ``export const``, HCL,
INI sections, EDN maps, ``<meta>`` tags, org ``#+KEY:`` lines, pandoc ``%`` title blocks. A parser
per syntax always leaves the next one out, so the header is found by shape instead: a block
opened by a fence line, or a leading block whose first line is structural. What matters for the
scan is that a value in a data block is not a quotation: ``agent: 'Ignore ...'`` asks, where
prose that says ``the page said 'ignore ...'`` quotes. So the header's string literals are
unquoted and the text judged like front matter, whatever the syntax.
"""

from __future__ import annotations

import re

_MAX_LINES = 200
"""A header longer than this is a document, not metadata."""
# A fence: three or more of one punctuation character alone on a line. Backticks and tildes open
# code blocks (shown as code when rendered), so they are not headers.
_FENCE = re.compile(r"^(([-+=;*#%/_.:<>|^])\2{2,})[ \t]*(?:[A-Za-z][\w-]{0,15})?\s*$")
"""A fence may name its syntax (``---json``, ``---toml``, ``+++yaml``); it closes without the name."""
# First lines that open a data block in some syntax: an object or array, a module export or
# constant, an INI/TOML section, an XML declaration or <meta> tag, org or pandoc metadata.
_STRUCTURAL = re.compile(
    r"^(?:[{\[]\s*$|\{\s*[\"':\w/]|\[\s*[{\"']|export\s+(?:const|default|let|var)\b|module\.exports\b"
    r"|(?:const|let|var)\s+\w+\s*=|\[[\w. -]+\]\s*$|<\?xml\b|<meta\b|#\+\w+:|%\s|[\w-]+\s*\{\s*$)",
    re.IGNORECASE,
)
_HEADING = re.compile(r"^#{1,6}\s")
# A string literal that is a value: after a key separator, an opening bracket, a comma, or at the
# start of a line (triple quotes first; a backslash escapes the quote).
_LITERAL = re.compile(
    r"""(^|[:=,{\[(]|\s)[ \t]*("""
    r'''"""(?:.|\n)*?"""|\'\'\'(?:.|\n)*?\'\'\''''
    r"""|"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')""",
    re.MULTILINE,
)


def leading_header(text: str) -> tuple[int, str] | None:
    """``(offset, block)`` of the header ``text`` opens with, or None when it opens with prose or a
    heading. The block ends at the matching fence (``---`` may close with ``...``), or, for an
    unfenced block, at the first blank line outside brackets or the first Markdown heading."""
    lines = text.split("\n")
    first = next((i for i, line in enumerate(lines) if line.strip()), None)
    if first is None:
        return None
    offset = sum(len(line) + 1 for line in lines[:first])
    head = lines[first].strip().lstrip("\ufeff")
    if m := _FENCE.match(head):
        closers = {head, m.group(1)} | ({"..."} if m.group(2) == "-" else set())
        for j in range(first + 1, min(len(lines), first + _MAX_LINES)):
            if lines[j].strip() in closers:
                return offset, "\n".join(lines[first + 1:j])
        return None
    if not _STRUCTURAL.match(head):
        return None
    depth = 0
    block: list[str] = []
    for line in lines[first:first + _MAX_LINES]:
        if block and ((not line.strip() and depth <= 0) or _HEADING.match(line)):
            break
        block.append(line)
        depth += sum(line.count(c) for c in "{[(") - sum(line.count(c) for c in "}])")
    return offset, "\n".join(block)


def unquoted(block: str) -> str:
    """``block`` with the quotes of its string literals removed (escapes undone), so a value reads
    as the sentence it is."""

    def strip(m: re.Match[str]) -> str:
        lit = m.group(2)
        inner = lit[3:-3] if lit[:3] in ('"""', "'''") else lit[1:-1]
        return m.group(1) + " " + re.sub(r"\\(.)", r"\1", inner)

    return _LITERAL.sub(strip, block)
