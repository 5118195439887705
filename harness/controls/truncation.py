"""Head+tail truncation of oversize tool output (seed 004 ``truncate_tool_result``).

Truncating only the head loses the error at the end of a stack trace; this keeps both ends when
the tail looks important.
"""

from __future__ import annotations

import re

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.messages import ToolCall
from harness.state import RunState
from harness.tools.base import ToolOutcome

MIDDLE_MARKER = "\n\n[... middle content omitted ...]\n\n"
_TAIL_SIGNS = re.compile(
    r"\b(error|exception|failed|failure|fatal|traceback|exit code|panic)\b|\b(total|summary|result|done)\b",
    re.IGNORECASE,
)


def has_important_tail(text: str) -> bool:
    tail = text[-2000:]
    return bool(_TAIL_SIGNS.search(tail) or re.search(r"\}\s*$", tail.strip()))


def truncate(text: str, max_chars: int, keep_tail: bool = True) -> str:
    """Cut ``text`` to at most ``max_chars`` characters, keeping the tail when it matters."""
    if len(text) <= max_chars:
        return text
    omitted = len(text) - max_chars
    suffix = f"\n[{omitted:,} characters omitted: output was {len(text):,} characters]"
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


class Truncation(Control):
    name = "truncation"

    def __init__(self, config: HarnessConfig) -> None:
        t = config.truncation
        # Characters allowed: the hard cap, or the share of the context window (4 chars/token).
        self.limit = min(t.max_chars, int(t.max_context_share * config.context_window * 4))
        self.keep_tail = t.keep_tail

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        if len(outcome.content) <= self.limit:
            return outcome
        run.emit("tool.truncated", tool=call.name, chars=len(outcome.content), limit=self.limit)
        return outcome.with_content(
            truncate(outcome.content, self.limit, self.keep_tail),
            truncated_from=len(outcome.content),
        )
