"""Full context reset from a structured handoff (seed 004 "Ralph loop").

When compaction keeps degrading, summarising a summary of a summary only loses more. The reset
asks the model for a structured handoff briefing of the whole session, writes it to
``.handoff-<ts>.md`` in the workspace (audit trail, and the agent can re-read it), and replaces the
history with the system prompt and one ``[Session Continuation]`` message.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.compaction.compactor import compaction_timeout
from harness.compaction.identifiers import verify_summary
from harness.compaction.render import mechanical_summary, render_message
from harness.compaction.summarize import Summarizer, SummaryFailed
from harness.config import CompactionConfig
from harness.events import subsystem_logger
from harness.messages import Message
from harness.model import Model, Usage
from harness.workspace import Workspace

log = subsystem_logger("compaction")

CONTINUATION_PREFIX = "[Session Continuation]"


@dataclass
class ResetResult:
    messages: list[Message]
    path: str | None
    """Where the briefing was written in the workspace (None when the write failed)."""
    method: str
    """``model`` or ``fallback`` (mechanical digest: the model failed or timed out)."""
    reason: str = ""


async def context_reset(
    messages: Sequence[Message],
    model: Model | None,
    workspace: Workspace,
    cfg: CompactionConfig,
    *,
    window: int,
    tokens_of: Callable[[Message], int],
    context_tokens: int,
    handoff_reason: str | None = None,
    on_usage: Callable[[Usage], None] | None = None,
) -> ResetResult:
    head = [m for m in messages[:1] if m.role == "system"]
    body = list(messages[len(head):])
    method, reason = "model", ""
    try:
        if model is None:
            raise SummaryFailed("no model to write the handoff")
        summarizer = Summarizer(model, window, tokens_of, min_parts=1, on_usage=on_usage)
        briefing, _ = await asyncio.wait_for(
            summarizer.summarize(body, kind="reset", handoff_reason=handoff_reason),
            compaction_timeout(cfg, context_tokens),
        )
    except (TimeoutError, SummaryFailed) as e:
        method, reason = "fallback", str(e) or "compaction_timeout"
        briefing = mechanical_summary(body, max(2_000, int(0.15 * window * 4)))
    check = verify_summary(
        briefing, [render_message(m, 10**9) for m in body],
        identifiers=cfg.verify_identifiers, progress=cfg.preserve_progress,
        max_identifiers=cfg.max_preserved_identifiers,
    )
    if check.block:
        briefing += "\n\n" + check.block
    path = await _write_briefing(workspace, briefing)
    where = f"\n\n(This briefing is saved in {path}.)" if path else ""
    continuation = Message.user(f"{CONTINUATION_PREFIX}\n\n{briefing}{where}", origin="reset")
    return ResetResult([*head, continuation], path, method, reason)


async def _write_briefing(workspace: Workspace, briefing: str) -> str | None:
    path = f".handoff-{int(time.time())}.md"
    try:
        await workspace.write_file(path, briefing + "\n")
    except Exception:  # the reset must not fail because the audit copy could not be written
        log.warning("could not write %s", path, exc_info=True)
        return None
    return path
