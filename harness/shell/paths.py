"""One file, however its path is spelled (loop detection with ``normalise_calls``).

A model re-reading a file rarely types its path the same way twice: ``./notes/a.txt``,
``notes/a.txt``, ``notes//a.txt``, ``notes/./a.txt``, ``tmp/../notes/a.txt``, ``notes/`` and
``notes``, or the absolute path under the workspace root. ``path_key`` reduces a word that looks
like a path to its normal form (``posixpath.normpath``: the standard library's lexical
normalisation, the same one ``os.path`` uses), in file-tool arguments and in shell operands alike.

Lexical only: ``a/../b`` is taken to be ``b`` without asking the file system whether ``a`` is a
symbolic link. For comparing two calls of one loop that is the right trade: both calls resolve
the same way, and a symlinked parent walked back with ``..`` is rare in what a model types.
What is left alone: words that are not paths (whitespace, quotes, regex or shell metacharacters),
URLs, sed-style expressions (``s/a//`` is not ``s/a``), and a leading ``..`` (``../a`` is not ``a``).
"""

from __future__ import annotations

import posixpath
import re

_PATHLIKE = re.compile(r"^[\w.~@%+,:=*?/-]+$")
"""The characters of a path a model types; anything else (spaces, quotes, ``\\``, ``()[]{}^$|``)
means the word is code, a regex or prose, not a path."""
_EXPRESSION = re.compile(r"^(?:s|y|m|tr)/.*/")
"""sed/perl expressions (``s/old/new/``): their slashes are delimiters, not directories."""
_PWD = re.compile(r"^(?:\$PWD|\$\{PWD\})/")
"""``$PWD/a`` is ``a`` (the shell's working directory is the workspace root)."""


def path_key(word: str, root: str | None = None) -> str:
    """``word`` in normal form if it looks like a path (contains ``/``), else unchanged."""
    word = _PWD.sub("./", word)
    if "/" not in word or "://" in word or not _PATHLIKE.match(word) or _EXPRESSION.match(word):
        return word
    if root:
        base = root.rstrip("/")
        if base and (word == base or word.startswith(base + "/")):
            word = "." + word[len(base):]  # absolute under the workspace: workspace-relative
    return posixpath.normpath(word)
