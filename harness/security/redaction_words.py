"""The words that name a secret, in many languages (``redaction_words.yaml``)."""

from __future__ import annotations

import re

from harness.security.patterns import PatternFileError, _read_yaml, _resolve


def load_words() -> tuple[tuple[str, ...], frozenset[str], tuple[str, ...]]:
    """``(words, weak words, words of several parts joined)`` from ``redaction_words.yaml``:
    the words for password, secret, key and token in many languages (data, so that a log
    field named ``passwort`` or ``密码`` is read as ``password`` is)."""
    path = _resolve("redaction_words.yaml")
    data = _read_yaml(path)
    if not isinstance(data, dict) or not all(isinstance(data.get(k), list) for k in ("strong", "weak")):
        raise PatternFileError(f"{path}: expected lists under 'strong' and 'weak'")
    words = [str(w).lower() for w in data["strong"] + data["weak"]]
    single = tuple(w for w in words if not re.search(r"[\s_-]", w))
    joined = tuple(re.sub(r"[\s_-]+", "", w) for w in words if re.search(r"[\s_-]", w))
    return single, frozenset(str(w).lower() for w in data["weak"]), joined


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
