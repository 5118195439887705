"""Secrets found by the position the syntax gives them, not by their name or their shape.

``redaction_shapes`` judges ``NAME=value`` pairs by the name and the value. Some formats put a
credential where no ``=`` or ``:`` names it; their syntax alone says what the value is:

- netrc (``machine h login u password p``, one line or one token pair per line);
- pgpass (``host:port:database:user:password``);
- command-line flags: the conventional short password flag (``mysql -pSECRET``, ``sshpass -p
  SECRET``, ``redis-cli -a``, ``ldapsearch -w``: on a line that connects as someone),
  ``user:password`` after ``-u``/``--user`` (curl, wget; ``user%password`` of ``-U``),
  single-dash long flags under a secret name (``-storepass``, openssl's ``-passin pass:...``),
  and any short flag whose value reads like generated key material;
- query strings of URLs without a scheme (``GET /dl?file=a&signature=...``: request lines, paths)
  and form-encoded bodies (``-d 'grant_type=...&client_secret=...'``).

Each value must still read as a literal: templates (``$PASSWORD``), placeholders (``*``,
``<pass>``) and numbers (ports, ``uid:gid``) stay.
"""

from __future__ import annotations

import re

from harness.security.redaction_shapes import (
    _QUERY,
    _SECRET_WORDS,
    _WEAK_WORDS,
    PLACEHOLDER,
    SUBS,
    _classes,
    _worth_hiding,
    hidden,
    hide,
    hide_if,
    literal,
    looks_random,
    run_passes,
    secret_name,
    sub_query,
    trie_pattern,
)

_NETRC_PAIR = re.compile(r"\bpassword[ \t]+(\S+)")
_CONNECTS = re.compile(r"(?<![\w-])(?:-[uUlhD][ \t]*[^\s-]|--(?:user(?:name)?|login|host)\b)"
                       r"|\w@[\w-]+(?:\.[\w-]+)*(?=[\s:]|$)|://|\b(?:login|auth)\b", re.IGNORECASE)
"""A command that connects somewhere as someone: a user or host flag, ``user@host``, a URL,
``login``/``auth`` (``docker login -u ci -p ...``, ``redis-cli -h cache -a ...``, ``sshpass -p
... ssh deploy@host``, ``ldapsearch -D ... -w ...``). On such a line the conventional password
flags' values are passwords even when they read as words and digits."""
_PASSWORD_LETTERS = "pawP"


def _line_of(m: re.Match[str]) -> str:
    text = m.string
    end = text.find("\n", m.end())
    return text[text.rfind("\n", 0, m.start()) + 1:end if end >= 0 else len(text)]


def _password_like(value: str) -> bool:
    """A human-made password: a literal with letters and a digit or a symbol, 8 characters or
    a symbol, not a number, port map, path, file or host name."""
    if not _worth_hiding(value, True) or not re.search(r"[^\W\d_]", value) \
            or re.search(r"\.[A-Za-z]{2,5}$|^[\w-]+(?:\.[\w-]+){2,}$|/", value):
        return False
    return len(value) >= 8 or bool(re.search(r"[^\w.-]", value))


def _short_flag(value: str, letter: str, m: re.Match[str]) -> bool:
    """``-p VALUE`` is a password when it reads like one (``ssh -p 2222``, ``mysql -p db``,
    ``mkdir -p dir`` stay), and ``-p``/``-a``/``-w`` on a command that connects as someone
    (``_CONNECTS``) when it reads like a human-made password; any other short flag only when
    its value is random in all three character classes (a ULID or a pod name after ``-r`` or
    ``-n`` is an identifier)."""
    if not literal(value) or "=" in value:
        return False  # (`-d 'a=1&b=2'`: a form body, whose pairs are judged one by one)
    if letter in _PASSWORD_LETTERS and _password_like(value) and _CONNECTS.search(_line_of(m)):
        return True
    if letter == "p":
        return _worth_hiding(value, "weak")
    return _classes(value) == 3 and looks_random(value, 16)


def _sub_user_flag(m: re.Match[str]) -> str:
    user, at = (m.group(2), 3) if m.group(1) else (m.group(4), 5)
    secret = m.group(at) if m.group(1) else m.group(at).rstrip(").,;]}>")  # (prose around it)
    if not literal(secret) or not literal(user) or re.fullmatch(r"\d+", secret) or len(secret) < 3:
        return m.group(0)  # templates, uid:gid, `user:pw` in documentation
    start = m.start(at) - m.start(0)
    return m.group(0)[:start] + PLACEHOLDER + m.group(0)[start + len(secret):]


def _single_dash(value: str, name: str, m: re.Match[str]) -> bool:
    by_name = secret_name(name) or name.lower().startswith("pass")  # -passin, -passout
    return bool(by_name or m.group(3)) and literal(value) and _worth_hiding(value, by_name or True)


def _slash_option(value: str, name: str, m: re.Match[str]) -> bool:
    paired = name.lower() == "p" and re.search(r"(?i)(?<![\w/])/u(?:ser)?:\S", _line_of(m))
    return bool(secret_name(name) or paired) and hidden(value, "password")


_SUBS = {
    **SUBS,
    "netrc": lambda m: _NETRC_PAIR.sub(lambda p: hide(p, 1) if literal(p.group(1)) else p.group(0), m.group(0)),
    "user-flag": _sub_user_flag,
    "single-dash": hide_if(_single_dash),
    "slash": hide_if(_slash_option),
    "glued-p": hide_if(lambda v, n, m: hidden(v, "password") and re.search(r"[A-Za-z]", v)),
    "short-flag": hide_if(_short_flag),
    "query": lambda m: _QUERY.sub(sub_query, m.group(0)),
    "form": lambda m: _QUERY.sub(sub_query, "&" + m.group(0))[1:],
}


# Prose and log messages: a password word, then the value (`logging in with password X`,
# `Passwort ist X`, `password was set to X`). Only the strong words (not `key`, `token`), only
# a value that reads as a made-up password (letters with digits or symbols).
_STRONG = re.compile(r"(?<![\w-])(?:" + trie_pattern(set(_SECRET_WORDS) - set(_WEAK_WORDS)) + r")"
                     r"(?=[ \t])", re.IGNORECASE)
_AFTER_WORD = re.compile(r"[ \t]+(?:(?:is|was|ist|est|es|set to|of)[ \t]+)?(['\"]?)"
                         r"([^\s'\"]{6,}?)\1(?=[\s,;)]|\.?$|\.\s)")


def _redact_prose(text: str) -> str:
    if len(text) > 200_000:
        return text  # (logs this long are read by the other passes; this one is a fallback)
    out, done = [], 0
    for w in _STRONG.finditer(text):
        if w.start() < done:
            continue
        m = _AFTER_WORD.match(text, w.end())
        if not m or not literal(m.group(2)) or not _password_like(m.group(2)) \
                or secret_name(m.group(2).strip(".,")):
            continue
        out.append(text[done:m.start(2)] + PLACEHOLDER)
        done = m.end(2)
    return "".join(out) + text[done:] if out else text


def redact_positions(text: str) -> str:
    return _redact_prose(run_passes("syntax-positions", text, _SUBS))
