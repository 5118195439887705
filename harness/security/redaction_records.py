"""Secrets in data rows whose column names are elsewhere or absent.

A seed file's ``INSERT ... VALUES (3, 'billing-worker', 'staging', '9f2c...')`` printed by
``grep -n`` (the column list is on another line, or cut off), a fixture tuple, a JSON array
record, a CSV/TSV/pipe row without its header: no name says "secret", so the value is judged by
its shape (generated key material: a long hex string, or mixed letters and digits of high
entropy) and by what sits next to it in the same record. A key sits beside the account it
belongs to (a user or service name, an e-mail, a host); a digest sits beside what it digests (a
file name or path, a version, a hash algorithm's name), and an id or a UUID is no key at all.
Only records with an account next to the value and nothing that says "digest" are redacted.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.security.redaction_shapes import _ID_WORDS, PLACEHOLDER, _parts, looks_random

_CANDIDATE = re.compile(r"(?<![\w+/=-])(?:[0-9a-fA-F]{32,128}|[A-Za-z0-9+/_=.~!#$%^&*-]{16,})"
                        r"(?![\w+/=-])")
"""A quick filter: lines without a 16+ character token are never split into records."""
_GREP_PREFIX = re.compile(r"^(?:[^\s:]+:)?\d+[:-]")
"""``file:12:`` / ``12:`` / ``12-`` of ``grep -n`` (context lines use ``-``)."""
_BRACKETED = re.compile(r"[(\[]((?:[^()\[\]'\"]|'(?:[^'\\\n]|''|\\.)*'|\"(?:[^\"\\\n]|\\.)*\")+)[)\]]")
_FIELD = re.compile(r"\s*('(?:[^'\\]|''|\\.)*'|\"(?:[^\"\\]|\\.)*\"|[^,]*?)\s*(?:,|$)")
_COLUMNS = re.compile(r"\(([^()'\"]+)\)\s*VALUES\b", re.IGNORECASE)

_EMAIL = re.compile(r"[\w.+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)+")
_IP = re.compile(r"\d{1,3}(?:\.\d{1,3}){3}(?::\d{1,5})?")
_HOST = re.compile(r"[A-Za-z0-9][\w-]*(?:\.[A-Za-z0-9][\w-]*)+(?::\d{1,5})?")
_ACCOUNT = re.compile(r"[a-z][a-z0-9]*(?:[-_][a-z0-9]+)*")
_VERSION = re.compile(r"v?\d+(?:\.\d+){1,3}(?:[-+.]\w+)*")
_FILE_EXT = re.compile(r"\.(?:[a-z0-9]{1,5})(?:\.(?:gz|bz2|xz|zst))?$", re.IGNORECASE)
_HOST_END = re.compile(r"\.(?:com|net|org|io|dev|app|cloud|internal|local|lan|corp|"
                       r"example|invalid|test|localhost|svc|cluster)(?::\d+)?$", re.IGNORECASE)
"""How a host name ends (a common top-level domain, a private zone); anything else with a
short last part after a dot (``report.pdf``, ``main.py``: two-letter endings are as often file
types as countries) is read as a file name."""
_HEX = re.compile(r"[0-9a-fA-F]{32,128}")


def _unquote(field: str) -> str:
    if len(field) >= 2 and field[0] == field[-1] and field[0] in "'\"":
        return field[1:-1]
    return field


def _secret_shape(value: str) -> bool:
    """Generated key material: a long hex string (alone a digest; the record decides) or a
    random-looking token (``looks_random``: mixed classes, high entropy, not a word or slug)."""
    return bool(_HEX.fullmatch(value)) or looks_random(value)


def _account(value: str) -> bool:
    """An e-mail, a host, or a user/service name next to the value: whose key it is."""
    if _EMAIL.fullmatch(value) or _IP.fullmatch(value):
        return True
    if _HOST.fullmatch(value):
        return bool(_HOST_END.search(value))
    return 3 <= len(value) <= 40 and bool(_ACCOUNT.fullmatch(value)) and value not in _ID_WORDS


def _digest_context(value: str) -> bool:
    """A neighbour that makes a hex string a digest or a commit: a path, a file name, a version,
    an algorithm's or an identifier word (``sha256``, ``md5``, ``commit``)."""
    if _IP.fullmatch(value):  # (an address, not a version: 10.0.4.12)
        return False
    if "/" in value or "\\" in value or _VERSION.fullmatch(value):
        return True
    if _FILE_EXT.search(value) and not _EMAIL.fullmatch(value) and not _HOST_END.search(value):
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
    prefix = _GREP_PREFIX.match(line)
    start = prefix.end() if prefix else 0
    body = line[start:]
    for sep in ("\t", "|", ",", ";"):
        cells = body.split(sep)
        if len(cells) >= 3 and all(c.strip() and " " not in c.strip() for c in cells):
            hidden = _hidden_fields([c.strip().strip("'\"") for c in cells], None)
            if hidden:
                for i in hidden:
                    cells[i] = cells[i].replace(cells[i].strip().strip("'\""), PLACEHOLDER)
                return line[:start] + sep.join(cells)
            return line
    return line


def _redact_line(line: str) -> str:
    if "(" in line or "[" in line:
        cols = _COLUMNS.search(line)
        names = [n.strip().strip('"`[]') for n in cols.group(1).split(",")] if cols else None
        start = cols.end() if cols else 0
        return line[:start] + _BRACKETED.sub(_sub_bracketed(names), line[start:])
    return _redact_delimited(line)


def redact_records(text: str) -> str:
    if not _CANDIDATE.search(text):
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if len(line) <= 4000 and _CANDIDATE.search(line):
            lines[i] = _redact_line(line)
    return "\n".join(lines)
