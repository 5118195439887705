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
from collections.abc import Callable

from harness.security.redaction_shapes import (
    _QUERY,
    _SECRET_WORDS,
    _WEAK_WORDS,
    PLACEHOLDER,
    _sub_query,
    _worth_hiding,
    literal,
    looks_random,
    secret_name,
)
from harness.security.redaction_words import trie_pattern


def _hide(text: str, value: str) -> str:
    return text.replace(value, PLACEHOLDER, 1)


# netrc: a line with the `machine`/`default` keyword makes every `password` on it a credential;
# a line holding only `password VALUE` is the multi-line layout (judged like a named value).
_NETRC_LINE = re.compile(r"(?m)^.*\b(?:machine[ \t]+\S+|default)\b.*\bpassword[ \t]+\S.*$")
_NETRC_PAIR = re.compile(r"\bpassword[ \t]+(\S+)")
_NETRC_ALONE = re.compile(r"(?m)^([ \t]*password[ \t]+)(\S+)[ \t]*$")


def _sub_netrc_line(m: re.Match[str]) -> str:
    return _NETRC_PAIR.sub(lambda p: _hide(p.group(0), p.group(1)) if literal(p.group(1))
                           else p.group(0), m.group(0))


def _sub_netrc_alone(m: re.Match[str]) -> str:
    value = m.group(2)
    return m.group(1) + PLACEHOLDER if literal(value) and _worth_hiding(value, True) \
        else m.group(0)


# pgpass: host:port:database:user:password, one entry per line (a port or `*` second).
_PGPASS = re.compile(r"(?m)^([^\s:#]+:(?:\d{1,5}|\*):[^\s:]+:[^\s:]+:)(\S+)[ \t]*$")


def _sub_pgpass(m: re.Match[str]) -> str:
    return m.group(1) + PLACEHOLDER if literal(m.group(2)) else m.group(0)


# Short flags: `-pVALUE` (glued: the mysql family's password), `-X VALUE` (spaced).
# An argument (after a blank, never a line's start: ``-parser=`` in a diff), no `=` in it.
_SHORT_GLUED_P = re.compile(r"(?<=[ \t])(-p)([^\s\"'=-][^\s\"'=]*)(?=\s|$)")
_SHORT_SPACED = re.compile(r"(?<=[ \t])-([A-Za-z])[ \t]+(['\"]?)([^\s'\"-][^\s'\"]*)\2(?=\s|$)")


def _sub_glued_p(m: re.Match[str]) -> str:
    value = m.group(2)
    if literal(value) and _worth_hiding(value, True) and re.search(r"[A-Za-z]", value):
        return m.group(1) + PLACEHOLDER
    return m.group(0)


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


def _sub_spaced(m: re.Match[str]) -> str:
    """``-p VALUE`` is a password when it reads like one (``ssh -p 2222``, ``mysql -p db``,
    ``mkdir -p dir`` stay), and ``-p``/``-a``/``-w`` on a command that connects as someone
    (``_CONNECTS``) when it reads like a human-made password; any other short flag only when
    its value is random in all three character classes (a ULID or a pod name after ``-r`` or
    ``-n`` is an identifier)."""
    letter, value = m.group(1), m.group(3)
    if not literal(value) or "=" in value:
        return m.group(0)  # (`-d 'a=1&b=2'`: a form body, whose pairs are judged one by one)
    if letter in _PASSWORD_LETTERS and _password_like(value) and _CONNECTS.search(_line_of(m)):
        hide = True
    elif letter == "p":
        hide = _worth_hiding(value, "weak")
    else:
        classes = all(re.search(rx, value) for rx in (r"[a-z]", r"[A-Z]", r"\d"))
        hide = classes and looks_random(value, 16)
    return _hide(m.group(0), value) if hide else m.group(0)


# `user:password` after -u / --user / --proxy-user ... (curl, wget, httpie's -a alike), and
# smbclient's `-U user%password`; the `-u` may close a cluster of short flags (`curl -su`,
# `-fsSLu`) or hold its value glued (`-uuser:pw`); quoted, the password may hold spaces.
_USER_FLAG = re.compile(r"(?<![\w-])(?:-[A-Za-z]{0,6}[uU](?:=|[ \t]+)|-u(?=[^\s-])|-a[ \t]+|"
                        r"--(?:[\w-]+-)?user(?:=|[ \t]+))(?:(['\"])([^\s:%'\"/]+)[:%](\S[^'\"\n]*)\1|"
                        r"([^\s:%'\"/]+)[:%]([^\s'\"`]*\w[^\s'\"`]*))")


def _sub_user_flag(m: re.Match[str]) -> str:
    user, at = (m.group(2), 3) if m.group(1) else (m.group(4), 5)
    secret = m.group(at) if m.group(1) else m.group(at).rstrip(").,;]}>")  # (prose around it)
    if not literal(secret) or not literal(user) or re.fullmatch(r"\d+", secret) or len(secret) < 3:
        return m.group(0)  # templates, uid:gid, `user:pw` in documentation
    start = m.start(at) - m.start(0)
    return m.group(0)[:start] + PLACEHOLDER + m.group(0)[start + len(secret):]


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


# Windows-style options (`xfreerdp /u:admin /p:...`, `net use ... /user:x`, `cmdkey /pass:...`):
# a secret name, or the lone `p` beside a `/u:` or `/user:`.
_SLASH_OPTION = re.compile(r"(?<![\w/:.])/([A-Za-z]\w*):(['\"]?)([^\s'\"]+)\2")


def _sub_slash_option(m: re.Match[str]) -> str:
    name, value = m.group(1), m.group(3)
    paired = name.lower() == "p" and re.search(r"(?i)(?<![\w/])/u(?:ser)?:\S", _line_of(m))
    if not (secret_name(name) or paired) or not literal(value) or not _worth_hiding(value, True):
        return m.group(0)
    return m.group(0)[: m.start(3) - m.start(0)] + PLACEHOLDER + m.group(0)[m.end(3) - m.start(0):]


# Single-dash long flags (openssl, Java's keytool, Go's flag package): `-storepass X`,
# `-password=X`, openssl's `-passin pass:X` (its `pass:` prefix says a literal follows).
_LONG_SINGLE = re.compile(r"(?<![\w-])-([A-Za-z][\w-]{2,})(?:=|[ \t]+)(['\"]?)(pass:)?"
                          r"([^\s'\"-][^\s'\"]*)\2")


def _sub_long_single(m: re.Match[str]) -> str:
    name, value = m.group(1), m.group(4)
    by_name = secret_name(name) or name.lower().startswith("pass")  # -passin, -passout
    if not (by_name or m.group(3)) or not literal(value) or not _worth_hiding(value, by_name or True):
        return m.group(0)
    return m.group(0)[: m.start(4) - m.start(0)] + PLACEHOLDER + m.group(0)[m.end(4) - m.start(0):]


# A query string with no scheme before it (request lines, relative links, proxied paths).
_BARE_QUERY = re.compile(r"(?<![\w:/.])(?:/[^\s?\"'<>`]*)?\?[\w.%\[\]-]+=[^\s\"'<>`]*")

# A form-encoded body (`curl -d 'grant_type=...&client_secret=...'`): a query string without
# its `?`, two pairs or more.
_FORM = re.compile(r"(?<![\w/.?&%=-])[\w.\[\]-]+=[^\s&'\"]*(?:&[\w.\[\]%-]+=[^\s&'\"]*)+")

_PASSES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (_NETRC_LINE, _sub_netrc_line),
    (_NETRC_ALONE, _sub_netrc_alone),
    (_PGPASS, _sub_pgpass),
    (_USER_FLAG, _sub_user_flag),
    (_LONG_SINGLE, _sub_long_single),
    (_SLASH_OPTION, _sub_slash_option),
    (_SHORT_GLUED_P, _sub_glued_p),
    (_SHORT_SPACED, _sub_spaced),
    (_BARE_QUERY, lambda m: _QUERY.sub(_sub_query, m.group(0))),
    (_FORM, lambda m: _QUERY.sub(_sub_query, "&" + m.group(0))[1:]),
)


def redact_positions(text: str) -> str:
    for rx, fn in _PASSES:
        text = rx.sub(fn, text)
    return _redact_prose(text)
