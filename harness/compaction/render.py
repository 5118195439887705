"""Messages as text: a transcript for the summariser, and one-line digests for mechanical
compaction (seed 000: "summarise intermediate tool results to a one-line summary").

The summariser gets the segment as one plain-text transcript rather than raw chat messages: tool
messages without a tool list are rejected by some providers, and text works with every model.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from harness.messages import Message
from harness.textcut import truncate


def _args(arguments: dict[str, object], limit: int = 400) -> str:
    text = json.dumps(arguments, ensure_ascii=False, sort_keys=True, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def render_message(m: Message, max_chars: int) -> str:
    """One message as a transcript entry, its text cut head+tail to ``max_chars``."""
    body = truncate(m.content, max_chars) if len(m.content) > max_chars else m.content
    if m.role == "tool":
        status = "error" if m.is_error else "ok"
        return f"### tool result ({m.name}, {status})\n{body}"
    if m.role == "assistant":
        calls = "\n".join(f"[calls {c.name} {_args(c.arguments, 2_000)}]" for c in m.tool_calls)
        return "### assistant\n" + "\n".join(x for x in (body, calls) if x)
    label = f"user, {m.origin}" if m.origin else m.role
    return f"### {label}\n{body}"


def render_transcript(messages: Sequence[Message], max_chars_per_message: int) -> str:
    return "\n\n".join(render_message(m, max_chars_per_message) for m in messages)


def _first_line(text: str, limit: int) -> str:
    line = next((x.strip() for x in text.splitlines() if x.strip()), "")
    return line if len(line) <= limit else line[: limit - 3] + "..."


def one_line(m: Message, limit: int = 160) -> str:
    """A one-line digest of a message: what was asked, called, or returned."""
    if m.role == "tool":
        status = "error" if m.is_error else "ok"
        lines = m.content.count("\n") + 1 if m.content else 0
        return (f"- tool {m.name} -> {status}, {len(m.content):,} chars / {lines} lines: "
                f"{_first_line(m.content, limit)}")
    if m.role == "assistant":
        calls = ", ".join(f"{c.name}({_args(c.arguments, 120)})" for c in m.tool_calls)
        text = _first_line(m.content, limit)
        return "- assistant: " + "; ".join(x for x in (text, f"called {calls}" if calls else "") if x)
    who = f"user ({m.origin})" if m.origin else m.role
    if m.origin == "compaction":  # an earlier summary: keep it, it is already compact
        return f"- earlier summary:\n{truncate(m.content, limit * 20)}"
    return f"- {who}: {_first_line(m.content, limit * 2)}"


def mechanical_summary(messages: Sequence[Message], max_chars: int) -> str:
    """Digest ``messages`` to one line each, cut head+tail to ``max_chars`` overall."""
    text = "\n".join(one_line(m) for m in messages)
    header = f"(mechanical digest of {len(messages)} earlier messages, one line each)\n"
    return header + truncate(text, max(1_000, max_chars - len(header)))
