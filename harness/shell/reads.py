"""One file read through the read tool and through the shell is one read (loop detection's key).

A model that does not find what it looks for in a file reads it again another way: the read
tool, then ``cat notes.txt``, ``less notes.txt``, ``head -n 500 notes.txt``, ``bat -p``. Each is a
whole-file read of the same path, so each gets the key of the read tool's call on that path
(``READ_KEY``). A partial read (``head -n 5``, a read tool call with an offset or a line range) keeps its own
key; ``head``/``tail`` with a count that asks for everything (``_WHOLE_COUNT``) is a whole read:
the detectors count calls as a repeat only when their results are also the same, so a count that
did cut the file gives another result and stays apart.

Read tools are recognised by the words of their name (``read_file``, ``ReadFile``, ``view``,
``fs.read_text_file``), not by a list of tool names, and only when a path is their only argument.
"""

from __future__ import annotations

import re
from typing import Any

from harness.shell.wrappers import programs

READ_KEY = "readfile"
"""The name every whole-file read is keyed under."""
_READ_WORDS = frozenset({"read", "view", "cat"})
"""A read tool's name has one of these words ..."""
_NAME_WORDS = frozenset({"read", "view", "cat", "file", "text", "show", "open", "contents", "content", "fs"})
"""... and only these."""
_PATH_ARGS = ("path", "file_path", "filepath", "file", "filename", "target_file", "absolute_path")
_COUNT = re.compile(r"^-?(\d+)$")
_WHOLE_COUNT = 200
"""A ``head``/``tail`` count from which the call asks for the whole file (``head -n 500 notes.txt``,
``tail -n +1``); below it the count is a window (``head -n5`` and ``head -n6`` are two calls)."""


def tool_read_path(words: list[str], args: dict[str, Any]) -> str | None:
    """The path a read tool's call reads whole (``words``: the tool name's words), else None."""
    if not words or not set(words) <= _NAME_WORDS or not set(words) & _READ_WORDS:
        return None
    given = {k: v for k, v in args.items() if v not in (None, "", [], {})}
    if len(given) != 1:
        return None
    (name, value), = given.items()
    return value if name in _PATH_ARGS and isinstance(value, str) else None


def shell_read_path(key: list[Any]) -> str | None:
    """The path a shell line's key (``harness.controls.loop_normalise.commands_key``) reads whole, else None."""
    if len(key) != 1 or not isinstance(key[0], list) or len(key[0]) != 4:
        return None
    program, flags, operands, redirects = key[0]
    if redirects or len(program) != 1:
        return None
    name = program[0]
    whole = programs()["whole_reads"]
    if name in whole and set(flags) <= set(whole[name]) and len(operands) == 1:
        return str(operands[0])
    if name in ("head", "tail") and set(flags) <= {"-n"} and len(operands) == 2 and _whole(name, operands[0]):
        return str(operands[1])  # a count that reaches the end reads it all (results tell)
    return None


def _whole(program: str, count: str) -> bool:
    if program == "tail" and count == "+1":
        return True
    m = _COUNT.match(str(count))
    return m is not None and int(m.group(1)) >= _WHOLE_COUNT
