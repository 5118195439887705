"""Bootstrap once per session (seed 004: "don't re-inject 2,000-token bootstrap files on every
turn"; detect that the model already received them).

The prompt builder leaves ``BOOTSTRAP.md`` out once the session has the
``session:bootstrap:completed`` marker. This control supplies that fact: after the first reply to
a system prompt holding the bootstrap it records the marker (an event, and the transcript's marker
record when a transcript is given) and, before every later call, swaps the system message for the
same prompt built with the marker, i.e. without the bootstrap. Placed after the per-turn prompt
refresh, so a refresh that re-reads the file is undone before the call.

Source: seed 004, "Don't re-inject 2,000-token bootstrap files on every turn" (``has_received_bootstrap``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.context_files import BOOTSTRAP_COMPLETED_MARKER
from harness.controls.base import Control
from harness.messages import Message
from harness.model import ModelReply
from harness.prompt_builder import SystemPrompt, bootstrap_section_title, build_prompt
from harness.state import RunState

if TYPE_CHECKING:
    from harness.sessions.transcript_control import TranscriptControl

_DELIVERED = [{"marker": BOOTSTRAP_COMPLETED_MARKER}]


def _bootstrap_title(run: RunState) -> str | None:
    """The heading the prompt builder gives the bootstrap section."""
    name = run.config.prompt.bootstrap_file
    return f"## {bootstrap_section_title(name)}" if name else None


class BootstrapOnce(Control):
    name = "bootstrap_once"

    def __init__(self, transcript: TranscriptControl | None = None) -> None:
        self.transcript = transcript
        self.delivered = False

    async def _build(self, run: RunState, delivered: bool, turn: int) -> SystemPrompt:
        refresh = run.config.prompt.refresh_each_turn  # the refresh states the turn; match it
        return await build_prompt(run.config, run.workspace, tools=run.tools,
                                  transcript=_DELIVERED if delivered else None,
                                  turn=turn if refresh else None)

    def _system(self, run: RunState) -> Message | None:
        return run.messages[0] if run.messages and run.messages[0].role == "system" else None

    async def after_reply(self, run: RunState, reply: ModelReply) -> bool:
        system = self._system(run)
        if self.delivered or system is None:
            return False
        title = _bootstrap_title(run)
        if title is None or title not in system.content:
            return False  # the prompt holds no bootstrap section: nothing was delivered (no build)
        full = await self._build(run, delivered=False, turn=run.turns)  # the turn just answered
        if full.bootstrap_injected and system.content == full.text:
            self.delivered = True
            run.emit("session.bootstrap_delivered")
            if self.transcript is not None:
                self.transcript.marker(BOOTSTRAP_COMPLETED_MARKER)
        return False

    async def before_model(self, run: RunState) -> None:
        system = self._system(run)
        if not self.delivered or system is None:
            return
        full = await self._build(run, delivered=False, turn=run.turns + 1)
        if system.content != full.text:
            return  # not our prompt with the bootstrap (already stripped, or someone else's)
        bare = await self._build(run, delivered=True, turn=run.turns + 1)
        run.messages[0] = Message.system(bare.text)
        run.emit("session.bootstrap_skipped", turn=run.turns + 1)
