"""Secrets recognised by name, shape and entropy, or by the position their syntax gives them.

Fixed-prefix formats (``sk-``, ``ghp_``, PEM blocks) are the ``secrets`` of
``redaction_patterns.yaml``. This module finds what has no prefix, with the regexes of that
file's ``secret-shapes`` and ``syntax-positions`` sections, and holds the judgement every check
shares (``secret_name``, ``looks_random``, ``hidden``; the passes run in ``redaction_passes``):

- assignments (``NAME=value``; ``name: value`` in YAML, JSON and HTTP headers; ``--flag value``):
  hidden when the *name* has a secret word as one of its parts (``RAILS_MASTER_KEY``,
  ``csrftoken``, ``X-Amz-Signature``) or, whatever the name, when the *value* looks random
  (mixed letters and digits, high Shannon entropy); hex strings and UUIDs only under a secret
  name (alone they are commit SHAs, trace ids and digests), never under identifier words
  (``id``, ``sha``, ``digest``);
- URLs (query values, a bare user part ``https://KEY@host``, a password, random path segments
  of webhook URLs) and ``Authorization`` headers of any scheme (the scheme word is kept);
- positions where no ``=`` or ``:`` names the credential: netrc, pgpass, password flags
  (``mysql -pSECRET``, ``redis-cli -a``: on a line that connects as someone), ``-u user:pw``,
  ``-storepass``, ``/p:``, query strings without a scheme, form bodies, and a password word in
  prose followed by its value;
- vendor token shapes from the maintained ``detect-secrets`` package (Twilio, SendGrid, npm,
  ...): its maintainers keep its detectors up to date, a list here would not be. Its generic
  high-entropy plugins are left out: they flag every quoted commit SHA and lockfile hash.

A value must still read as a literal: templates (``$PASSWORD``), placeholders (``*``,
``<pass>``) and numbers (ports, ``uid:gid``) stay.
"""
from __future__ import annotations

import base64
import math
import re
from collections import Counter
from collections.abc import Callable
from functools import lru_cache
from typing import ClassVar

from harness.security.patterns import PatternFileError, load_patterns, read_rule_file

PATTERN_FILE = "redaction_patterns.yaml"
PLACEHOLDER = "[REDACTED]"
SHAPES = {p.id: p.regex for p in load_patterns(PATTERN_FILE, "shapes", "", 0)}
"""The shapes of values, names, neighbours and documents the checks read (``shapes``: trivial
values, references, e-mails, hosts, a Kubernetes Secret's keys, table rules ...)."""

_WORDS_PATH, _WORDS = read_rule_file("redaction_words.yaml")


def _words(*lists: str) -> list[str]:
    """The words of ``lists`` of ``redaction_words.yaml``, lower-cased."""
    if not all(isinstance(_WORDS.get(k), list) for k in lists):
        raise PatternFileError(f"{_WORDS_PATH}: expected lists under {', '.join(lists)}")
    return [str(w).lower() for k in lists for w in _WORDS[k]]


_SECRET_WORDS = tuple(w for w in _words("strong", "weak") if not re.search(r"[\s_-]", w))
"""A name part that *ends with* one of these marks a secret (``authToken``, ``PGPASSWORD``,
``Benutzerpasswort``); a lone weak word (``key``, ``clave``) needs a random-looking value."""
_JOINED_WORDS = tuple(re.sub(r"[\s_-]+", "", w) for w in _words("strong", "weak") if re.search(r"[\s_-]", w))
"""Words of several parts (``mot de passe``), matched by the joined parts of a name."""
_WEAK_WORDS = frozenset(_words("weak"))
_ID_WORDS = frozenset(_words("identifier"))
_ABOUT_WORDS = frozenset(_words("about"))
_PUBLIC_WORDS = frozenset(_words("public"))
_KEEPS_SECRET = frozenset(_words("keeps_secret"))


def trie_pattern(words: set[str]) -> str:
    """One regex for ``words`` as a prefix tree (``pass(?:word|wd|phrase)?``...): Python's
    ``re`` tries every branch of a flat alternation at every position; a tree is several
    times faster on text with none of the words."""
    tree: dict = {}
    for w in words:
        node = tree
        for c in w:
            node = node.setdefault(c, {})
        node[""] = {}

    def emit(node: dict) -> str:
        branches = [re.escape(c) + emit(child) for c, child in sorted(node.items()) if c]
        if not branches:
            return ""
        body = branches[0] if len(branches) == 1 else "(?:" + "|".join(branches) + ")"
        return f"(?:{body})?" if "" in node else body
    return emit(tree)


# The judges below are pure functions of strings, cached: one output repeats its names and
# values (every line of an `env` dump is judged by `secret_name`, each pass judges the same pair).
@lru_cache(maxsize=4096)
def _parts(name: str) -> tuple[str, ...]:
    spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", name)
    return tuple(p for p in re.split(r"[\s_.\-\[\]]+", spaced.lower()) if p)


@lru_cache(maxsize=4096)
def _identifier(name: str) -> bool:
    """A name with an identifier or a public part (``run_id``, ``PublicKey``): its value is
    never hidden by entropy alone."""
    return bool(set(_parts(name)) & (_ID_WORDS | _PUBLIC_WORDS))


@lru_cache(maxsize=4096)
def secret_name(name: str) -> bool | str:
    """True for a secret name; ``"weak"`` for a lone generic word (``key``, ``token``: a JSON
    ``"key"`` is usually a lookup key), whose value must also look random; ``"id"`` for an
    identifier kept secret (``secret_id``), whose value is hidden when it reads as a key."""
    parts = _parts(name)
    if set(parts) & _PUBLIC_WORDS or parts and parts[-1] in _ABOUT_WORDS:
        return False
    if parts and parts[-1] in _ID_WORDS:
        # TOKEN_COUNT, api_key_id: a number or an identifier; secret_id, private_key_id: a key
        return "id" if set(parts[:-1]) & _KEEPS_SECRET and parts[-1] in ("id", "ids") else False
    if not any(p.endswith(_SECRET_WORDS) for p in parts) and not "".join(parts).endswith(_JOINED_WORDS):
        return False
    return "weak" if len(parts) == 1 and parts[0] in _WEAK_WORDS else True


def entropy(value: str) -> float:
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


_CLASSES = (re.compile(r"[a-z]"), re.compile(r"[A-Z]"), re.compile(r"\d"))


def _classes(value: str) -> int:
    """How many of lower case, upper case and digits ``value`` holds."""
    return sum(bool(rx.search(value)) for rx in _CLASSES)




def _wordy(value: str) -> bool:
    """Mostly capitalised words (``AioS3ExpressIdentityResolver``, ``V1alpha3DeviceTaintRule``):
    a CamelCase name in code. Only 1% of random 16-character tokens (0.03% of 40-character ones)
    read so, and those are still caught under a secret name."""
    runs = SHAPES["word-run"].findall(value)
    return len(runs) >= 2 and sum(len(r) for r in runs) >= 0.75 * len(value)




def _slug(value: str) -> bool:
    """Words and numbers joined by separators (``lambda-layers-us-west-2-123456789012``,
    ``runwayml/stable-diffusion-v1-5``, ``GraphemeBreakProperty-18.0.0.txt``): a name, a path or
    a file. Generated tokens mix letters and digits inside each piece."""
    parts = [p for p in re.split(r"[-_/.:#+]", value) if p]
    if len(parts) >= 3 and all(SHAPES["slug-part"].fullmatch(p) for p in parts):
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


@lru_cache(maxsize=4096)
def looks_random(value: str, min_len: int = 16) -> bool:
    """A token that reads like generated key material: long, mixed classes, high entropy, and
    not a hex string, UUID or digest (those are identifiers unless a secret name says not)."""
    if len(value) < min_len or not SHAPES["token-chars"].match(value) or SHAPES["hex-or-uuid"].match(value) \
            or SHAPES["digest-prefix"].match(value):
        return False
    if value.startswith(("/", "./", "~", "-", "#")) or "://" in value or SHAPES["dotted-name"].fullmatch(value) \
            or _wordy(value) or _slug(value) or _sequential(value):
        return False
    classes = _classes(value)
    return (classes == 3 and entropy(value) >= 3.5) or (classes == 2 and len(value) >= 24
                                                          and entropy(value) >= 4.2)


@lru_cache(maxsize=4096)
def _worth_hiding(value: str, by_name: bool | str) -> bool:
    """Whether a value under a secret name (``by_name``) or any name is secret material. Under
    a secret name it must still read as a literal: no spaces, no code (``make_token()``,
    ``TokenUsage``), no template (``$TOKEN``), and a digit or a symbol or randomness (so that
    ``SCENARIO_KEY = "looplab:scenario"`` and ``key: make it`` stay)."""
    v = value.strip()
    if len(v) < 6 or SHAPES["trivial"].match(v) or PLACEHOLDER[:-1] in v or SHAPES["digest-prefix"].match(v):
        return False
    if not by_name or by_name == "env":  # (base64 of text under a secret name: `user:pass`)
        return looks_random(v) and not _encoded_text(v) or by_name == "env" and \
            bool(re.fullmatch(r"[0-9a-f]{32,}|[0-9A-F]{32,}", v))
    if by_name == "weak":
        return looks_random(v, 12)
    if by_name == "id":
        return looks_random(v, 12) or bool(len(v) >= 16 and SHAPES["hex-or-uuid"].match(v))
    if re.search(r"\s|[{}()<>\[\]`]|\$[{(]|^\$", v) or v.startswith(("/", "./", "~/")) \
            or "://" in v or re.fullmatch(r"[A-Za-z_.-]+(?:/[A-Za-z_.-]+)+", v):
        return False  # (the last: words joined by `/`, a path or a resource name)
    return bool(re.search(r"\d|[!@#%^&*+/=]", v)) or looks_random(v, 12)




@lru_cache(maxsize=4096)
def judged_name(name: str) -> bool | str:
    """``secret_name``, or ``"env"`` for an environment variable's name that says neither
    secret nor identifier (``SIDEKIQ_LICENSE``, ``VAULT_UNSEAL_SHARE``): 32 hex digits or more
    under it are a key (commit SHAs and digests live under ``*_SHA``, ``*_COMMIT``,
    ``*_DIGEST``, ``*_VERSION``, which stay)."""
    by_name = secret_name(name)
    if by_name or not SHAPES["env-name"].fullmatch(name) or _identifier(name):
        return by_name
    return "env"


def hidden(value: str, name: str) -> bool:
    """A value under ``name`` is hidden when the name says secret and the value is a literal,
    or, whatever the name, when the value reads as generated key material, unless the name
    says identifier or public."""
    by_name = judged_name(name)
    if not by_name and _identifier(name):
        return False
    return literal(value) and _worth_hiding(value, by_name)




@lru_cache(maxsize=4096)
def literal(value: str) -> bool:
    """A value that is itself the secret, not a reference to one or a placeholder (also the
    bare word of documentation: ``user:password@host``, ``password secret``)."""
    v = value.strip("'\"`")
    if re.fullmatch(r"[A-Za-z_]+", v) and secret_name(v):
        return False
    return bool(v) and not SHAPES["reference"].match(v)


# --- the regex passes of redaction_patterns.yaml -----------------------------------------------
Sub = Callable[[re.Match[str]], str]
Judge = Callable[[str, str, re.Match[str]], object]


def hide(m: re.Match[str], group: int | str) -> str:
    """The text of ``m`` with ``group`` replaced by the placeholder."""
    a, b = m.start(group) - m.start(0), m.end(group) - m.start(0)
    return m.group(0)[:a] + PLACEHOLDER + m.group(0)[b:]


def hide_if(judge: Judge) -> Sub:
    """A sub that hides a match's value (its first ``value*`` group that took part) when
    ``judge(value, name, match)`` says so, the name being its first ``name*`` group ("" if none)."""
    def sub(m: re.Match[str]) -> str:
        groups = [(k, v) for k, v in m.groupdict().items() if v is not None]
        name = next((v for k, v in groups if k.startswith("name")), "")
        group = next(k for k, _ in groups if k.startswith("value"))
        return hide(m, group) if judge(m.group(group), name, m) else m.group(0)
    return sub



def _sub_env(m: re.Match[str]) -> str:
    if m.group(6):
        return m.group(0)  # `x = make_client(`: code
    name, value = m.group(1), m.group(4) if m.group(3) else m.group(5)
    by_name = judged_name(name)
    if m.group(3) and "=" in value and not by_name:  # a quoted connection string: its pairs
        return m.group(0).replace(value, m.re.sub(_sub_env, value), 1)
    if not by_name and _identifier(name) or not _worth_hiding(value, by_name):
        return m.group(0)
    return m.group(0).replace(value, PLACEHOLDER, 1)


def _sub_colon(m: re.Match[str]) -> str:
    name = m.group(2)
    value = m.group(4) if m.group(3) else (m.group(5) or "").strip().rstrip("'\"")
    by_name = secret_name(name)  # (not judged_name: `LINUX_AMD64: <sha256>` in a checksum map)
    if not by_name and (_identifier(name) or not m.group(1) and not re.match(r"[^:]*:\s", m.group(0))):
        # Any other name is judged by its value, as NAME=value is; a bare `h1:...` (no space
        # after the colon, as YAML and JSON would have) is a prefix, not a key.
        return m.group(0)
    if not _worth_hiding(value, by_name):
        return m.group(0)
    scheme = re.match(r"[A-Za-z][\w-]*\s+(?=\S)", value)  # "token abc..." keeps "token "
    secret = value[scheme.end():] if scheme and name.lower() != "cookie" else value
    return m.group(0).replace(secret, PLACEHOLDER, 1) if secret else m.group(0)


def _flag(value: str, name: str, m: re.Match[str]) -> bool:
    """A flag's value under a secret name, or random in all three character classes under any
    other (``--seal <key>``; as for short flags)."""
    by_name = secret_name(name)
    if by_name:
        return _worth_hiding(value, by_name)
    return not _identifier(name) and looks_random(value) and _classes(value) == 3 and not _encoded_text(value)


def _sub_url(m: re.Match[str]) -> str:
    url = SHAPES["url-password"].sub(_URL_PASSWORD, m.group(0))
    url = SHAPES["url-user"].sub(_URL_USER, url)
    url = SHAPES["query-pair"].sub(sub_query, url)
    head, sep, rest = url.partition("://")
    cut = min((i for i in (rest.find("?"), rest.find("#")) if i >= 0), default=len(rest))
    path = "/".join(PLACEHOLDER if _random_segment(seg) else seg for seg in rest[:cut].split("/"))
    return head + sep + path + rest[cut:]


_URL_PASSWORD = hide_if(lambda v, n, m: literal(v) and not (SHAPES["trivial"].match(v) and not v.isdigit()))
"""Any literal password (digits too); a template, a placeholder or ``x`` stays."""
_URL_USER = hide_if(lambda v, n, m: looks_random(v) or bool(SHAPES["hex-or-uuid"].match(v)) and len(v) >= 16)
"""A user part that is a key (random, or 16 hex digits or more)."""


def _random_segment(seg: str) -> bool:
    """A path segment that is key material (a webhook secret), not a file or a version."""
    return bool(re.fullmatch(r"[A-Za-z0-9_-]{20,}", seg)) and looks_random(seg, 20) and _classes(seg) == 3


def sub_query(m: re.Match[str]) -> str:
    """A query pair (``query-pair``) whose value is secret by its name or random-looking."""
    name, value = m.group(2), m.group(3)
    by_name = secret_name(name)
    if not by_name and _identifier(name):
        return m.group(0)  # run_id=, commit=: an identifier, however random it looks
    if (by_name and _worth_hiding(value, by_name)) or looks_random(re.sub(r"%[0-9A-Fa-f]{2}", "", value), 20):
        return f"{m.group(1)}{name}={PLACEHOLDER}"
    return m.group(0)



def _candidate(line: str) -> bool:
    """A long token with upper and lower case and digits, or 32+ hex digits: every vendor
    shape has one; code and prose rarely do (so most lines never reach detect-secrets)."""
    return any(SHAPES["hex32"].search(m.group(0)) or _classes(m.group(0)) == 3 for m in SHAPES["long-token"].finditer(line))


MAX_SCANNED_LINE = 2000
"""Lines longer than this (minified files, blobs) are left to the regex passes: the vendor
detectors are per-line regexes and would make a megabyte line cost seconds."""


def redact_vendor_tokens(text: str) -> str:
    """Vendor token shapes found by ``detect-secrets`` (only lines holding a long token)."""
    if not _candidate(text):  # (one search of the whole text: a long token never spans lines)
        return text
    lines = text.split("\n")
    todo = [i for i, line in enumerate(lines) if len(line) <= MAX_SCANNED_LINE and _candidate(line)]
    for i, secrets in zip(todo, _vendor_secrets([lines[i] for i in todo]), strict=True):
        for secret in secrets:
            lines[i] = _replace_token(lines[i], secret)
    return "\n".join(lines)


def _replace_token(line: str, secret: str) -> str:
    """Replace ``secret`` and the rest of the token it starts (some detectors report a prefix)."""
    m = re.compile(re.escape(secret) + r"[\w.+/=-]*").search(line)
    return line if not m or m.end() - m.start() < 8 else line[:m.start()] + PLACEHOLDER + line[m.end():]


class _VendorScans:
    """detect-secrets' findings in each line, longest first; the lines of one text are scanned
    under one swap of its settings (a swap costs more than scanning a line). The last
    ``MAX_LINES`` lines scanned are remembered (one memory for the class: ``cache_clear`` empties
    it whether called on the class or on ``_vendor_secrets``, as on an ``lru_cache``)."""
    MAX_LINES = 4096
    found: ClassVar[dict[str, tuple[str, ...]]] = {}

    @classmethod
    def cache_clear(cls) -> None:
        cls.found.clear()

    def __call__(self, lines: list[str]) -> list[tuple[str, ...]]:
        known = {line: self.found[line] for line in lines if line in self.found}
        fresh = [line for line in dict.fromkeys(lines) if line not in known]
        if fresh:
            # Imported on first use: detect-secrets loads its plugins at import, and only redaction needs it.
            from detect_secrets.core.scan import scan_line
            from detect_secrets.settings import transient_settings  # (same reason)

            with transient_settings(_SETTINGS):
                for line in fresh:
                    found = {s.secret_value for s in scan_line(line) if s.secret_value}
                    known[line] = tuple(sorted(found, key=len, reverse=True))
            self.found.update((line, known[line]) for line in fresh)
            for old in list(self.found)[: max(0, len(self.found) - self.MAX_LINES)]:
                del self.found[old]
        return [known[line] for line in lines]


_vendor_secrets = _VendorScans()


_VENDOR = read_rule_file(PATTERN_FILE)[1]
_SETTINGS = {"plugins_used": [{"name": str(n)} for n in _VENDOR["vendor_detectors"]],
             "filters_used": [{"path": f"detect_secrets.filters.heuristic.{f}"} for f in _VENDOR["vendor_filters"]]}
"""detect-secrets' vendor detectors and filters (``vendor_detectors``, ``vendor_filters``)."""
