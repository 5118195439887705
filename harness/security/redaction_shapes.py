"""Secrets recognised by shape and entropy, not by a list of names.

``redaction_patterns.yaml`` catches formats with a fixed prefix (``sk-``, ``ghp_``, PEM blocks).
This module catches what has no fixed prefix, in the places secrets travel:

- assignments (``NAME=value`` in ``env`` dumps, ``export``, ``.env``; ``name: value`` in YAML,
  JSON and HTTP headers; ``--flag value``): redacted when the *name* has a secret word as one of
  its parts (``RAILS_MASTER_KEY``, ``csrftoken``, ``X-Amz-Signature``) or, for ``NAME=value``,
  when the *value* looks random (mixed letters and digits, high Shannon entropy) whatever the
  name; hex strings and UUIDs count only with a secret name (alone they are commit SHAs, trace
  ids and digests), and names made of identifier words (``id``, ``sha``, ``digest``) never;
- URLs: query values under a secret name or random-looking (``access_token=``, ``sig=``,
  ``key=``), a bare user part (``https://KEY@host``), random path segments (webhook URLs);
- ``Authorization`` headers with any scheme (the scheme word is kept);
- vendor token shapes from the maintained ``detect-secrets`` package (Twilio, SendGrid, npm,
  PyPI, Discord, Azure storage, ...): its detectors are kept up to date by its maintainers, a
  list here would not be. Its generic high-entropy plugins are left out: they flag every quoted
  commit SHA and lockfile hash.
"""

from __future__ import annotations

import base64
import math
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache

from harness.security.redaction_words import load_words

PLACEHOLDER = "[REDACTED]"


_SECRET_WORDS, _WEAK_WORDS, _JOINED_WORDS = load_words()
"""A name part that *ends with* one of these marks a secret (``authToken``, ``PGPASSWORD``,
``Benutzerpasswort``); a lone weak word (``key``, ``clave``) needs a random-looking value."""
_ID_WORDS = frozenset({"id", "ids", "sha", "sha1", "sha256", "sha512", "md5", "hash", "digest",
                       "commit", "rev", "revision", "uuid", "guid", "etag", "checksum", "version",
                       "build", "trace", "span", "ref", "count", "size", "max", "min", "num",
                       "number", "len", "length", "limit", "tokens", "model", "type", "name",
                       "arn"})
"""Name parts that make a value an identifier or a number, never a secret by entropy alone."""
_ABOUT_WORDS = frozenset({"encoding", "algorithm", "alg", "format", "file", "path", "policy",
                          "mode", "ttl", "timeout", "expiry", "expires", "expiration", "enabled",
                          "required", "prompt", "field", "header", "strength", "rotation",
                          "method", "scheme", "provider", "backend"})
"""A last name part that says the value is *about* a secret, not the secret: a setting
(``passwordEncoding: base64``, ``token_ttl: 3600``, ``key_file: /etc/x.key``)."""
_PUBLIC_WORDS = frozenset({"public", "pub", "pubkey", "publishable", "cert", "certificate", "crt"})
"""Name parts that declare the value public (``PublicKey =`` of WireGuard, ``publicKey`` of a
JWK, ``NEXT_PUBLIC_*`` of Next.js, ``tls.crt``): never hidden by name or by entropy."""
_KEEPS_SECRET = frozenset({"secret", "private"})
"""Parts that keep an identifier-like name secret (Vault's ``secret_id``, a service account's
``private_key_id``): the value is hidden when it reads as a key, hex included."""
_DIGEST_PREFIX = re.compile(r"^(?:sha\d*|md5|blake2\w*)[-:=]", re.IGNORECASE)
_HEX_OR_UUID = re.compile(r"^(?:[0-9a-f]+|[0-9A-F]+|[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-"
                          r"[0-9a-fA-F]{12})$")
_TRIVIAL = re.compile(r"^(?:true|false|null|none|yes|no|on|off|\d+(?:[.,:]\d+)*[a-z]?|0x[0-9a-f]{1,16}|"
                      r"#[0-9a-f]{3,8}|"  # a colour
                      r"\$\{?\w+\}?|<[^>]*>|\*+|x+|\.{3}|\[REDACTED[^\]]*\])$", re.IGNORECASE)

_ENV = re.compile(r"(?<![\w/.?&%-])([^\W\d]\w*+)( ?= ?)(?:(['\"])(.*?)\3|"
                  r"([^\s\"';|&`(]++)(\()?)")
"""``NAME=value``; an unquoted value ends at ``(`` (group 6: a call, not a value) so that
``c = Client(api_key="...")`` is read as two assignments, not one that swallows the second."""
_COLON = re.compile(r"(?m)(?:^|(?<=[\s{,(])|(?<=[\s(]['\"]))(['\"]?)([^\W\d][\w.-]*+)\1[ \t]*:[ \t]*"
                    r"(?:(['\"])([^'\"\n]*)\3|([^\s,{}\[:][^\s,}]*))")
"""``name: value``; a value never opens with ``{`` or ``[`` (a nested object on the same line:
its own keys are the pairs to judge). Names in any script (``senha``, ``密码``); a pair may open a
call (Ruby ``new(secret_key: ...)``) or a quoted header (``-H 'X-Api-Key: ...'``)."""
_FLAG = re.compile(r"(?<![\w-])--([A-Za-z][\w-]*+)(?:=|[ \t]+)(['\"]?)([^\s'\"-][^\s'\"]*)\2")
"""``--name value``; a value never opens with ``-`` (``--batch --passphrase x``: the next flag)."""
_URL = re.compile(r"\b[a-z][a-z0-9+.-]*://[^\s\"'<>`]+", re.IGNORECASE)
_QUERY = re.compile(r"([?&;])([\w.%\[\]-]+)=([^&#;]+)")
_USERINFO = re.compile(r"(://)([^\s:/@]+)@")
_USERPASS = re.compile(r"(://[^\s:/@]*:)([^\s/@]+)(@)")
"""``scheme://user:password@host``, the user possibly empty (``redis://:password@cache``): the
password position holds a credential whatever its shape."""
_COOKIE = re.compile(r"(?im)^([ \t]*(?:set-)?cookie[ \t]*:[ \t]*)(\S.*)$")
_AUTH_HEADER = re.compile(r"(?im)(\b(?:proxy-)?authorization[\"']?\s*[:=]\s*[\"']?"
                          r"(?:[A-Za-z][\w-]*\s+)?)(?!\$)([^\s\"',;]{8,}(?:,\s*\w+=[^\s\"',;]+)*)")


def _parts(name: str) -> list[str]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return [p for p in re.split(r"[\s_.\-\[\]]+", spaced.lower()) if p]


def secret_name(name: str) -> bool | str:
    """True for a secret name; ``"weak"`` for a lone generic word (``key``, ``token``: a JSON
    ``"key"`` is usually a lookup key), whose value must also look random."""
    parts = _parts(name)
    if public_name(name) or parts and parts[-1] in _ABOUT_WORDS:
        return False
    if parts and parts[-1] in _ID_WORDS:
        # TOKEN_COUNT, api_key_id: a number or an identifier; secret_id, private_key_id: a key
        return "id" if set(parts[:-1]) & _KEEPS_SECRET and parts[-1] in ("id", "ids") else False
    if not any(p.endswith(_SECRET_WORDS) for p in parts) and \
            not "".join(parts).endswith(_JOINED_WORDS or ("\0",)):
        return False
    return "weak" if len(parts) == 1 and parts[0] in _WEAK_WORDS else True


def public_name(name: str) -> bool:
    return bool(set(_parts(name)) & _PUBLIC_WORDS)


def entropy(value: str) -> float:
    counts = Counter(value)
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in counts.values())


_TOKEN_CHARS = re.compile(r"^[A-Za-z0-9+/=_.~!@#$%^&*-]+$")
_DOTTED_NAME = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+")
"""``windll.kernel32.GetProcAddress``, ``self.Mark2Array``: a reference in code, not key material."""


_WORD_RUN = re.compile(r"[A-Z][a-z]{2,}|(?<=\d)[a-z]{3,}")


def _wordy(value: str) -> bool:
    """Mostly capitalised words (``AioS3ExpressIdentityResolver``, ``Python2TracebackLexer``,
    ``V1alpha3DeviceTaintRule``): a CamelCase name in code. In generated key material a capital followed by two or more
    lower-case letters is rare: 1% of random 16-character and 0.03% of 40-character tokens
    read so (and those are still caught under a secret name)."""
    runs = _WORD_RUN.findall(value)
    return len(runs) >= 2 and sum(len(r) for r in runs) >= 0.75 * len(value)


_SLUG_PART = re.compile(r"[A-Za-z]+|\d+|[A-Za-z]\d{1,2}")


def _slug(value: str) -> bool:
    """Words and numbers joined by separators (``lambda-layers-us-west-2-123456789012``,
    ``runwayml/stable-diffusion-v1-5``, ``GraphemeBreakProperty-18.0.0.txt``): a name, a path or
    a file. Generated tokens mix letters and digits inside each piece."""
    parts = [p for p in re.split(r"[-_/.:#+]", value) if p]
    if len(parts) >= 3 and all(_SLUG_PART.fullmatch(p) for p in parts):
        return True
    words = sum(len(p) for p in parts if re.fullmatch(r"[A-Za-z]{3,}", p))
    return len(parts) >= 2 and words >= 0.6 * len(value)  # SECRET-TRAVERSAL-5b1e, api-v2-x7k


def _sequential(value: str) -> bool:
    # detect-secrets' own filter (alphabets and digit runs such as a hex or base64 alphabet
    # constant): maintained with its detectors, so the same strings are skipped by both.
    from detect_secrets.filters.heuristic import is_sequential_string  # (loaded on first use)
    return is_sequential_string(value)


def _encoded_text(value: str) -> bool:
    """Base64 of readable text (a ConfigMap's ``binaryData``, an encoded greeting): data, not
    key material, which decodes to bytes of every value."""
    if len(value) < 16 or len(value) % 4 or not re.fullmatch(r"[A-Za-z0-9+/]+={0,2}", value):
        return False
    try:
        text = base64.b64decode(value, validate=True).decode("ascii")
    except (ValueError, UnicodeDecodeError):
        return False
    return text.isprintable() or text.rstrip("\n").isprintable() and \
        sum(c.isalpha() or c == " " for c in text) >= 0.6 * len(text)


def looks_random(value: str, min_len: int = 16) -> bool:
    """A token that reads like generated key material: long, mixed classes, high entropy, and
    not a hex string, UUID or digest (those are identifiers unless a secret name says not)."""
    if len(value) < min_len or not _TOKEN_CHARS.match(value) or _HEX_OR_UUID.match(value) \
            or _DIGEST_PREFIX.match(value):
        return False
    if value.startswith(("/", "./", "~", "-", "#")) or "://" in value or _DOTTED_NAME.fullmatch(value) \
            or _wordy(value) or _slug(value) or _sequential(value):
        return False
    classes = sum(bool(re.search(rx, value)) for rx in (r"[a-z]", r"[A-Z]", r"\d"))
    return (classes == 3 and entropy(value) >= 3.5) or (classes == 2 and len(value) >= 24
                                                          and entropy(value) >= 4.2)


def _worth_hiding(value: str, by_name: bool | str) -> bool:
    """Whether a value under a secret name (``by_name``) or any name is secret material. Under
    a secret name it must still read as a literal: no spaces, no code (``make_token()``,
    ``TokenUsage``), no template (``$TOKEN``), and a digit or a symbol or randomness (so that
    ``SCENARIO_KEY = "looplab:scenario"`` and ``key: make it`` stay)."""
    v = value.strip()
    if len(v) < 6 or _TRIVIAL.match(v) or PLACEHOLDER[:-1] in v or _DIGEST_PREFIX.match(v):
        return False
    if not by_name or by_name == "env":  # (base64 of text under a secret name: `user:pass`)
        return looks_random(v) and not _encoded_text(v) or by_name == "env" and \
            bool(re.fullmatch(r"[0-9a-f]{32,}|[0-9A-F]{32,}", v))
    if by_name == "weak":
        return looks_random(v, 12)
    if by_name == "id":
        return looks_random(v, 12) or bool(len(v) >= 16 and _HEX_OR_UUID.match(v))
    if re.search(r"\s|[{}()<>\[\]`]|\$[{(]|^\$", v) or v.startswith(("/", "./", "~/")) \
            or "://" in v or re.fullmatch(r"[A-Za-z_.-]+(?:/[A-Za-z_.-]+)+", v):
        return False  # (the last: words joined by `/`, a path or a resource name)
    return bool(re.search(r"\d|[!@#%^&*+/=]", v)) or looks_random(v, 12)


_ENV_NAME = re.compile(r"[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+")


def judged_name(name: str) -> bool | str:
    """``secret_name``, or ``"env"`` for an environment variable's name that says neither
    secret nor identifier (``SIDEKIQ_LICENSE``, ``VAULT_UNSEAL_SHARE``): 32 hex digits or more
    under it are a key (commit SHAs and digests live under ``*_SHA``, ``*_COMMIT``,
    ``*_DIGEST``, ``*_VERSION``, which stay)."""
    by_name = secret_name(name)
    if by_name or not _ENV_NAME.fullmatch(name) or set(_parts(name)) & (_ID_WORDS | _PUBLIC_WORDS):
        return by_name
    return "env"


def _sub_env(m: re.Match[str]) -> str:
    name, value = m.group(1), m.group(4) if m.group(3) else m.group(5)
    if m.group(6):
        return m.group(0)  # `x = make_client(`: code
    by_name = judged_name(name)
    if m.group(3) and "=" in value and not by_name:  # a quoted connection string: its pairs
        inner = _ENV.sub(_sub_env, value)
        return m.group(0).replace(value, inner, 1) if inner != value else m.group(0)
    if not by_name and set(_parts(name)) & (_ID_WORDS | _PUBLIC_WORDS):
        return m.group(0)
    if not _worth_hiding(value, by_name):
        return m.group(0)
    return m.group(0).replace(value, PLACEHOLDER, 1)


def _sub_colon(m: re.Match[str]) -> str:
    name = m.group(2)
    value = m.group(4) if m.group(3) else (m.group(5) or "").strip().rstrip("'\"")
    by_name = secret_name(name)  # (not judged_name: `LINUX_AMD64: <sha256>` in a checksum map)
    if not by_name and (set(_parts(name)) & (_ID_WORDS | _PUBLIC_WORDS)
                        or not m.group(1) and not re.match(r"[^:]*:\s", m.group(0))):
        # Any other name is judged by its value, as NAME=value is; a bare `h1:...` (no space
        # after the colon, as YAML and JSON would have) is a prefix, not a key.
        return m.group(0)
    if not _worth_hiding(value, by_name):
        return m.group(0)
    scheme = re.match(r"[A-Za-z][\w-]*\s+(?=\S)", value)  # "token abc..." keeps "token "
    secret = value[scheme.end():] if scheme and name.lower() != "cookie" else value
    return m.group(0).replace(secret, PLACEHOLDER, 1) if secret else m.group(0)


def _sub_flag(m: re.Match[str]) -> str:
    """A flag's value under a secret name, or random in all three character classes under any
    other (``--seal <key>``; as for short flags in ``redaction_positions``)."""
    name, value = m.group(1), m.group(3)
    by_name = secret_name(name)
    if by_name:
        hide = _worth_hiding(value, by_name)
    else:
        hide = not set(_parts(name)) & (_ID_WORDS | _PUBLIC_WORDS) and looks_random(value) \
            and all(re.search(rx, value) for rx in (r"[a-z]", r"[A-Z]", r"\d")) \
            and not _encoded_text(value)
    return m.group(0).replace(value, PLACEHOLDER, 1) if hide else m.group(0)


def _sub_url(m: re.Match[str]) -> str:
    url = _USERPASS.sub(_sub_userpass, m.group(0))
    url = _USERINFO.sub(lambda u: u.group(1) + (PLACEHOLDER if looks_random(u.group(2))
                        or _HEX_OR_UUID.match(u.group(2)) and len(u.group(2)) >= 16
                        else u.group(2)) + "@", url)
    url = _QUERY.sub(_sub_query, url)
    head, sep, rest = url.partition("://")
    cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    path = "/".join(PLACEHOLDER if _random_segment(seg) else seg for seg in rest[:cut].split("/"))
    return head + sep + path + rest[cut:]


def _sub_userpass(u: re.Match[str]) -> str:
    """Any literal password (digits too); a template, a placeholder or ``x`` stays."""
    password = u.group(2)
    if not literal(password) or _TRIVIAL.match(password) and not password.isdigit():
        return u.group(0)
    return u.group(1) + PLACEHOLDER + u.group(3)


_REFERENCE = re.compile(r"^(?:\$|\{\{?\s*[\w.]+\s*\}|<[^>]*>|%\w+%|\*+$|\[REDACTED)")
"""A reference or placeholder, not a value: ``$PASSWORD``, ``${X}``, ``$(cmd)``, ``{secret}``,
``{{ password }}``, ``<password>``, ``%PASS%``, ``***``."""


def literal(value: str) -> bool:
    """A value that is itself the secret, not a reference to one or a placeholder (also the
    bare word of documentation: ``user:password@host``, ``password secret``)."""
    v = value.strip("'\"`")
    if re.fullmatch(r"[A-Za-z_]+", v) and secret_name(v):
        return False
    return bool(v) and not _REFERENCE.match(v)


def _random_segment(seg: str) -> bool:
    """A path segment that is key material (a webhook secret), not a file or a version."""
    return bool(re.fullmatch(r"[A-Za-z0-9_-]{20,}", seg)) and looks_random(seg, 20) and \
        all(re.search(rx, seg) for rx in (r"[a-z]", r"[A-Z]", r"\d"))


def _sub_query(m: re.Match[str]) -> str:
    name, value = m.group(2), m.group(3)
    decoded = re.sub(r"%[0-9A-Fa-f]{2}", "", value)
    by_name = secret_name(name)
    if not by_name and set(_parts(name)) & (_ID_WORDS | _PUBLIC_WORDS):
        return m.group(0)  # run_id=, commit=: an identifier, however random it looks
    if (by_name and _worth_hiding(value, by_name)) or looks_random(decoded, 20):
        return f"{m.group(1)}{name}={PLACEHOLDER}"
    return m.group(0)


_PASSES: tuple[tuple[re.Pattern[str], Callable[[re.Match[str]], str]], ...] = (
    (_AUTH_HEADER, lambda m: m.group(1) + PLACEHOLDER),
    (_COOKIE, lambda m: m.group(1) + PLACEHOLDER),
    (_URL, _sub_url),
    (_COLON, _sub_colon),  # before NAME=value: a Cookie header is hidden whole
    (_ENV, _sub_env),
    (_FLAG, _sub_flag),
)


def redact_shapes(text: str) -> str:
    for rx, fn in _PASSES:
        text = rx.sub(fn, text)
    return redact_vendor_tokens(text)


_LONG_TOKEN = re.compile(r"[A-Za-z0-9_+/=.:-]{20,}")
_HEX32 = re.compile(r"[0-9a-f]{32,}")


def _candidate(line: str) -> bool:
    """A long token with upper and lower case and digits, or 32+ hex digits: every vendor
    shape has one; code and prose rarely do (so most lines never reach detect-secrets)."""
    for m in _LONG_TOKEN.finditer(line):
        tok = m.group(0)
        if _HEX32.search(tok) or (re.search(r"[a-z]", tok) and re.search(r"[A-Z]", tok)
                                  and re.search(r"\d", tok)):
            return True
    return False


MAX_SCANNED_LINE = 2000
"""Lines longer than this (minified files, blobs) are left to the regex passes: the vendor
detectors are per-line regexes and would make a megabyte line cost seconds."""


def redact_vendor_tokens(text: str) -> str:
    """Vendor token shapes found by ``detect-secrets`` (only lines holding a long token)."""
    lines = text.split("\n")
    for i, line in enumerate(lines):
        if len(line) > MAX_SCANNED_LINE or not _candidate(line):
            continue
        for secret in _vendor_secrets(line):
            lines[i] = _replace_token(lines[i], secret)
    return "\n".join(lines)


def _replace_token(line: str, secret: str) -> str:
    """Replace ``secret`` and the rest of the token it starts (some detectors report a prefix)."""
    start = line.find(secret)
    if start < 0:
        return line
    end = start + len(secret)
    while end < len(line) and re.match(r"[\w.+/=-]", line[end]):
        end += 1
    return line if end - start < 8 else line[:start] + PLACEHOLDER + line[end:]


@lru_cache(maxsize=4096)
def _vendor_secrets(line: str) -> tuple[str, ...]:
    # Imported on first use: detect-secrets loads its plugins at import, and only redaction needs it.
    from detect_secrets.core.scan import scan_line
    from detect_secrets.settings import transient_settings  # (same reason)

    with transient_settings(_SETTINGS):
        found = {s.secret_value for s in scan_line(line) if s.secret_value}
    return tuple(sorted(found, key=len, reverse=True))


_SETTINGS = {
    "plugins_used": [{"name": n} for n in (
        "ArtifactoryDetector", "AWSKeyDetector", "AzureStorageKeyDetector", "BasicAuthDetector",
        "CloudantDetector", "DiscordBotTokenDetector", "GitHubTokenDetector", "GitLabTokenDetector",
        "IbmCloudIamDetector", "IbmCosHmacDetector", "JwtTokenDetector", "MailchimpDetector",
        "NpmDetector", "OpenAIDetector", "PrivateKeyDetector", "PypiTokenDetector",
        "SendGridDetector", "SlackDetector", "SoftlayerDetector", "SquareOAuthDetector",
        "StripeDetector", "TelegramBotTokenDetector", "TwilioKeyDetector")],
    "filters_used": [{"path": f"detect_secrets.filters.heuristic.{f}"} for f in (
        "is_sequential_string", "is_potential_uuid", "is_templated_secret")],
}
"""detect-secrets' vendor detectors; not its keyword and entropy plugins (the passes above do
that with identifiers in mind), nor ``IPPublicDetector`` (addresses are not secrets here)."""
