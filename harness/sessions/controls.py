"""The session controls a plain ``Agent`` gets from its config (``build_controls`` calls this).

A ``Session`` builds its own bound instances instead (one transcript per session id, shared
across its runs); these are for an ``Agent`` used on its own, e.g. one CLI run.
"""

from __future__ import annotations

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.sessions.bootstrap import SessionBootstrap
from harness.sessions.transcript_control import TranscriptControl


def build_session_controls(config: HarnessConfig, session_id: str | None = None) -> list[Control]:
    """``[SessionBootstrap?, TranscriptControl?]``: append them LAST, so the transcript persists
    what every other control added (bootstrap first: its message is persisted with the task)."""
    transcript = (TranscriptControl(config.transcript, session_id)
                  if config.transcript.enabled else None)
    controls: list[Control] = []
    if config.progress.enabled:
        controls.append(SessionBootstrap(config.progress, transcript))
    if transcript is not None:
        controls.append(transcript)
    return controls
