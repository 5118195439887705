"""One transcript record as one line of JSON, whatever the record holds.

A transcript must never stop persisting because of what a model or a tool produced. Two things
cannot be written verbatim as UTF-8 JSON: lone surrogates (``"\\ud800"``, which a provider's JSON
can carry) and structures nested deeper than the encoder recurses (or cyclic ones). The first is
written with ``\\uXXXX`` escapes, which read back to the same string; the second has its too-deep
part written as a JSON *string* holding that part's text (encoded without recursion), marked so
a reader knows it was escaped. Nothing is dropped.
"""

from __future__ import annotations

import json
from typing import Any

from harness.messages import Message

MAX_DEPTH = 200
"""Containers nested deeper than this are escaped into a string (far below Python's recursion
limit, far above any real tool-call argument)."""
ESCAPED_KEY = "__looplab_escaped_json__"
"""Key of the object that replaces an escaped subtree: ``{ESCAPED_KEY: "<its JSON text>"}``."""


def record_line(record: dict[str, Any]) -> str:
    """``record`` as one line of JSON that encodes to UTF-8 (see the module docstring)."""
    try:
        line = json.dumps(record, ensure_ascii=False, default=str)
    except (RecursionError, ValueError):  # too deep, or a cycle
        return json.dumps(_bounded(record, 0, set()), ensure_ascii=True, default=str)
    try:
        line.encode("utf-8")
    except UnicodeEncodeError:  # lone surrogates: \uXXXX escapes read back to the same text
        return json.dumps(record, ensure_ascii=True, default=str)
    return line


def message_line(m: Message) -> str:
    """``m`` as one transcript line (``json.dumps`` layout, which readers of the file know)."""
    return record_line(message_record(m))


def message_record(m: Message) -> dict[str, Any]:
    """The record of a message (defaults left out), also for arguments too deep to dump."""
    try:
        return m.model_dump(mode="json", exclude_defaults=True)
    except (RecursionError, ValueError):
        calls = [{"id": c.id, "name": c.name, "arguments": _bounded(c.arguments, 1, set())}
                 for c in m.tool_calls]
        rec = m.model_dump(mode="json", exclude_defaults=True, exclude={"tool_calls"})
        return {**rec, "tool_calls": calls} if calls else rec


def bounded_message(m: Message) -> Message:
    """A copy of ``m`` whose tool-call arguments have their too-deep parts escaped."""
    calls = [c.model_copy(update={"arguments": _bounded(c.arguments, 1, set())})
             for c in m.tool_calls]
    return m.model_copy(update={"tool_calls": calls})


def _bounded(obj: Any, depth: int, active: set[int]) -> Any:
    """``obj`` with every container deeper than ``MAX_DEPTH`` (or inside itself) escaped."""
    if not isinstance(obj, dict | list | tuple):
        return obj
    if depth >= MAX_DEPTH or id(obj) in active:
        return {ESCAPED_KEY: flat_dumps(obj)}
    active.add(id(obj))
    try:
        if isinstance(obj, dict):
            return {str(k): _bounded(v, depth + 1, active) for k, v in obj.items()}
        return [_bounded(v, depth + 1, active) for v in obj]
    finally:
        active.discard(id(obj))


def flat_dumps(obj: Any) -> str:
    """JSON text of ``obj`` built with an explicit stack (no recursion, any depth); a container
    met again inside itself is written as ``"[cycle]"``."""
    out: list[str] = []
    active: set[int] = set()  # containers being written (a cycle meets one of them again)
    stack: list[Any] = [obj]
    while stack:
        item = stack.pop()
        if isinstance(item, _Lit):
            out.append(item.text)
            if item.leaving is not None:
                active.discard(item.leaving)
        elif not isinstance(item, dict | list | tuple):
            out.append(json.dumps(item, ensure_ascii=True, default=str))
        elif id(item) in active:
            out.append('"[cycle]"')
        else:
            active.add(id(item))
            is_dict = isinstance(item, dict)
            pieces: list[Any] = [_Lit("{" if is_dict else "[")]
            for i, v in enumerate(item.items() if isinstance(item, dict) else item):
                if i:
                    pieces.append(_Lit(","))
                if is_dict:
                    pieces.append(_Lit(json.dumps(str(v[0]), ensure_ascii=True) + ":"))
                    pieces.append(v[1])
                else:
                    pieces.append(v)
            pieces.append(_Lit("}" if is_dict else "]", leaving=id(item)))
            stack.extend(reversed(pieces))
    return "".join(out)


class _Lit:
    """A piece of already-encoded JSON text on ``flat_dumps``'s stack; the closing piece of a
    container also says which container it leaves."""

    __slots__ = ("leaving", "text")

    def __init__(self, text: str, leaving: int | None = None) -> None:
        self.text = text
        self.leaving = leaving
