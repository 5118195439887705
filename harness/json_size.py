"""How many characters a JSON-like value takes, measured without ``str``, ``json`` or recursion.

Its own module because both the message history (``harness.messages``, token estimates) and the
screening of tool arguments (``harness.tool_arguments``) need it, and the screening module reads
model replies, which are made of messages.
"""

from __future__ import annotations

from typing import Any


def approx_chars(value: Any, cap: int = 10_000_000) -> int:
    """About how many characters ``value`` takes as JSON, without ``str`` or recursion (which
    a huge integer or deep nesting would break), counting at most ``cap``."""
    total, stack = 0, [value]
    while stack and total < cap:
        v = stack.pop()
        if isinstance(v, str):
            total += len(v) + 2
        elif isinstance(v, dict):
            total += 2 + sum(len(str(k)) + 4 for k in v)
            stack.extend(v.values())
        elif isinstance(v, list | tuple):
            total += 2 + len(v)
            stack.extend(v)
        elif isinstance(v, int) and not isinstance(v, bool):
            total += v.bit_length() * 3 // 10 + 1
        else:
            total += 5
    return min(total, cap)
