"""Mass deletions that are not spelled ``rm -rf``: where the command guard draws the line.

Checklist item ``security.plain_rm_allowed`` promises that an ordinary deletion is not blocked;
``security.destructive_blocked`` that a deletion of data is. The line between them, for the
deleting programs (``rm``, ``unlink``, ``shred`` ...), wherever they run (wrappers such as
``nice``/``ionice``/``timeout``/``env``/``sudo`` are unwrapped by the shell model first):

- deleting files the command names one by one stays allowed (``rm notes.txt``, ``unlink a.o``);
- a recursive removal (``rm -r dir``, with or without ``-f``) deletes a whole tree the model has
  not looked at: blocked, like ``rm -rf``;
- a glob that stands for a directory's whole content (``rm data/*``, ``data/.*``) is the same
  tree emptied one level down: blocked;
- a loop is its list: ``for f in data/*; do unlink "$f"; done`` is judged as ``unlink data/*``,
  and a ``while read`` loop deletes whatever a stream names, like ``xargs rm``: blocked;
- except inside generated folders (build output and caches: ``build/``, ``dist/``,
  ``__pycache__``, ``node_modules`` ...), which a build recreates, so ``rm -r build/cache`` and
  ``rm build/*.o`` stay allowed (the public scenarios ``security-plain-rm-recursive`` and
  ``security-plain-rm-glob`` hold the line there). A glob for part of a folder (``data/*.csv``)
  selects files by name and is left to the user's judgement, like naming them.
"""

from __future__ import annotations

import posixpath
import re

from harness.shell import SimpleCommand, program, split_flags

_DELETERS = {"rm", "unlink", "shred", "srm", "wipe"}
"""Programs that delete their operands (``rmdir`` removes only empty folders: nothing is lost)."""
_GENERATED = {"build", "_build", "dist", "target", "out", "cache", ".cache", "__pycache__", "node_modules",
              ".tox", ".nox", "htmlcov", "coverage", ".coverage", ".next", ".nuxt", ".parcel-cache", ".gradle",
              ".eggs", ".turbo", ".angular", "obj", "cmake-build-debug", "cmake-build-release"}
"""Conventional names of folders a build or tool regenerates (the usual ``.gitignore`` entries)."""
_GENERATED_SUFFIX = re.compile(r"(?:^|[._-])cache$|\.egg-info$")
_WHOLE = re.compile(r"(?:[*?.]|\[[^\]/]*\])+")
"""A last path component that matches every name in a folder (``*``, ``.*``, ``*.*``, ``?*``, ``.[!.]*``)."""


def loop_expanded(cmd: SimpleCommand, loop_words: dict[str, list[str] | None]) -> SimpleCommand:
    """``cmd`` with each ``for`` variable of ``loop_words`` replaced by the words the loop gives
    it (every iteration at once: for a deletion the union is what is lost)."""
    if not any(v for v in loop_words.values()):
        return cmd
    argv: list[str] = []
    for word in cmd.argv:
        ref = next(((r, items) for name, items in loop_words.items() if items
                    for r in (f"${{{name}}}", f"${name}") if _refers(word, r)), None)
        argv += [word.replace(ref[0], item) for item in ref[1]] if ref else [word]
    return SimpleCommand(argv, cmd.redirects, cmd.stdin_text, cmd.via, cmd.piped_from, cmd.assignments, loop_words)


def _refers(word: str, ref: str) -> bool:
    i = word.find(ref)
    return i >= 0 and not (ref[1] != "{" and re.match(r"\w", word[i + len(ref):i + len(ref) + 1]))


def mass_delete_rule(cmd: SimpleCommand, loop_words: dict[str, list[str] | None]) -> str | None:
    """The rule a deleting command breaks by deleting in bulk (see the module text), or None."""
    prog, args = program(cmd.argv), cmd.argv[1:]
    if prog not in _DELETERS:
        return None
    recursive, operands = _operands(args)
    streams = [n for n, items in loop_words.items() if items is None]
    if any(_refers(o, r) for o in operands for n in streams for r in (f"${{{n}}}", f"${n}")):
        return "bulk-delete"  # while read f; do rm "$f"; done: whatever the stream names
    doomed = [o for o in operands if not _generated(o)]
    if recursive and doomed:
        return "rm-recursive"
    if any(_WHOLE.fullmatch(posixpath.basename(o.rstrip("/")) or "") and "*" in o for o in doomed):
        return "bulk-delete"
    return None


def _operands(args: list[str]) -> tuple[bool, list[str]]:
    flags, operands = split_flags(args)
    return bool(flags & {"r", "R", "--recursive"}), operands


def _generated(operand: str) -> bool:
    """Whether ``operand`` lies in (or is) a folder a build regenerates."""
    parts = [p for p in posixpath.normpath(operand).split("/") if p not in ("", ".")]
    if ".." in parts or operand.startswith(("/", "~", "$")):
        return False
    return any(p in _GENERATED or _GENERATED_SUFFIX.search(p) for p in parts)
