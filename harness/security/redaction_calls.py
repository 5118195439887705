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

Each value is judged as everywhere else (``redaction_shapes.hidden``): a literal under a
secret name, or random key material under any name.
"""

from __future__ import annotations

import re

from harness.security.redaction_shapes import (
    PLACEHOLDER,
    SUBS,
    hidden,
    literal,
    run_passes,
    secret_name,
)

_LITERAL = re.compile(r"[ \t]*(['\"])((?:(?!\1)[^\n\\])*)\1[ \t]*(?:,|$)")
"""One argument of a call or a tuple; the arguments are used only when they are all string literals."""


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
    if last is None or not literal(last.group(2)) or not hidden(last.group(2), "password"):
        return m.group(0)
    a = m.start("args") - m.start(0) + last.start(2)
    return m.group(0)[:a] + PLACEHOLDER + m.group(0)[a + len(last.group(2)):]


_SUBS = {**SUBS, "credential-call": _sub_credential_call}


def redact_calls(text: str) -> str:
    return run_passes("credential-calls", text, _SUBS)
