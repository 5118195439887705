"""Head+tail cutting of long text (seed 004 ``truncate_tool_result``).

A leaf module (imports nothing of the harness) so truncation, compaction and the summariser can
all use it without import cycles. Truncating only the head loses the error at the end of a stack
trace; this keeps both ends when the tail looks important.

Source: seed 004, ``truncate_tool_result`` and ``has_important_tail``.
"""

from __future__ import annotations

import re

MIDDLE_MARKER = "\n\n[... middle content omitted ...]\n\n"
_TAIL_SIGNS = re.compile(
    r"\b(error|exception|failed|failure|fatal|traceback|exit code|panic)\b|\b(total|summary|result|done)\b",
    re.IGNORECASE,
)


def has_important_tail(text: str) -> bool:
    tail = text[-2000:]
    return bool(_TAIL_SIGNS.search(tail) or re.search(r"\}\s*$", tail.strip()))


def truncate(text: str, max_chars: int, keep_tail: bool = True, note: str = "") -> str:
    """Cut ``text`` to at most ``max_chars`` characters, keeping the tail when it matters.
    ``note`` is appended to the omission line (e.g. where the full output was saved)."""
    if len(text) <= max_chars:
        return text
    omitted = len(text) - max_chars
    suffix = f"\n[{omitted:,} characters omitted: output was {len(text):,} characters{note}]"
    budget = max(0, max_chars - len(suffix))
    if keep_tail and has_important_tail(text) and budget > 4_000:
        tail_budget = min(int(budget * 0.30), 4_000)
        head_budget = budget - tail_budget - len(MIDDLE_MARKER)
        head_cut = text.rfind("\n", 0, head_budget)
        head_cut = head_cut if head_cut > head_budget // 2 else head_budget
        tail_start = text.find("\n", len(text) - tail_budget)
        tail_start = tail_start + 1 if 0 <= tail_start < len(text) - 1 else len(text) - tail_budget
        return text[:head_cut] + MIDDLE_MARKER + text[tail_start:] + suffix
    return text[:budget] + suffix

