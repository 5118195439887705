"""Secrets in tables and data rows: a header names the column, or no name is near the value.

CSV and TSV exports, Markdown and ASCII tables, ``psql``/``mysql``/``sqlite3`` output and aligned
columns (``column -t``, ``kubectl``) carry a secret the same way: a header cell says ``password``
(in any language ``secret_name`` reads) and every cell below it is the secret; no line shows a
``name=value`` pair. A header is a line of two or more short name-like cells, split the way its
table is (``|`` or box-drawing bars, tabs, ``,`` or ``;`` with CSV quoting, runs of two or more
spaces); rule lines (``+----+``, ``|---|``) are skipped; the table ends where a line no longer
splits into as many cells. A column is secret when its header's *last* part names a secret
(``password``, ``Passwort``; not ``password_changed_at``), and each cell is judged as a value
under that name is everywhere else (``redaction_shapes.hidden``).

Data rows without their column names (``redact_records``): an ``INSERT ... VALUES (3,
'billing-worker', 'staging', '9f2c...')`` printed by ``grep -n``, a fixture tuple, a JSON array
record, a CSV/TSV/pipe row without its header. No name says "secret", so a value is judged by
its shape (a long hex string, or random-looking key material) and by its neighbours in the
record: a key sits beside the account it belongs to (a user or service name, an e-mail, a host),
a digest beside what it digests (a path or file name, a version, an algorithm's name), and an id
or a UUID is no key at all. Only values with an account beside them and nothing that says
"digest" are redacted.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.security.redaction_shapes import (
    _ID_WORDS,
    _JOINED_WORDS,
    _SECRET_WORDS,
    PLACEHOLDER,
    SHAPES,
    _parts,
    hidden,
    looks_random,
    secret_name,
    trie_pattern,
)

Span = tuple[int, int]

_BARS = "|│┃║"
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


_TUPLE = re.compile(r"\(((?:[^()'\"]|'(?:[^'\\]|''|\\.)*'|\"(?:[^\"\\]|\\.)*\")*)\)")


def _header(line: str) -> tuple[Callable[[str], list[Span]], list[str], list[int]] | None:
    """``(splitter, header names, indexes of secret columns)`` when ``line`` is a header."""
    sql = SHAPES["sql-columns"].match(line)
    if sql:
        split, names = _sep_cells("\t"), [n.strip().strip('"`[]') for n in sql.group(1).split(",")]
    else:
        found = _splitter(line)
        if found is None:
            return None
        split, names = found, [line[a:b].strip("*_` ") for a, b in found(line)]  # (Markdown emphasis, code)
        if len(names) < 2 or not all(SHAPES["header-cell"].fullmatch(n) for n in names) \
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
    sql = SHAPES["sql-columns"].match(lines[head])
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
        if line.strip() and SHAPES["table-rule"].fullmatch(line):
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




def _redact_html(text: str) -> str:
    """HTML tables: the ``<th>`` row names the columns of the ``<td>`` rows after it."""
    header: list[str] = []

    def row(m: re.Match[str]) -> str:
        nonlocal header
        if m.group(1) is None:  # </table>
            header = []
            return m.group(0)
        cells = list(SHAPES["html-cell"].finditer(m.group(1)))
        if cells and all(c.group(2).lower() == "h" for c in cells):
            header = [re.sub(r"<[^>]*>", "", c.group(3)).strip() for c in cells]
            return m.group(0)
        if len(cells) != len(header):
            return m.group(0)
        body = _hide_cells(m.group(1), [(_strip(m.group(1), *c.span(3)), name)
                                        for c, name in zip(cells, header, strict=True) if _secret_column(name)])
        return m.group(0)[: m.start(1) - m.start(0)] + body + m.group(0)[m.end(1) - m.start(0):]
    return SHAPES["html-row"].sub(row, text)


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


# --- data rows without a header ---------------------------------------------------------------
_BRACKETED = re.compile(r"[(\[]((?:[^()\[\]'\"]|'(?:[^'\\\n]|''|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")+)[)\]]")
_FIELD = re.compile(r"\s*('(?:[^'\\]|''|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[^,]*?)\s*(?:,|$)")
_COLUMNS = re.compile(r"\(([^()'\"]+)\)\s*VALUES\b", re.IGNORECASE)



def _unquote(field: str) -> str:
    if len(field) >= 2 and field[0] == field[-1] and field[0] in "'\"":
        return field[1:-1]
    return field


def _secret_shape(value: str) -> bool:
    """Generated key material: a long hex string (alone a digest; the record decides) or a
    random-looking token (``looks_random``: mixed classes, high entropy, not a word or slug)."""
    return bool(SHAPES["hex"].fullmatch(value)) or looks_random(value)


def _account(value: str) -> bool:
    """An e-mail, a host, or a user/service name next to the value: whose key it is."""
    if SHAPES["email"].fullmatch(value) or SHAPES["ip"].fullmatch(value):
        return True
    if SHAPES["host"].fullmatch(value):
        return bool(SHAPES["host-end"].search(value))
    return 3 <= len(value) <= 40 and bool(SHAPES["account"].fullmatch(value)) and value not in _ID_WORDS


def _digest_context(value: str) -> bool:
    """A neighbour that makes a hex string a digest or a commit: a path, a file name, a version,
    an algorithm's or an identifier word (``sha256``, ``md5``, ``commit``)."""
    if SHAPES["ip"].fullmatch(value):  # (an address, not a version: 10.0.4.12)
        return False
    if "/" in value or "\\" in value or SHAPES["version"].fullmatch(value):
        return True
    if SHAPES["file-ext"].search(value) and not SHAPES["email"].fullmatch(value) and not SHAPES["host-end"].search(value):
        return True
    return bool(set(_parts(value)) & _ID_WORDS) or bool(re.fullmatch(r"(?i)(?:sha|md|blake)\d*\w*", value))


def _hidden_fields(values: list[str], names: list[str] | None) -> set[int]:
    """Indexes of the fields of one record that hold a credential."""
    if len(values) < 2:
        return set()
    shaped = {i for i, v in enumerate(values) if _secret_shape(v)}
    if names and len(names) == len(values):  # a column named for an id or digest: not a key
        shaped = {i for i in shaped if not set(_parts(names[i])) & _ID_WORDS}
    if not shaped:
        return set()
    others = [v for i, v in enumerate(values) if i not in shaped]
    if any(_digest_context(v) for v in others) or not any(_account(v) for v in others):
        return set()
    return shaped


def _sub_bracketed(names: list[str] | None) -> Callable[[re.Match[str]], str]:
    """The credential fields of a ``(...)``/``[...]`` record replaced, quotes kept."""
    def sub(m: re.Match[str]) -> str:
        body = m.group(1)
        fields = [(f.start(1), f.end(1)) for f in _FIELD.finditer(body) if f.end() > f.start()]
        if len(fields) < 3 or not any(body[a] in "'\"" for a, b in fields if a < b):
            return m.group(0)
        values = [_unquote(body[a:b]) for a, b in fields]
        for i in sorted(_hidden_fields(values, names), reverse=True):
            a, b = fields[i]
            quote = body[a] if body[a] in "'\"" else ""
            body = body[:a] + quote + PLACEHOLDER + quote + body[b:]
        return m.group(0)[0] + body + m.group(0)[-1]
    return sub


def _redact_delimited(line: str) -> str:
    """A CSV, TSV or pipe row without its header (``17,mailer,smtp.example.net,587,KEY``)."""
    prefix = SHAPES["grep-prefix"].match(line)
    start = prefix.end() if prefix else 0
    body = line[start:]
    for sep in ("\t", "|", ",", ";"):
        cells = body.split(sep)
        if len(cells) >= 3 and all(c.strip() and " " not in c.strip() for c in cells):
            found = _hidden_fields([c.strip().strip("'\"") for c in cells], None)
            for i in found:
                cells[i] = cells[i].replace(cells[i].strip().strip("'\""), PLACEHOLDER)
            return line[:start] + sep.join(cells) if found else line
    return line


def _redact_line(line: str) -> str:
    if "(" in line or "[" in line:
        cols = _COLUMNS.search(line)
        names = [n.strip().strip('"`[]') for n in cols.group(1).split(",")] if cols else None
        start = cols.end() if cols else 0
        return line[:start] + _BRACKETED.sub(_sub_bracketed(names), line[start:])
    return _redact_delimited(line)


def redact_records(text: str) -> str:
    if not SHAPES["record-token"].search(text):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if len(line) <= 4000 and SHAPES["record-token"].search(line):
            lines[i] = _redact_line(line)
    return "\n".join(lines)
