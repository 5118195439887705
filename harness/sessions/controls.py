"""The session controls a plain ``Agent`` gets from its config (``build_controls`` places them).

A ``Session`` builds its own bound instances instead (one transcript per session id, shared
across its runs); these are for an ``Agent`` used on its own, e.g. one CLI run.
"""

from __future__ import annotations

from dataclasses import dataclass

from harness.config import HarnessConfig
from harness.sessions.bootstrap import SessionBootstrap
from harness.sessions.transcript_control import TranscriptControl


@dataclass(frozen=True)
class SessionControls:
    bootstrap: SessionBootstrap | None
    """Goes before compaction: its message must count when the context is measured."""
    transcript: TranscriptControl | None
    """Goes last: it persists what every other control added."""


def build_session_controls(config: HarnessConfig, session_id: str | None = None) -> SessionControls:
    transcript = (TranscriptControl(config.transcript, session_id)
                  if config.transcript.enabled else None)
    bootstrap = (SessionBootstrap(config.progress, transcript)
                 if config.progress.enabled else None)
    return SessionControls(bootstrap, transcript)
