"""Secrets found by the structure of the document or the code that holds them.

``redaction_shapes`` judges one ``name=value`` or ``name: value`` pair at a time. Config formats
and code carry secrets in ways a single pair does not show. Most are read by the regexes of two
sections of ``redaction_patterns.yaml``: ``structured-documents`` (name/value pairs in two
fields, XML elements, INI/TOML/HCL/properties lines, argument vectors, dotted keys, call and
index pairs, key/value tables) and ``credential-calls`` (arrow pairs, setters, PowerShell's
``-AsPlainText``), with the judges of ``redaction_shapes.SUBS``. What one regex does not read
is here:

- a Kubernetes ``Secret``: every value under its ``data``/``stringData`` is secret material,
  whatever its key (``STRIPE_WEBHOOK_SIGNING``, ``tls.key``, ``config.ini: |``) and however
  short; found in YAML by the sibling ``kind: Secret`` of the ``data:`` key, in JSON
  (``kubectl -o json``, a ``last-applied-configuration`` annotation) by parsing;
- YAML block scalars (``token: |`` or ``>-``) whose value is on the following lines.

Each value is judged as ``NAME=value`` is (``redaction_shapes.hidden``): by the name when it
says secret, by the value (random key material) whatever the name, never under an identifier or
public name. Keys and document structure are kept; only values become ``[REDACTED]``; references
and placeholders (``${VAR}``, ``{{ .Values.x }}``, ``<your-key>``) stay, as in every pass.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from harness.security.redaction_passes import SUBS, run_passes
from harness.security.redaction_shapes import (
    PLACEHOLDER,
    SHAPES,
    _identifier,
    hidden,
    literal,
    secret_name,
)


# --- YAML block scalars under a secret name ----------------------------------------------------
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


def _hide_block(lines: list[str], head: int, indent: int, name: str | None = None) -> int:
    """Hide the lines of the block under ``lines[head]`` that are literals or, under ``name``,
    one token that is a secret under it; the index after the block."""
    end = _block_end(lines, head, indent)
    for i in range(head + 1, end):
        token = lines[i].strip()
        if token and (literal(token) if name is None else " " not in token and hidden(token, name)):
            lines[i] = lines[i][: _indent(lines[i])] + PLACEHOLDER
    return end


def _redact_blocks(lines: list[str]) -> None:
    """The block under a secret name goes whole; under any other name, each line that is one
    token of key material (``license: |`` then a key), as a ``name: value`` on one line would."""
    for i, line in enumerate(lines):
        m = SHAPES["yaml-block-head"].match(line)
        if m and secret_name(m.group(3)) is True:
            _hide_block(lines, i, _indent(line))
        elif m and not _identifier(m.group(3)):
            _hide_block(lines, i, _indent(line), m.group(3))


# --- Kubernetes Secret, YAML -------------------------------------------------------------------
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
        m = SHAPES["k8s-data-key"].match(line)
        if not m:
            continue
        col = len(m.group(1)) + len(m.group(2) or "")
        if not any(SHAPES["k8s-kind-secret"].match(s) for s in _siblings(lines, i, col)):
            continue
        if m.group(3):  # data: {a: b, c: d}
            lines[i] = line[: m.start(3)] + SHAPES["yaml-flow-value"].sub(SUBS["literal"], m.group(3))
            continue
        _redact_secret_values(lines, i, col)


def _redact_secret_values(lines: list[str], head: int, col: int) -> None:
    end, i = _block_end(lines, head, col), head + 1
    while i < end:
        child = SHAPES["yaml-child"].match(lines[i])
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
def _k8s_json_values(text: str) -> set[str]:
    """The JSON-encoded data values of every Secret object in the JSON documents of ``text``."""
    if '"Secret"' not in text and '\\"Secret\\"' not in text:
        return set()
    found: set[str] = set()
    decoder = json.JSONDecoder()
    done = 0
    for tries, m in enumerate(SHAPES["json-start"].finditer(text)):
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


def redact_structured(text: str) -> str:
    text = _redact_k8s_json(text)
    if re.search(r"(?m)^[ \t]*(?:- )?(?:[\w.\"'-]+:[ \t]*[|>]|kind:)", text):
        lines = text.split("\n")
        _redact_k8s_yaml(lines)
        _redact_blocks(lines)
        text = "\n".join(lines)
    return run_passes("structured-documents", text)
