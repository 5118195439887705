"""The regex passes of ``redaction_patterns.yaml`` (``run_passes``), the subs they name
(``SUBS``), and the judges of secrets found by the position their syntax gives them (netrc,
pgpass, password flags, ``-u user:pw``, ``/p:``, a password word in prose before its value).
The judgement they share (``secret_name``, ``looks_random``, ``hidden``) is
``redaction_shapes``'."""
from __future__ import annotations

import re

from harness.security.patterns import load_patterns
from harness.security.redaction_shapes import (
    _SECRET_WORDS,
    _WEAK_WORDS,
    PATTERN_FILE,
    PLACEHOLDER,
    SHAPES,
    Sub,
    _classes,
    _flag,
    _sub_colon,
    _sub_env,
    _sub_url,
    _worth_hiding,
    hidden,
    hide_if,
    literal,
    looks_random,
    redact_vendor_tokens,
    secret_name,
    sub_query,
    trie_pattern,
)
from harness.security.regex_needles import may_match


def run_passes(section: str, text: str) -> str:
    """The regexes of ``section`` of ``redaction_patterns.yaml`` applied in order, each with the
    sub its ``sub`` names (``SUBS``), and only to a text that holds one of its ``triggers`` (as
    the section found it) and, as it is now, one of the ``needles`` of its regex."""
    lowered = current = text.lower()
    for p in load_patterns(PATTERN_FILE, section, "sub", 0):
        if (not p.triggers or any(t in lowered for t in p.triggers)) and may_match(p.regex, text, current):
            changed = p.regex.sub(SUBS[p.text], text)
            if changed != text:
                text, current = changed, changed.lower()
    return text


def redact_shapes(text: str) -> str:
    return redact_vendor_tokens(run_passes("secret-shapes", text))


# --- syntax positions -------------------------------------------------------------------------
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
    """``-p VALUE`` when it reads like a password (``ssh -p 2222``, ``mkdir -p dir`` stay);
    ``-p``/``-a``/``-w`` on a command that connects as someone (``connects``) when it reads like a
    human-made password; any other short flag only when its value is random in all three
    character classes (a ULID or a pod name after ``-r`` or ``-n`` is an identifier)."""
    if not literal(value) or "=" in value:
        return False  # (`-d 'a=1&b=2'`: a form body, whose pairs are judged one by one)
    if letter in _PASSWORD_LETTERS and _password_like(value) and SHAPES["connects"].search(_line_of(m)):
        return True
    if letter == "p":
        return _worth_hiding(value, "weak")
    return _classes(value) == 3 and looks_random(value, 16)


def _user_pass(password: str, user: str, m: re.Match[str]) -> bool:
    """``user:password`` of a user flag; templates, ``uid:gid``, ``user:pw`` of documentation stay."""
    return literal(password) and literal(user) and not re.fullmatch(r"\d+", password) and len(password) >= 3


def _single_dash(value: str, name: str, m: re.Match[str]) -> bool:
    by_name = secret_name(name) or name.lower().startswith("pass")  # -passin, -passout
    return bool(by_name or m.group(3)) and literal(value) and _worth_hiding(value, by_name or True)


def _slash_option(value: str, name: str, m: re.Match[str]) -> bool:
    paired = name.lower() == "p" and re.search(r"(?i)(?<![\w/])/u(?:ser)?:\S", _line_of(m))
    return bool(secret_name(name) or paired) and hidden(value, "password")


# Prose and log messages: a password word, then the value (`logging in with password X`,
# `Passwort ist X`, `password was set to X`). Only the strong words (not `key`, `token`), only
# a value that reads as a made-up password (letters with digits or symbols).
_STRONG = re.compile(r"(?<![\w-])(?:" + trie_pattern(set(_SECRET_WORDS) - set(_WEAK_WORDS)) + r")"
                     r"(?=[ \t])", re.IGNORECASE)


def _redact_prose(text: str) -> str:
    if len(text) > 200_000 or not may_match(_STRONG, text, text.lower()):
        return text  # (logs this long are read by the other passes; this one is a fallback)
    out, done = [], 0
    for w in _STRONG.finditer(text):
        if w.start() < done:
            continue
        m = SHAPES["after-password-word"].match(text, w.end())
        if not m or not literal(m.group(2)) or not _password_like(m.group(2)) \
                or secret_name(m.group(2).strip(".,")):
            continue
        out.append(text[done:m.start(2)] + PLACEHOLDER)
        done = m.end(2)
    return "".join(out) + text[done:] if out else text


def redact_positions(text: str) -> str:
    return _redact_prose(run_passes("syntax-positions", text))


def _credential_call(value: str, callee: str, m: re.Match[str]) -> bool:
    """The last literal of a call or tuple named for a credential (``HTTPBasicAuth(...)``,
    ``auth=(...)``): a password in any shape a literal has (digits or symbols, as under any
    secret name); under a weak name (``key("x")``) only after another argument, the user."""
    by_name = secret_name(callee.rsplit(".", 1)[-1])
    if not by_name or by_name == "id" or by_name == "weak" and not m.group("args"):
        return False
    return hidden(value, "password")


SUBS: dict[str, Sub] = {
    "always": hide_if(lambda v, n, m: True),
    "literal": hide_if(lambda v, n, m: literal(v)),
    "hidden": hide_if(lambda v, n, m: hidden(v, n)),
    "password": hide_if(lambda v, n, m: hidden(v, "password")),  # a literal password, digits too
    "trimmed": hide_if(lambda v, n, m: hidden(v.strip(), n)),
    "leaf": hide_if(lambda v, n, m: hidden(v, n.rsplit(".", 1)[-1])),  # a dotted name's last part
    "named": hide_if(lambda v, n, m: secret_name(n) and hidden(v, n)),
    # ('ssh2_auth_agent', 'ssh2_auth_file'): names in code, not a value
    "call-pair": hide_if(lambda v, n, m: not re.fullmatch(r"[a-z_][a-z0-9_]*", v) and hidden(v, n)),
    "credential-call": hide_if(_credential_call),
    "url": _sub_url,
    "colon": _sub_colon,
    "env": _sub_env,
    "flag": hide_if(_flag),
    "netrc": lambda m: SHAPES["netrc-password"].sub(SUBS["literal"], m.group(0)),
    "user-pass": hide_if(_user_pass),
    "single-dash": hide_if(_single_dash),
    "slash": hide_if(_slash_option),
    "glued-p": hide_if(lambda v, n, m: hidden(v, "password") and re.search(r"[A-Za-z]", v)),
    "short-flag": hide_if(_short_flag),
    "query": lambda m: SHAPES["query-pair"].sub(sub_query, m.group(0)),
    "form": lambda m: SHAPES["query-pair"].sub(sub_query, "&" + m.group(0))[1:],
}
"""The subs the ``sub`` of each regex pass names (``run_passes``): most hide a value a judge
accepts (``hide_if``)."""
