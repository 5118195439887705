"""Secrets found by the structure of the document that holds them.

``redaction_shapes`` judges one ``name=value`` or ``name: value`` pair at a time. Config formats
carry secrets in ways a single pair does not show:

- a Kubernetes ``Secret``: every value under its ``data``/``stringData`` is secret material,
  whatever its key (``STRIPE_WEBHOOK_SIGNING``, ``tls.key``, ``config.ini: |``) and however
  short; found in YAML by the sibling ``kind: Secret`` of the ``data:`` key, in JSON
  (``kubectl -o json``, a ``last-applied-configuration`` annotation) by parsing;
- name/value pairs, where the name sits in one field and the value in another: k8s and ECS
  ``env`` lists (``- name: DB_PASSWORD`` / ``value: ...``), ``{"Name": ..., "Value": ...}``,
  XML ``<add key="..." value="..."/>``;
- whole-line assignments of INI, TOML, HCL/terraform and Java properties, whose ``=`` is aligned
  with spaces and whose names are dotted (``spring.datasource.password = ...``);
- XML elements (``<password>...</password>``, ``<entry key="db.password">...</entry>``);
- YAML block scalars (``token: |`` or ``>-``) whose value is on the following lines;
- argument vectors (``["--api-token", "..."]``, YAML ``- --client-secret`` / ``- ...``),
  dotted keys on command lines (``--set auth.rootPassword=...``, ``-Ddb.password=...``),
  call and index pairs (``define('DB_PASSWORD', '...')``, ``os.environ["X"] = "..."``) and
  key/value tables (``vault write`` output).

Each value is judged as ``NAME=value`` is in ``redaction_shapes``: by the name when it says
secret, by the value (random key material) whatever the name, never under an identifier or
public name.

Keys and document structure are kept; only values become ``[REDACTED]``. References and
placeholders (``${VAR}``, ``{{ .Values.x }}``, ``<your-key>``) stay, as in every pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator

from harness.security.redaction_shapes import (
    _ID_WORDS,
    _PUBLIC_WORDS,
    PLACEHOLDER,
    _parts,
    _worth_hiding,
    judged_name,
    literal,
    secret_name,
)


def _hidden(value: str, name: str) -> bool:
    """A value under ``name`` is hidden when the name says secret and the value is a literal,
    or, whatever the name, when the value reads as generated key material (as ``NAME=value``
    in ``redaction_shapes``), unless the name says identifier or public."""
    by_name = judged_name(name)
    if not by_name and set(_parts(name)) & (_ID_WORDS | _PUBLIC_WORDS):
        return False
    return literal(value) and _worth_hiding(value, by_name)


# --- whole-line assignments (INI, TOML, HCL, properties, .env) -------------------------------
_LINE = re.compile(r"(?m)^([ \t]*(?:export[ \t]+)?([A-Za-z_][\w.-]*)[ \t]*=[ \t]*)"
                   r"(?:(['\"])([^'\"\n]*)\3|([^\s'\"#;]+))([ \t]*[,;]?[ \t]*(?:[#;].*)?)$")

def _sub_line(m: re.Match[str]) -> str:
    # A dotted name is judged by its leaf: `spring.datasource.password` names a password,
    # `auth_user.oauth2_headers` (an attribute in code) does not.
    value, name = m.group(4) if m.group(3) else m.group(5), m.group(2).rsplit(".", 1)[-1]
    if not _hidden(value, name):
        return m.group(0)
    quote = m.group(3) or ""
    return f"{m.group(1)}{quote}{PLACEHOLDER}{quote}{m.group(6)}"


# --- key/value tables (`vault write` output, `Key    Value` columns) --------------------------
_TABLE = re.compile(r"(?m)^([ \t]*([A-Za-z_][\w.-]*)[ \t]{2,})([^\s'\"=:]\S*)[ \t]*$")


def _sub_table(m: re.Match[str]) -> str:
    by_name = secret_name(m.group(2))
    if not by_name or not _hidden(m.group(3), m.group(2)):
        return m.group(0)
    return m.group(1) + PLACEHOLDER


# --- XML elements and name/value pairs ---------------------------------------------------------
_XML_ELEMENT = re.compile(r"<([A-Za-z_][\w.-]*)(\s[^<>]*)?>([^<>\n]{1,400})</\1>")
_PAIR_NAME = r"(?:name|key|Name|Key|ParameterKey|variable)"
_PAIR_VALUE = r"(?:value|Value|ParameterValue)"
_XML_PAIR = re.compile(rf"\b{_PAIR_NAME}\s*=\s*\"([\w.:-]+)\"(\s+){_PAIR_VALUE}\s*=\s*\"([^\"\n]*)\"")
_JSON_PAIR = re.compile(rf"\"{_PAIR_NAME}\"\s*:\s*\"([\w.:-]+)\"(\s*,\s*)\"{_PAIR_VALUE}\"\s*:\s*"
                        r"\"((?:[^\"\\\n]|\\.)*)\"")
_YAML_PAIR = re.compile(rf"(?m)^([ \t]*)- {_PAIR_NAME}:[ \t]*([\"']?)([\w.:-]+)\2[ \t]*\n"
                        rf"(\1  {_PAIR_VALUE}:[ \t]*)([\"']?)([^\"'\n]*?)\5[ \t]*$")


_XML_KEYED = re.compile(rf"<([A-Za-z_][\w.-]*)(\s[^<>]*?\b{_PAIR_NAME}\s*=\s*\"([\w.:-]+)\"[^<>]*)>"
                        r"([^<>\n]{1,400})</\1>")
"""``<entry key="db.password">...</entry>`` (Java XML properties), ``<setting name="ApiKey">``."""

# Names and values given as a call's arguments or an index: PHP ``define('DB_PASSWORD', '...')``,
# ``os.environ["X"] = "..."``, Ruby ``ENV['X'] = '...'``, ``config.set("api_key", "...")``.
_CALL_PAIR = re.compile(r"(?:\(\s*(['\"])([A-Za-z_][\w.-]*)\1\s*,|\[\s*(['\"])([A-Za-z_][\w.-]*)\3"
                        r"\s*\]\s*=)\s*(['\"])([^'\"\n\\]*)\5")


def _sub_call_pair(m: re.Match[str]) -> str:
    if re.fullmatch(r"[a-z_][a-z0-9_]*", m.group(6)):
        return m.group(0)  # ('ssh2_auth_agent', 'ssh2_auth_file'): names in code, not a value
    return _sub_pair(2 if m.group(2) else 4, 6)(m)

# Argument vectors: a flag and its value as two list items (container ``args``, ``docker
# inspect``'s ``"Args"``, ``subprocess.run([...])``).
_JSON_ARGV = re.compile(r"(['\"])--?([A-Za-z][\w-]*)\1(\s*,\s*)(['\"])([^'\"\n\\]+)\4")
_YAML_ARGV = re.compile(r"(?m)^([ \t]*)- (['\"]?)--?([A-Za-z][\w-]*)\2[ \t]*\n\1- (['\"]?)"
                        r"([^\s'\"]+)\4[ \t]*$")

# Dotted keys set on a command line or in a list: helm ``--set auth.rootPassword=...``, JVM
# ``-Dspring.datasource.password=...``; judged by their leaf.
_DOTTED = re.compile(r"(?:(?<=-D)|(?<![\w/.?&%=:-]))([A-Za-z_][\w-]*(?:\.[\w-]+)+)=(['\"]?)"
                     r"([^\s'\",&;]+)\2")


def _sub_dotted(m: re.Match[str]) -> str:
    if not _hidden(m.group(3), m.group(1).rsplit(".", 1)[-1]):
        return m.group(0)
    start, end = m.start(3) - m.start(0), m.end(3) - m.start(0)
    return m.group(0)[:start] + PLACEHOLDER + m.group(0)[end:]


def _sub_xml_element(m: re.Match[str]) -> str:
    if not _hidden(m.group(3).strip(), m.group(1)):
        return m.group(0)
    return f"<{m.group(1)}{m.group(2) or ''}>{PLACEHOLDER}</{m.group(1)}>"


def _sub_pair(name_group: int, value_group: int) -> Callable[[re.Match[str]], str]:
    def sub(m: re.Match[str]) -> str:
        value = m.group(value_group)
        if not _hidden(value, m.group(name_group)):
            return m.group(0)
        start, end = m.start(value_group) - m.start(0), m.end(value_group) - m.start(0)
        return m.group(0)[:start] + PLACEHOLDER + m.group(0)[end:]
    return sub


# --- YAML block scalars under a secret name ----------------------------------------------------
_BLOCK_HEAD = re.compile(r"^([ \t]*)(?:- )?([\"']?)([\w.-]+)\2:[ \t]*[|>][+-]?\d*[ \t]*$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _block_end(lines: list[str], head: int, indent: int) -> int:
    """Index after the last line of the block under ``lines[head]`` (deeper or blank lines)."""
    end = head + 1
    while end < len(lines) and (not lines[end].strip() or _indent(lines[end]) > indent):
        end += 1
    while end > head + 1 and not lines[end - 1].strip():
        end -= 1
    return end


def _hide_block(lines: list[str], head: int, indent: int) -> int:
    end = _block_end(lines, head, indent)
    for i in range(head + 1, end):
        if lines[i].strip() and literal(lines[i].strip()):
            lines[i] = lines[i][: _indent(lines[i])] + PLACEHOLDER
    return end


def _redact_blocks(lines: list[str]) -> None:
    """The block under a secret name goes whole; under any other name, each line that is one
    token of key material (``license: |`` then a key), as a ``name: value`` on one line would."""
    for i, line in enumerate(lines):
        m = _BLOCK_HEAD.match(line)
        if m and secret_name(m.group(3)) is True:
            _hide_block(lines, i, _indent(line))
        elif m and not set(_parts(m.group(3))) & (_ID_WORDS | _PUBLIC_WORDS):
            for j in range(i + 1, _block_end(lines, i, _indent(line))):
                token = lines[j].strip()
                if token and " " not in token and _hidden(token, m.group(3)):
                    lines[j] = lines[j][: _indent(lines[j])] + PLACEHOLDER


# --- Kubernetes Secret, YAML -------------------------------------------------------------------
_DATA_KEY = re.compile(r"^([ \t]*)(- )?(?:data|stringData):[ \t]*(\{.*\})?[ \t]*$")
_KIND_SECRET = re.compile(r"^[ \t]*(?:- )?kind:[ \t]*([\"']?)Secret\1[ \t]*$")
_CHILD = re.compile(r"^([ \t]*)([\"']?)([^\s:\"'][^:\"']*)\2:[ \t]*(.*)$")
_FLOW_VALUE = re.compile(r"(:[ \t]*)([^,{}\s][^,{}]*?)(?=[ \t]*[,}])")


def _siblings(lines: list[str], at: int, col: int) -> Iterator[str]:
    """The lines of the mapping that holds the key at ``lines[at]`` (content at column ``col``):
    same column, up to a shallower line, a ``---`` or the ``- `` that starts its list item."""
    for step in (-1, 1):
        i = at + step
        while 0 <= i < len(lines) and not (step < 0 and lines[at].lstrip().startswith("- ")):
            line, ind = lines[i], _indent(lines[i])
            if line.strip() and not line.lstrip().startswith("#"):
                item = line.lstrip().startswith("- ") and ind + 2 == col
                if line.startswith("---") or (ind < col and not item) or (item and step > 0):
                    break
                if ind == col or item:
                    yield line
                if item:
                    break
            i += step


def _redact_k8s_yaml(lines: list[str]) -> None:
    for i, line in enumerate(lines):
        m = _DATA_KEY.match(line)
        if not m:
            continue
        col = len(m.group(1)) + len(m.group(2) or "")
        if not any(_KIND_SECRET.match(s) for s in _siblings(lines, i, col)):
            continue
        if m.group(3):  # data: {a: b, c: d}
            lines[i] = line[: m.start(3)] + _FLOW_VALUE.sub(
                lambda v: v.group(1) + (PLACEHOLDER if literal(v.group(2)) else v.group(2)),
                m.group(3))
            continue
        _redact_secret_values(lines, i, col)


def _redact_secret_values(lines: list[str], head: int, col: int) -> None:
    end, i = _block_end(lines, head, col), head + 1
    while i < end:
        child = _CHILD.match(lines[i])
        if not child:
            i += 1
            continue
        value = child.group(4).strip()
        if re.fullmatch(r"[|>][+-]?\d*", value):
            i = _hide_block(lines, i, _indent(lines[i]))
            continue
        bare = value.strip("'\"")
        if bare and literal(bare):
            lines[i] = lines[i][: child.start(4)] + value.replace(bare, PLACEHOLDER, 1)
        i += 1


# --- Kubernetes Secret, JSON -------------------------------------------------------------------
_JSON_START = re.compile(r"(?m)^[ \t]*[{\[]")


def _k8s_json_values(text: str) -> set[str]:
    """The JSON-encoded data values of every Secret object in the JSON documents of ``text``."""
    if '"Secret"' not in text and '\\"Secret\\"' not in text:
        return set()
    found: set[str] = set()
    decoder = json.JSONDecoder()
    done = 0
    for tries, m in enumerate(_JSON_START.finditer(text)):
        if m.end() <= done:
            continue  # inside a document already read
        if tries > MAX_JSON_STARTS:
            break
        try:
            doc, done = decoder.raw_decode(text, m.end() - 1)
        except ValueError:
            continue
        _collect(doc, found, 0)
    return found


MAX_JSON_STARTS = 200
"""Lines opening a JSON value tried as document starts: a truncated document fails at every
inner ``{`` too, and each try reads to the end (the bound keeps that linear in practice)."""


def _collect(node: object, found: set[str], depth: int) -> None:
    if depth > 20:
        return
    if isinstance(node, dict):
        if node.get("kind") == "Secret":
            for key in ("data", "stringData"):
                values = node.get(key)
                if isinstance(values, dict):
                    found.update(v for v in values.values() if isinstance(v, str) and literal(v))
        for v in node.values():
            _collect(v, found, depth + 1)
    elif isinstance(node, list):
        for v in node:
            _collect(v, found, depth + 1)
    elif isinstance(node, str) and node.lstrip().startswith("{") and '"Secret"' in node:
        found.update(_k8s_json_values(node))  # an annotation holding the applied object


def _redact_k8s_json(text: str) -> str:
    for value in sorted(_k8s_json_values(text), key=len, reverse=True):
        encoded = json.dumps(value)[1:-1]
        for form in (encoded, encoded.replace('"', '\\"')):
            text = text.replace(f'"{form}"', f'"{PLACEHOLDER}"').replace(
                f'\\"{form}\\"', f'\\"{PLACEHOLDER}\\"')
    return text


# Quoted names with `=` (Windows .reg exports `"DefaultPassword"="..."`, some INI dialects) and
# Dockerfile's space form `ENV DB_PASSWORD value`.
_QUOTED_EQ = re.compile(r"([\"'])([^\W\d][\w.-]*)\1[ \t]*=[ \t]*([\"'])([^\"'\n]*)\3")
_DOCKER_ENV = re.compile(r"(?m)^[ \t]*ENV[ \t]+([A-Za-z_]\w*)[ \t]+(['\"]?)([^\s'\"=][^\s'\"]*)\2[ \t]*$")

# Values a CI log is told to mask (GitHub Actions `::add-mask::`, Azure Pipelines
# `issecret=true`): secret by declaration, whatever their shape.
_CI_MASK = re.compile(r"(::add-mask::|##vso\[task\.setvariable [^\]\n]*issecret=true[^\]\n]*\])"
                      r"[ \t]*(['\"]?)([^\s'\"]+)")


def _sub_ci_mask(m: re.Match[str]) -> str:
    value = m.group(3)
    if not literal(value):
        return m.group(0)
    return m.group(0)[: m.start(3) - m.start(0)] + PLACEHOLDER + m.group(0)[m.end(3) - m.start(0):]


_PASSES: tuple[tuple[str | re.Pattern[str], re.Pattern[str], Callable[[re.Match[str]], str]],
               ...] = (
    ("alue:", _YAML_PAIR, _sub_pair(3, 6)),  # (each pass runs only where its marker occurs)
    ('alue"', _JSON_PAIR, _sub_pair(1, 3)),
    ('alue="', _XML_PAIR, _sub_pair(1, 3)),
    ("</", _XML_ELEMENT, _sub_xml_element),
    ("</", _XML_KEYED, _sub_pair(3, 4)),
    ("-", _JSON_ARGV, _sub_pair(2, 5)),
    ("- -", _YAML_ARGV, _sub_pair(3, 5)),
    ("", _CALL_PAIR, _sub_call_pair),
    (re.compile(r"[\w-]\.[\w-]+="), _DOTTED, _sub_dotted),
    ("  ", _TABLE, _sub_table),
    ("=", _LINE, _sub_line),
    ("=", _QUOTED_EQ, _sub_pair(2, 4)),
    ("ENV", _DOCKER_ENV, _sub_pair(1, 3)),
    (re.compile(r"add-mask|issecret"), _CI_MASK, _sub_ci_mask),
)


def redact_structured(text: str) -> str:
    text = _redact_k8s_json(text)
    if re.search(r"(?m)^[ \t]*(?:- )?(?:[\w.\"'-]+:[ \t]*[|>]|kind:)", text):
        lines = text.split("\n")
        _redact_k8s_yaml(lines)
        _redact_blocks(lines)
        text = "\n".join(lines)
    for marker, rx, fn in _PASSES:
        if marker in text if isinstance(marker, str) else marker.search(text):
            text = rx.sub(fn, text)
    return text
