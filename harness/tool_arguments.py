"""Screening of what a model sends as a tool call, so that no model output can break the harness.

A model may send anything: NUL bytes and lone surrogates (which no file system, subprocess or
UTF-8 writer accepts), arguments nested thousands deep (``repr`` and ``json`` recurse), integers
of thousands of digits (``str()`` refuses them), NaN, megabytes of text. Each control and tool
would otherwise need its own guard, and one missing guard ends the run with ``error``. Instead
every reply is screened once as it arrives (``screen_reply``, called by the router, so every
backend is covered): names and ids are escaped, and arguments that no tool could take are replaced by ``{INVALID_JSON_KEY: <escaped preview>, "_error": <why>}``, and every tool answers
that with an error the model sees (``harness.tools.base.check_arguments``), so it can retry.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from harness.model import ModelReply

INVALID_JSON_KEY = "_invalid_json"
"""Arguments that could not be used as sent: the raw text (escaped, cut) is kept under this key
and the reason under ``_error`` so the call still gets an error result, not a crash."""
ERROR_KEY = "_error"

MAX_DEPTH = 32
"""Nesting levels a tool's arguments may have (tools take flat objects; 32 is generous)."""
MAX_CHARS = 2_000_000
"""Characters of text in all arguments together (a large file written in one call fits)."""
MAX_NODES = 100_000
"""Values (strings, numbers, list items, keys) in all arguments together."""
MAX_INT_BITS = 4096
"""Integers beyond this many bits cannot be printed (``str`` refuses > 4300 digits) or used."""
MAX_LABEL = 256
"""Characters of a tool name or call id that are kept (they are echoed back to the model)."""
_BAD_CHARS = re.compile(r"[\x00\ud800-\udfff]")


def escape_text(text: str) -> str:
    """``text`` with NUL bytes and lone surrogates written as escapes (valid UTF-8 after)."""
    if not _BAD_CHARS.search(text):
        return text
    return _BAD_CHARS.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def safe_label(label: str) -> str:
    """A tool name or call id fit to log, persist and echo: escaped, control characters
    dropped, cut to ``MAX_LABEL``."""
    out = escape_text(label)
    out = "".join(ch for ch in out if ch.isprintable() or ch == " ")
    return out if len(out) <= MAX_LABEL else out[:MAX_LABEL] + "..."


def screen_reply(reply: ModelReply) -> ModelReply:
    """``reply`` with each tool call's name, id and arguments screened (the same object when
    nothing needed it, so well-formed replies cost one scan)."""
    calls = reply.message.tool_calls
    screened = [c.model_copy(update={"id": safe_label(c.id) if isinstance(c.id, str) else "",
                                     "name": safe_label(c.name) if isinstance(c.name, str) else "",
                                     "arguments": screen_arguments(c.arguments)
                                     if isinstance(c.arguments, dict) else
                                     {INVALID_JSON_KEY: preview(c.arguments),
                                      ERROR_KEY: "arguments must be a JSON object"}})
                for c in calls]
    if all(a.id == b.id and a.name == b.name and a.arguments is b.arguments
           for a, b in zip(calls, screened, strict=True)):
        return reply
    message = reply.message.model_copy(update={"tool_calls": screened})
    return reply.model_copy(update={"message": message})


def screen_arguments(args: dict[str, Any]) -> dict[str, Any]:
    """``args`` unchanged when a tool can take them, else the ``INVALID_JSON_KEY`` form."""
    if INVALID_JSON_KEY in args and ERROR_KEY in args and len(args) == 2:
        return {INVALID_JSON_KEY: escape_text(str(args[INVALID_JSON_KEY]))[:4000],
                ERROR_KEY: escape_text(str(args[ERROR_KEY]))[:500]}
    problem = find_problem(args)
    if problem is None:
        return args
    return {INVALID_JSON_KEY: preview(args), ERROR_KEY: f"arguments rejected: {problem}"}


def find_problem(value: Any) -> str | None:
    """Why ``value`` cannot be a tool's arguments, or ``None``. Iterative: a deep value cannot
    exhaust the stack here."""
    stack: list[tuple[Any, int, str]] = [(value, 0, "")]
    chars = nodes = 0
    while stack:
        v, depth, where = stack.pop()
        nodes += 1
        if nodes > MAX_NODES:
            return f"more than {MAX_NODES:,} values"
        if depth > MAX_DEPTH:
            return f"nested deeper than {MAX_DEPTH} levels (at {where[:60] or 'top'}...)"
        if isinstance(v, str):
            chars += len(v)
            bad = _BAD_CHARS.search(v)
            if bad:
                what = "a NUL byte" if bad.group(0) == "\x00" else "a lone surrogate (not Unicode)"
                return f"{where or 'a value'} contains {what}"
        elif isinstance(v, bool) or v is None:
            continue
        elif isinstance(v, int):
            if v.bit_length() > MAX_INT_BITS:
                return f"{where or 'a value'} is an integer of more than {MAX_INT_BITS} bits"
        elif isinstance(v, float):
            if not math.isfinite(v):
                return f"{where or 'a value'} is not a finite number"
        elif isinstance(v, dict):
            for k, item in v.items():
                if not isinstance(k, str):
                    return f"a key of {where or 'the arguments'} is not a string"
                chars += len(k)
                if _BAD_CHARS.search(k):
                    return f"a key of {where or 'the arguments'} contains a NUL byte or surrogate"
                stack.append((item, depth + 1, _path(where, k)))
        elif isinstance(v, list | tuple):
            stack.extend((item, depth + 1, f"{where}[{i}]") for i, item in enumerate(v))
        else:
            return f"{where or 'a value'} is not JSON ({type(v).__name__})"
        if chars > MAX_CHARS:
            return f"more than {MAX_CHARS:,} characters of text"
    return None


def _path(where: str, key: str) -> str:
    key = escape_text(key)[:40]
    return f"{where}.{key}" if where else repr(key)


class _Raw(str):
    """A piece of the preview written as is (a key label or a bracket)."""


def preview(value: Any, limit: int = 600) -> str:
    """A short, escaped, non-recursive rendering of any value (for the model and the log)."""
    out: list[str] = []
    size = 0
    stack: list[Any] = [value]
    while stack and size < limit:
        v = stack.pop()
        if isinstance(v, _Raw):
            piece = str(v)
        elif isinstance(v, dict):
            stack.append(_Raw("}"))
            for k, item in reversed(list(v.items())[:20]):
                stack.extend([item, _Raw(f"{escape_text(str(k))[:60]}:")])
            piece = "{"
        elif isinstance(v, list | tuple):
            stack.append(_Raw("]"))
            stack.extend(reversed(list(v[:20])))
            piece = "["
        elif isinstance(v, str):
            piece = repr(escape_text(v[:200]) + ("..." if len(v) > 200 else ""))
        elif isinstance(v, int) and not isinstance(v, bool) and v.bit_length() > MAX_INT_BITS:
            piece = f"<integer of {v.bit_length()} bits>"
        else:
            piece = repr(v)[:200]
        out.append(piece)
        size += len(piece) + 1
    text = " ".join(out)
    return text if len(text) <= limit and not stack else text[:limit] + " ..."
