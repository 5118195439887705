"""Secrets in tables: the header names the column, the value sits on another line.

A CSV export, a TSV dump, a Markdown or ASCII table, ``psql``/``mysql``/``sqlite3`` output and
``column -t`` or ``kubectl``-style aligned columns all carry a secret the same way: a header
cell says ``password`` (in any language ``redaction_shapes.secret_name`` reads), and every cell
below it in that column is the secret. No single line shows a ``name=value`` pair, so the other
passes cannot see it.

A header is a line of two or more short name-like cells, split the way its table is (``|`` or
box-drawing bars, tabs, ``,`` or ``;`` with CSV quoting, runs of two or more spaces); rule lines
(``+----+``, ``|---|``, ``├──┼``) are skipped; the table ends where a line no longer splits
into as many cells. A column is secret when its header's *last* part names a secret
(``password``, ``api_secret``, ``Passwort``); ``password_changed_at`` or ``token_count`` are
about a secret and stay. Each cell is judged as a value under that name is everywhere else
(a literal, not ``<your-password>`` or ``$VAR``; a lone ``key``/``token`` header needs a
random-looking value).
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.security.redaction_shapes import (
    _JOINED_WORDS,
    _SECRET_WORDS,
    PLACEHOLDER,
    _parts,
    hidden,
    secret_name,
    trie_pattern,
)

Span = tuple[int, int]

_BARS = "|│┃║"
_RULE = re.compile(r"[\s\-+=|:─━┼┬┴├┤┌┐└┘│┃╞╪╡╔╗╚╝═║╠╣╦╩╬╇╋┏┓┗┛┠┨┯┷]*")
_HEADER_CELL = re.compile(r"[^\W\d][\w .#/()-]{0,39}")
_TRIGGER = re.compile(trie_pattern(set(_SECRET_WORDS) | set(_JOINED_WORDS)))
"""A header names a secret, so it holds one of the secret words: lines without one are never
tried as headers. Searched once in the lower-cased text."""
MAX_ROWS = 10_000


def _bar_cells(line: str) -> list[Span]:
    cuts = [i for i, c in enumerate(line) if c in _BARS]
    bounds = [-1, *cuts, len(line)]
    spans = [(a + 1, b) for a, b in zip(bounds, bounds[1:], strict=False)]
    if cuts and not line[: cuts[0]].strip():
        spans = spans[1:]  # a leading border
    if cuts and not line[cuts[-1] + 1:].strip():
        spans = spans[:-1]  # a trailing border
    return [_strip(line, a, b) for a, b in spans]


def _sep_cells(sep: str) -> Callable[[str], list[Span]]:
    """Cells between ``sep`` (tab, ``,``, ``;``); a double-quoted field may hold ``sep``."""
    blank = "[ ]*" if sep == "\t" else "[ \t]*"
    field = re.compile(rf'{blank}(?:"(?:[^"]|"")*"|[^{re.escape(sep)}"\n]*){blank}')

    def cells(line: str) -> list[Span]:
        spans, at = [], 0
        while True:
            m = field.match(line, at)
            if not m:
                return []
            spans.append(_strip(line, m.start(), m.end(), quotes=True))
            if m.end() >= len(line):
                return spans
            if line[m.end()] != sep:
                return []  # a quote in the middle of a field: not this kind of table
            at = m.end() + 1
    return cells


def _aligned_cells(line: str) -> list[Span]:
    """Cells separated by two or more spaces (``column -t``, ``kubectl get``, ``docker ps``)."""
    return [m.span() for m in re.finditer(r"\S+(?: \S+)*", line)]


def _strip(line: str, a: int, b: int, quotes: bool = False) -> Span:
    while a < b and line[a].isspace():
        a += 1
    while b > a and line[b - 1].isspace():
        b -= 1
    if quotes and b - a >= 2 and line[a] == line[b - 1] == '"':
        a, b = a + 1, b - 1
    return a, b


def _inner(line: str, a: int, b: int) -> Span:
    """A cell's value inside Markdown code or emphasis marks (`` `...` ``, ``**...**``)."""
    for mark in ("`", "**"):
        n = len(mark)
        if b - a > 2 * n and line.startswith(mark, a) and line[:b].endswith(mark):
            return a + n, b - n
    return a, b


def _splitter(line: str) -> Callable[[str], list[Span]] | None:
    """How the table whose header is ``line`` splits its lines."""
    if any(c in line for c in _BARS):
        return _bar_cells
    if "\t" in line:
        return _sep_cells("\t")
    if "  " in line.strip():
        return _aligned_cells
    for sep in (",", ";"):
        if sep in line:
            return _sep_cells(sep)
    return None


def _secret_column(name: str) -> bool:
    """The header's last part names a secret (``db_pass``, ``Passwort``, ``contraseña``)."""
    parts = _parts(name)
    if not parts or not secret_name(name):
        return False
    return parts[-1].endswith(_SECRET_WORDS) or "".join(parts).endswith(_JOINED_WORDS)


def _hide_cells(line: str, cells: list[tuple[Span, str]]) -> str:
    """``line`` with each cell (its span, the name of its column) hidden where its value is a
    secret under that name; right to left, so that the spans before stay valid."""
    for (a, b), name in sorted(cells, reverse=True):
        a, b = _inner(line, a, b)
        if a < b and hidden(line[a:b], name):
            line = line[:a] + PLACEHOLDER + line[b:]
    return line


_SQL_COLUMNS = re.compile(r"(?i)^\s*(?:INSERT\s+INTO|COPY)\s+[\w.\"`\[\]]+\s*\(([^()]+)\)\s*(VALUES\s*)?")
"""``INSERT INTO t (a, b) VALUES (...)`` and pg_dump's ``COPY t (a, b) FROM stdin;``: the column
list is the header of the values after it (on the same line, or the tab-separated lines
below)."""
_TUPLE = re.compile(r"\(((?:[^()'\"]|'(?:[^'\\]|''|\\.)*'|\"(?:[^\"\\]|\\.)*\")*)\)")


def _header(line: str) -> tuple[Callable[[str], list[Span]], list[str], list[int]] | None:
    """``(splitter, header names, indexes of secret columns)`` when ``line`` is a header."""
    sql = _SQL_COLUMNS.match(line)
    if sql:
        split, names = _sep_cells("\t"), [n.strip().strip('"`[]') for n in sql.group(1).split(",")]
    else:
        found = _splitter(line)
        if found is None:
            return None
        split, names = found, [line[a:b].strip("*_` ") for a, b in found(line)]  # (Markdown emphasis, code)
        if len(names) < 2 or not all(_HEADER_CELL.fullmatch(n) for n in names) \
                or any(len(n.split()) > 4 for n in names):
            return None
    secret = [i for i, n in enumerate(names) if _secret_column(n)]
    return (split, names, secret) if secret else None


def _redact_rows(lines: list[str], head: int) -> int:
    """Hide the secret cells of the rows under the header ``lines[head]``; the index after the
    last row."""
    found = _header(lines[head])
    if found is None:
        return head + 1
    split, names, secret = found
    sql = _SQL_COLUMNS.match(lines[head])
    if sql and sql.group(2):  # the VALUES of an INSERT: the secret columns of each `(...)` tuple
        def values(t: re.Match[str]) -> str:
            spans = _sep_cells(",")(t.group(1).replace("'", '"'))  # (SQL quotes strings with ')
            if len(spans) != len(names):
                return t.group(0)
            return f"({_hide_cells(t.group(1), [(spans[c], names[c]) for c in secret])})"
        lines[head] = lines[head][:sql.end()] + _TUPLE.sub(values, lines[head][sql.end():])
        return head + 1
    if len(names) == 2 and secret == [0]:
        # `password | ...` of psql's expanded display, a two-column key/value listing: a row
        pair = _hide_cells(lines[head], [(split(lines[head])[1], names[0])])
        if pair != lines[head]:
            lines[head] = pair
            return head + 1
    i = head + 1
    while i < len(lines) and i - head <= MAX_ROWS:
        line = lines[i]
        if line.strip() and _RULE.fullmatch(line):
            i += 1
            continue
        spans = split(line) if line.strip() else []
        if len(spans) == len(names) + 1 and line[slice(*spans[0])].isdigit():
            spans = spans[1:]  # a data frame's row index, a column without a header
        if len(spans) != len(names):
            break
        lines[i] = _hide_cells(line, [(spans[c], names[c]) for c in secret])
        i += 1
    return i


_HTML_ROW = re.compile(r"(?is)<tr\b[^>]*>(.{0,4000}?)</tr>|</table>")
_HTML_CELL = re.compile(r"(?is)(<t([hd])\b[^>]*>)(.{0,1000}?)(</t\2>)")


def _redact_html(text: str) -> str:
    """HTML tables: the ``<th>`` row names the columns of the ``<td>`` rows after it."""
    header: list[str] = []

    def row(m: re.Match[str]) -> str:
        nonlocal header
        if m.group(1) is None:  # </table>
            header = []
            return m.group(0)
        cells = list(_HTML_CELL.finditer(m.group(1)))
        if cells and all(c.group(2).lower() == "h" for c in cells):
            header = [re.sub(r"<[^>]*>", "", c.group(3)).strip() for c in cells]
            return m.group(0)
        if len(cells) != len(header):
            return m.group(0)
        body = _hide_cells(m.group(1), [(_strip(m.group(1), *c.span(3)), name)
                                        for c, name in zip(cells, header, strict=True) if _secret_column(name)])
        return m.group(0)[: m.start(1) - m.start(0)] + body + m.group(0)[m.end(1) - m.start(0):]
    return _HTML_ROW.sub(row, text)


def _candidate_lines(text: str) -> list[int]:
    """Indexes of the lines holding a secret word, in order (one search of the whole text)."""
    lowered = text.lower()
    found: list[int] = []
    line = at = 0
    for m in _TRIGGER.finditer(lowered):
        line += lowered.count("\n", at, m.start())
        at = m.start()
        if not found or found[-1] != line:
            found.append(line)
    return found


def redact_tables(text: str) -> str:
    candidates = _candidate_lines(text)
    if not candidates:
        return text
    if "<t" in text and ("<th" in text or "<TH" in text):
        text = _redact_html(text)
    lines = text.split("\n")
    done = 0
    for i in candidates:
        if i >= done:
            done = _redact_rows(lines, i)
    return "\n".join(lines)
