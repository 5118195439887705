"""Empty and thought-only replies (seed 000): nudge and retry, a bounded number of times.

Without this control an empty reply has no tool calls, so the loop takes it as the final answer
and the run "completes" with nothing done: the naive failure.

Source: seed 000, "If the model produces zero tokens ... appends a nudge message".
"""

from __future__ import annotations

import re

from harness.config import EmptyReplyConfig
from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.messages import Message
from harness.model import ModelReply
from harness.prompts import load_prompt
from harness.state import RunState

log = subsystem_logger("empty-reply")

# Closed blocks, and an unclosed block running to the end (a reply cut off while thinking).
_THOUGHT_BLOCKS = re.compile(r"<(think|thought)>.*?(</\1>|\Z)", re.DOTALL | re.IGNORECASE)


def visible_text(text: str) -> str:
    """``text`` without ``<think>``/``<thought>`` blocks, stripped."""
    return _THOUGHT_BLOCKS.sub("", text).strip()


def classify(message: Message) -> str | None:
    """``"empty"``, ``"thought_only"`` or ``None`` (a reply with something to act on)."""
    if message.tool_calls:
        return None
    if visible_text(message.content):
        return None
    if message.content.strip() or (message.thoughts or "").strip():
        return "thought_only"
    return "empty"


class EmptyReplyGuard(Control):
    name = "empty_reply"

    def __init__(self, config: EmptyReplyConfig) -> None:
        self.config = config
        self.streak = 0

    async def on_run_start(self, run: RunState) -> None:
        self.streak = 0  # a streak never spans runs

    async def after_reply(self, run: RunState, reply: ModelReply) -> bool:
        kind = classify(reply.message)
        if kind == "thought_only" and not self.config.thought_only:
            kind = None
        if kind is None:
            self.streak = 0
            return False
        self.streak += 1
        if run.reached("empty_replies", self.streak):  # the limits table (harness.state)
            run.emit("reply.gave_up", kind=kind, replies=self.streak)
            run.end("empty_replies", f"the model returned {self.streak} empty or thought-only replies in a row")
        if kind == "empty":
            note, prompt = "[model returned an empty response — retrying…]", "empty_reply_nudge.md"
        else:
            note, prompt = "[model produced only internal thoughts — nudging…]", "thought_only_nudge.md"
        log.info("%s (%d/%d)", note, self.streak, self.config.max_nudges)
        run.emit(f"reply.{kind}", note=note, nudge=self.streak, max_nudges=self.config.max_nudges)
        run.messages.append(Message.user(load_prompt(prompt), origin="harness"))
        return True
