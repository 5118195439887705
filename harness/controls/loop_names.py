"""Tool names compared by meaning (loop detection with ``normalise_calls``).

A model that hallucinates a tool rarely spells it the same way twice: ``run_tests``,
``RunTests``, ``run-tests``, ``run.tests``, or with the namespace a provider or an MCP client
puts in front (``functions.run_tests``, ``mcp__server__run_tests``, ``tools/run_tests``). Each
name becomes its words (split at separators and camelCase boundaries, lower case), and also the
words of each namespace suffix, so those spellings compare equal without a list of known
prefixes.
"""

from __future__ import annotations

import re

_NAMESPACE = re.compile(r"__|[./:\\]+")
"""Separators that put a name inside a namespace (``a.b``, ``a/b``, ``a:b``, ``a__b``)."""
_PIECES = re.compile(r"[^\W_]+")
"""Word pieces between separators (``_``, ``-``, spaces, anything not a letter or digit)."""
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])")
"""camelCase and acronym boundaries: ``runTests``, ``HTTPGet`` (``HTTP`` + ``Get``)."""


def _words(segment: str) -> list[str]:
    return [w.casefold() for piece in _PIECES.findall(segment) for w in _CAMEL.split(piece) if w]


def name_keys(name: str) -> tuple[str, ...]:
    """The name's words (space-separated), first for the whole name, then for each shorter
    namespace suffix: ``functions.run_tests`` -> ``("functions run tests", "run tests")``."""
    segments = [s for s in _NAMESPACE.split(name.strip()) if _words(s)]
    keys = [" ".join(w for s in segments[i:] for w in _words(s)) for i in range(len(segments))]
    return tuple(dict.fromkeys(keys)) or (name.strip().casefold(),)


def flat(key: str) -> str:
    """A key without word boundaries: ``runtests`` and ``run_tests`` are one name."""
    return key.replace(" ", "")


def same_tool(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Whether two names (their ``name_keys``) name one tool: equal once flattened, one is a
    namespace suffix of the other, or both end in the same name of two words or more
    (``functions.run_tests`` and ``tools.run_tests``; a shared last word alone, as in
    ``read.file`` and ``write.file``, is not enough)."""
    if not a or not b:
        return False
    fa, fb = {flat(k) for k in a}, {flat(k) for k in b}
    if flat(a[0]) in fb or flat(b[0]) in fa:
        return True
    return any(" " in k and flat(k) in fb for k in a)
