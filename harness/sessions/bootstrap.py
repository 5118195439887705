"""Injects the session state at session start (seed 004 "inject state at session start").

Where: a user message (``origin="session-bootstrap"``) placed just before the first task
message, not a system-prompt section. The system prompt stays byte-identical across sessions
(seed 004's frozen tier, prefix-cache friendly); the state is still the first thing the model
reads about the task, and it is persisted in the transcript with the conversation.

Once per session: not again in later runs of the same session, nor after a resume whose history
already holds it. A ``session:state:injected`` marker is written to the transcript.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.config import ProgressConfig
from harness.controls.base import Control
from harness.messages import Message
from harness.sessions.files import WorkspaceStore
from harness.sessions.progress import build_session_bootstrap_prompt, detect_first_session
from harness.sessions.transcript import SESSION_STATE_MARKER
from harness.state import RunState

if TYPE_CHECKING:
    from harness.sessions.transcript_control import TranscriptControl

BOOTSTRAP_ORIGIN = "session-bootstrap"


class SessionBootstrap(Control):
    name = "session_bootstrap"

    def __init__(self, config: ProgressConfig, transcript: TranscriptControl | None = None) -> None:
        self.config = config
        self.transcript = transcript
        self._done = False

    async def before_model(self, run: RunState) -> None:
        if self._done:
            return
        self._done = True
        if any(m.origin == BOOTSTRAP_ORIGIN for m in run.messages):
            return  # a resumed session already has its state in the history
        store = WorkspaceStore(run.workspace)
        first = await detect_first_session(store, self.config.progress_file)
        text = await build_session_bootstrap_prompt(store, self.config)
        last_user = max((i for i, m in enumerate(run.messages) if m.role == "user"),
                        default=len(run.messages))
        run.messages.insert(last_user, Message.user(text, origin=BOOTSTRAP_ORIGIN))
        run.emit("session.bootstrap", first_session=first, chars=len(text))
        if self.transcript is not None:
            self.transcript.marker(SESSION_STATE_MARKER, first_session=first)
