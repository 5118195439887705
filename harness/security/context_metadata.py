"""Front matter and other file metadata of any format (context scanner, ``any_front_matter``).

Front matter comes in many syntaxes (YAML between ``---``, TOML between ``+++``, JSON objects,
``;;;`` fences, MDX ``export const``, INI sections, ``<meta>`` tags, org ``#+KEY:`` lines ...),
and files carry other metadata that tools parse and a rendered page hides: Emacs ``-*- ... -*-``
lines and ``Local Variables:`` blocks, Vim modelines, XML processing instructions, and runs of
``key: value`` lines at the top or bottom of a file (mail headers, EditorConfig, PEP 723
``# /// script`` blocks, AsciiDoc ``:attr:`` lines, reStructuredText ``.. meta::`` fields). A
parser per syntax always leaves the next one out, so a block is found by shape: a fence line or
a structural first line (``leading_header``), the syntaxes that announce themselves anywhere,
and a run of metadata-shaped lines at either end of the file (``metadata_blocks``).

A value in a data block is not a quotation: ``agent: 'Ignore ...'`` asks, where prose that says
``the page said 'ignore ...'`` quotes. So string literals are unquoted and the block is judged
like front matter.
"""

from __future__ import annotations

import json
import re
import tomllib

import yaml

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
    unquoted; the leading header ``leading_header`` finds is left out. ``base``: tags a
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
    filled = [i + 1 for i, line in enumerate(lines) if line.strip()]
    for n in sorted(set(filled[:5] + filled[-5:])):  # modelines sit on the first or last lines
        if vim := _VIM_MODELINE.search(lines[n - 1]):
            out.append((n, (vim.group(1) or vim.group(2)).replace(":", "\n")))
    if leading_header(text) is None:
        out += _run(lines, range(len(lines)))
    out += _run(lines, range(len(lines) - 1, -1, -1))
    # Each line's value unquoted when the quoted literal IS the value (``key: "..."``): a sentence
    # that quotes a phrase inside it stays quoted.
    return [(n, "\n".join(_VALUE.sub(lambda m: m.group(1) + unquoted(m.group(2)).strip(), line)
                          for line in block.split("\n")), base)
            for blocks, base in ((out, 0.0), (tags, _TAG_BASE)) for n, block in blocks if block.strip()]


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
        inner = _PREFIX.sub("", line, count=1)
        if _MEMBER.match(line) or _MEMBER.match(inner) or _KEY_VALUE.match(inner):
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


_YAML_LOADER = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_FRONT_MATTER_VALUES = 500
_FRONT_MATTER = re.compile(r"\A---[ \t]*\n(.*?)\n(?:---|\.\.\.)[ \t]*(?:\n|\Z)", re.DOTALL)
_TOML_FRONT_MATTER = re.compile(r"\A\+\+\+[ \t]*\n(.*?)\n\+\+\+[ \t]*(?:\n|\Z)", re.DOTALL)


def front_matter(text: str, any_syntax: bool) -> list[tuple[str, int, str]]:
    """``(kind, offset, key: value lines)`` of the front matter ``text`` opens with: YAML's (the
    raw block when it is not valid YAML); with ``any_syntax``, TOML's or JSON's and a leading
    header of any other syntax, found by shape."""
    if m := _FRONT_MATTER.match(text):
        try:
            body = as_lines(yaml.load(m.group(1), Loader=_YAML_LOADER))  # a safe loader
        except yaml.YAMLError:
            body = m.group(1)
        return [("the YAML front matter", 0, body)]
    if not any_syntax:
        return []
    out = [("the front matter", 0, other_front_matter(text) or "")]
    if (header := leading_header(text)) is not None:
        out.append(("the front matter", header[0], unquoted(header[1])))
    return out


def other_front_matter(text: str) -> str | None:
    """The ``key: value`` lines of a TOML (``+++`` fenced, as Hugo writes it) or JSON (a ``{...}``
    object that opens the file) front-matter block (a TOML block that does not parse: its
    literals unquoted); None when the file has neither."""
    if m := _TOML_FRONT_MATTER.match(text):
        try:
            return as_lines(tomllib.loads(m.group(1)))
        except tomllib.TOMLDecodeError:
            return unquoted(m.group(1))  # its literals are values all the same
    if text.lstrip().startswith("{"):
        try:
            data, _ = json.JSONDecoder().raw_decode(text.lstrip())
        except ValueError:
            return None
        return as_lines(data) if isinstance(data, dict) else None
    return None


def as_lines(parsed: object) -> str:
    """Parsed front matter as ``key: value`` lines, keys spelled as words (so a quoted value
    reads as the sentence it is)."""
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
