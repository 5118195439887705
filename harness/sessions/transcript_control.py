"""The Control that keeps a run's transcript on disk (seed 000 persistence, seed 004 atomic writes).

Flush points: before each model call (the task and any injected message), after each reply (the
assistant's tool calls are on disk *before* the tools run, so a crash mid-tool leaves calls that
resume answers), after each turn's tool results, and at run end (any status, interrupts too). A
crash therefore loses at most the turn in flight.

It must be the last control: it persists what the other controls added (nudges, interventions).
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import Any, ClassVar

from pydantic import BaseModel

from harness.config import TranscriptConfig
from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.messages import Message
from harness.model import ModelReply
from harness.sessions.files import FileStore, HostStore, WorkspaceStore, make_redactor
from harness.sessions.transcript import TranscriptWriter, new_session_id, validate_session_id
from harness.state import RunState
from harness.workspace import Workspace

log = subsystem_logger("sessions.transcript")


class TranscriptWriteFailed(BaseModel):
    """The ``transcript.write_failed`` event: a flush could not reach the store. Nothing is
    dropped: the records stay queued and the next flush writes them (and repairs the file)."""

    TYPE: ClassVar[str] = "transcript.write_failed"
    path: str
    error: str
    """``<exception type>: <message>``."""
    error_type: str
    pending_records: int
    """Records waiting for the next flush."""


class TranscriptControl(Control):
    name = "transcript"

    def __init__(self, config: TranscriptConfig, session_id: str | None = None) -> None:
        self.config = config
        self.session_id = validate_session_id(session_id or new_session_id())
        self.path = str(PurePosixPath(config.dir) / f"{self.session_id}.jsonl")
        self._redact = make_redactor(config.redact)
        self._writer: TranscriptWriter | None = None
        self._early_markers: list[tuple[str, dict[str, Any]]] = []

    def store_for(self, workspace: Workspace) -> FileStore:
        """Where the transcript lives: the host directory when configured, else the workspace."""
        if self.config.host_dir:
            return HostStore(self.config.host_dir)
        return WorkspaceStore(workspace)

    def writer(self, workspace: Workspace) -> TranscriptWriter:
        if self._writer is None:
            self._writer = TranscriptWriter(self.store_for(workspace), self.path,
                                            atomic=self.config.atomic, redact=self._redact)
            for name, data in self._early_markers:
                self._writer.marker(name, **data)
            self._early_markers = []
        return self._writer

    async def open(self, workspace: Workspace) -> list[Message]:
        """The stored conversation, repaired (unanswered tool calls answered), for resuming."""
        return await self.writer(workspace).open()

    def marker(self, name: str, **data: Any) -> None:
        """Record a harness fact (e.g. ``session:bootstrap:completed``) with the next flush."""
        if self._writer is None:
            self._early_markers.append((name, data))
        else:
            self._writer.marker(name, **data)

    async def flush(self, run: RunState) -> None:
        writer = self.writer(run.workspace)
        try:
            await writer.sync(run.messages)
        except Exception as e:  # persistence must not kill the agent; say so loudly instead
            log.warning("transcript %s: write failed: %s", self.path, e)
            failed = TranscriptWriteFailed(path=self.path, error=f"{type(e).__name__}: {e}",
                                           error_type=type(e).__name__,
                                           pending_records=writer.pending)
            run.emit(TranscriptWriteFailed.TYPE, **failed.model_dump())

    async def before_model(self, run: RunState) -> None:
        await self.flush(run)

    async def after_reply(self, run: RunState, reply: ModelReply) -> bool:
        # Write-ahead: the calls are on disk before they run, so a crash mid-tool is resumable.
        await self.flush(run)
        return False

    async def after_tools(self, run: RunState) -> None:
        await self.flush(run)

    async def on_run_end(self, run: RunState, status: str, message: str) -> None:
        self.marker("run:ended", status=status, message=message[:500], turns=run.turns)
        await self.flush(run)
