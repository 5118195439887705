"""Secrets passed to code: the name is the callee or an arrow's key, not a ``name=value`` pair.

``redaction_shapes`` reads ``password="..."`` (a keyword argument, a repr) and ``password:
"..."`` (a JSON, Ruby or Go field). Code passes secrets in other ways, the same in every
language:

- arrow pairs: PHP and Perl ``'password' => '...'``, Ruby ``:password => '...'``;
- setters named for the value: ``setPassword("...")``, ``withApiKey("...")``,
  ``set_password('...')``;
- constructors and functions named for a credential, whose last string argument is the secret
  (the first is often the user): ``HTTPBasicAuth("svc", "...")``, ``NetworkCredential(...)``,
  ``SecretStr("...")``; and a secret-named keyword given a tuple (``auth=("svc", "...")``);
- a string PowerShell is told is plain text (``ConvertTo-SecureString "..." -AsPlainText``).

Each value is judged as everywhere else (``redaction_structured._hidden``): a literal under a
secret name, or random key material under any name.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from harness.security.redaction_shapes import PLACEHOLDER, literal, secret_name
from harness.security.redaction_structured import _hidden

_ARROW = re.compile(r"(?:(?P<q>['\"])(?P<n1>[^\W\d][\w.-]*)(?P=q)|(?<![\w$]):?(?P<n2>[^\W\d]\w*))"
                    r"[ \t]*=>[ \t]*(?P<vq>['\"])(?P<v>(?:(?!(?P=vq))[^\n\\])*)(?P=vq)")
"""``'name' => 'value'``, ``:name => 'value'``, ``name => 'value'``."""

_SETTER = re.compile(r"\b(?:set|with|use|put)_?(?P<n>[A-Za-z]\w*)\([ \t]*(?P<vq>['\"])"
                     r"(?P<v>(?:(?!(?P=vq))[^\n\\])*)(?P=vq)[ \t]*\)")
"""``setPassword("...")``: the property set is the name."""

_CALL = re.compile(r"\b(?P<callee>[A-Za-z_][\w.]*)[ \t]*(?:=[ \t]*)?\((?=[ \t]*['\"])"
                   r"(?P<args>[^()\n]{1,300})\)")
_LITERAL = re.compile(r"[ \t]*(['\"])((?:(?!\1)[^\n\\])*)\1[ \t]*(?:,|$)")
"""A call or a tuple; its arguments are used only when they are all string literals."""

_PLAIN_TEXT = re.compile(r"(?i)(?P<q>['\"])(?P<v>(?:(?!(?P=q))[^\n\\])+)(?P=q)"
                         r"(?=[ \t]+-AsPlainText\b)")


def _sub_value(m: re.Match[str]) -> str:
    name = next((m.group(g) for g in ("n", "n1", "n2") if g in m.re.groupindex and m.group(g)), "")
    if not name or not _hidden(m.group("v"), name):
        return m.group(0)
    a, b = m.start("v") - m.start(0), m.end("v") - m.start(0)
    return m.group(0)[:a] + PLACEHOLDER + m.group(0)[b:]


def _sub_credential_call(m: re.Match[str]) -> str:
    """The last literal of a call or tuple named for a credential (``HTTPBasicAuth(...)``,
    ``auth=(...)``): a password in any shape a literal has (digits or symbols, as under any
    secret name)."""
    by_name = secret_name(m.group("callee").rsplit(".", 1)[-1])
    if not by_name or by_name == "id":
        return m.group(0)
    args, at, last, count = m.group("args"), 0, None, 0
    while at < len(args):
        lit = _LITERAL.match(args, at)
        if not lit:
            return m.group(0)  # not all literals: code, judged elsewhere
        last, at, count = lit, lit.end(), count + 1
    if by_name == "weak" and count < 2:
        return m.group(0)  # `key("x")`; but `auth=("svc", "...")` is a user and a password
    if last is None or not literal(last.group(2)) or not _hidden(last.group(2), "password"):
        return m.group(0)
    a = m.start("args") - m.start(0) + last.start(2)
    return m.group(0)[:a] + PLACEHOLDER + m.group(0)[a + len(last.group(2)):]


def _sub_plain_text(m: re.Match[str]) -> str:
    if not literal(m.group("v")) or not _hidden(m.group("v"), "password"):
        return m.group(0)  # (`"..."` in documentation)
    return m.group("q") + PLACEHOLDER + m.group("q")


_OPENS_LITERAL = re.compile(r"\([ \t]*['\"]")
_PASSES: tuple[tuple[Callable[[str], object], re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (lambda line: "=>" in line, _ARROW, _sub_value),  # (each pass reads only the lines it can match)
    (_OPENS_LITERAL.search, _SETTER, _sub_value),
    (_OPENS_LITERAL.search, _CALL, _sub_credential_call),
    (lambda line: "-asplaintext" in line.lower(), _PLAIN_TEXT, _sub_plain_text),
)


def redact_calls(text: str) -> str:
    if "=>" not in text and not _OPENS_LITERAL.search(text) and "-asplaintext" not in text.lower():
        return text
    lines = text.split("\n")
    for i, line in enumerate(lines):
        for wanted, rx, fn in _PASSES:
            if wanted(line):
                line = rx.sub(fn, line)
        lines[i] = line
    return "\n".join(lines)
