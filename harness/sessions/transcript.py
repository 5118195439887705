"""Session transcripts as JSONL (seed 000 ``.cyberpaw/sessions/<id>.jsonl``), written atomically.

One JSON object per line: a message (``{"role": ..., "content": ...}``, the ``Message`` model) or a
marker (``{"marker": "session:bootstrap:completed", ...}``) that records a harness fact without
adding to the conversation.

Crash-safety contract. Where the store can append (a host directory, a local workspace), each
flush appends the new records, whole lines in one ``write``: a crash mid-flush can tear only the
last line, which every reader skips, and the next writer cuts the torn tail off with one atomic
rewrite (temp file + rename) before appending again; every record of an earlier flush survives.
Where it cannot (a sandbox reached through its API), each flush writes the whole file to a temp
file and renames it over the old one (seed 004): the previous complete transcript survives. A
flush that fails is retried with the next one (its records stay queued) and reported as a typed
``transcript.write_failed`` event; what cannot be written verbatim is escaped
(``harness.sessions.records``), never dropped.

The loader is forgiving anyway: a line that does not parse (a file written by something else, or
cut by a non-atomic writer) is skipped with a warning, and :func:`repair_history` makes the history
valid again: every tool call gets exactly one answer, orphan and duplicate tool results go.
"""

from __future__ import annotations

import asyncio
import json
import re
import time
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from harness.events import subsystem_logger
from harness.messages import Message
from harness.sessions.files import NO_REDACTION, FileStore, Redactor, redact_obj
from harness.sessions.records import bounded_message, message_line, record_line

log = subsystem_logger("sessions.transcript")

SESSION_STATE_MARKER = "session:state:injected"
"""Written once the progress bootstrap (session state) was injected. The prompt builder's own
``session:bootstrap:completed`` (``harness.context_files``) is a different fact: BOOTSTRAP.md."""
INTERRUPTED_ANSWER = "[interrupted before completion]"
CONTEXT_ORIGINS = frozenset({"compaction", "reset"})
"""Origins of messages that are views of the context (summaries, handoffs), not conversation."""
"""What a tool call left unanswered by a crash or a kill is answered with on resume."""
_SESSION_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$")


def new_session_id() -> str:
    """A fresh, sortable session id (``20250101-120000-1a2b3c4d``)."""
    return f"{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:8]}"


def validate_session_id(session_id: str) -> str:
    """Session ids become file names: letters, digits, ``.``, ``_``, ``-`` only (no paths)."""
    if not _SESSION_ID.match(session_id) or ".." in session_id:
        raise ValueError(
            f"invalid session id {session_id!r}: use 1-128 letters, digits, '.', '_' or '-' "
            "(it becomes a file name)"
        )
    return session_id


# --- records -------------------------------------------------------------------------------------

def parse_records(text: str, source: str = "transcript") -> list[dict[str, Any]]:
    """The JSON objects of a JSONL text; lines that do not parse are skipped (and logged)."""
    records: list[dict[str, Any]] = []
    for n, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            log.warning("%s line %d is not valid JSON (%s): skipped", source, n, e.msg)
            continue
        if isinstance(rec, dict) and ("role" in rec or "marker" in rec):
            records.append(rec)
        else:
            log.warning("%s line %d is neither a message nor a marker: skipped", source, n)
    return records


def messages_of(records: Sequence[dict[str, Any]], source: str = "transcript") -> list[Message]:
    """The message records as ``Message`` objects, in order (markers and invalid records skipped)."""
    out: list[Message] = []
    for rec in records:
        if "role" not in rec:
            continue
        try:
            out.append(Message.model_validate(rec))
        except ValidationError as e:
            log.warning("%s: invalid message record skipped: %s", source, e.errors()[:1])
    return out


def repair_history(messages: Sequence[Message]) -> list[Message]:
    """A valid history: each tool call answered exactly once, right after the call.

    Calls left without an answer (a crash or kill mid-turn) get ``[interrupted before completion]``;
    tool messages that answer no pending call (orphans, duplicates) are dropped.
    """
    out: list[Message] = []
    pending: dict[str, Message] = {}  # call id -> the assistant message that made it

    def close_pending() -> None:
        for call_id in list(pending):
            msg = pending.pop(call_id)
            call = next(c for c in msg.tool_calls if c.id == call_id)
            out.append(Message.tool(call, INTERRUPTED_ANSWER, is_error=True))

    for m in messages:
        if m.role == "tool":
            if m.tool_call_id in pending:
                pending.pop(m.tool_call_id)
                out.append(m)
            continue  # orphan or duplicate answer: never valid in a history
        close_pending()
        out.append(m)
        if m.role == "assistant":
            pending = {c.id: m for c in m.tool_calls}
    close_pending()
    return out


def load_transcript(path: str | Path, repair: bool = True) -> list[Message]:
    """The conversation stored at ``path`` (a host file), ready for ``Agent.run(history=...)``."""
    p = Path(path)
    if not p.is_file():
        raise FileNotFoundError(f"transcript {p} does not exist")
    messages = messages_of(parse_records(p.read_text("utf-8", "replace"), str(p)), str(p))
    return repair_history(messages) if repair else messages


def redact_message(m: Message, redact: Redactor) -> Message:
    """A copy of ``m`` with every string it carries passed through ``redact``."""
    update: dict[str, Any] = {"content": redact(m.content)}
    if m.thoughts:
        update["thoughts"] = redact(m.thoughts)
    if m.tool_calls:
        update["tool_calls"] = [
            c.model_copy(update={"arguments": redact_obj(c.arguments, redact)}) for c in m.tool_calls
        ]
    return m.model_copy(update=update)


def _fingerprint(m: Message) -> str:
    return m.model_dump_json()


# --- writer --------------------------------------------------------------------------------------

class TranscriptWriter:
    """Appends the new messages of a conversation to one JSONL transcript.

    "New" is tracked by object identity: a message object already written is never written again.
    When the writer opens an existing file, the first history it sees is matched against the file
    by value (a resumed history continues the file instead of duplicating it). Messages that appear
    *before* already-written ones, summaries and handoffs (``origin`` ``compaction``/``reset``),
    and copies of written tool calls or results (a truncated tail) are context rewrites, not
    conversation: they are recorded as a ``context:rewritten`` marker, and the file keeps the
    full-fidelity log (a resumed session re-compacts as needed).
    """

    def __init__(self, store: FileStore, path: str, *, atomic: bool = True,
                 redact: Redactor | None = None) -> None:
        self.store = store
        self.path = path
        self.atomic = atomic
        self.redact = redact or NO_REDACTION
        self._lines: list[str] | None = None
        self._pending: list[str] = []  # lines not yet on disk (queued, or a failed flush's)
        self._rewrite = False  # the file on disk is not exactly ``_lines`` (torn tail, failed append)
        self._disk: list[Message] = []
        self._seeded = False
        self._seen: dict[int, Message] = {}  # id -> object: holding the ref keeps the id unique
        self._synced: list[Message] = []  # the history of the last sync (fast path: it grew)
        self._markers: list[str] = []
        self._call_ids: set[str] = set()  # tool calls and answers already in the file
        self._answer_ids: set[str] = set()
        self._lock = asyncio.Lock()  # the session write lock: one flush at a time

    async def open(self) -> list[Message]:
        """Read the existing transcript (if any); return its repaired history."""
        async with self._lock:
            await self._load()
            return repair_history(self._disk)

    async def _load(self) -> None:
        if self._lines is not None:
            return
        text = await self.store.read_text(self.path) or ""
        where = self.store.describe(self.path)
        records = parse_records(text, where)
        # Only the records that parse are kept: a torn line is cut off by the next flush.
        self._lines = [record_line(r) for r in records]
        self._rewrite = len(records) != sum(1 for ln in text.splitlines() if ln.strip()) or (
            bool(text) and not text.endswith("\n"))
        self._disk = messages_of(records, where)
        for m in self._disk:
            self._remember(m)

    def marker(self, name: str, **data: Any) -> None:
        """Queue a marker record; it is written with the next flush."""
        rec = {"marker": name, "at": datetime.now(UTC).isoformat(timespec="seconds")}
        rec.update({k: self.redact(v) if isinstance(v, str) else v for k, v in data.items()})
        self._markers.append(record_line(rec))

    async def sync(self, messages: Sequence[Message]) -> int:
        """Write the messages not yet in the file (and queued markers). Returns how many records
        this call added; raises ``OSError`` when the store fails (they stay queued)."""
        async with self._lock:
            await self._load()
            if not self._seeded:
                self._seed(messages)
            new_lines, rewritten = self._collect(messages)
            if rewritten:
                self.marker("context:rewritten", messages=rewritten)
            new_lines.extend(self._markers)
            self._markers = []
            self._pending.extend(new_lines)
            if self._pending:
                await self._write()
            return len(new_lines)

    @property
    def pending(self) -> int:
        """Records not yet on disk (a failed flush keeps them for the next one)."""
        return len(self._pending) + len(self._markers)

    async def _write(self) -> None:
        assert self._lines is not None
        pending = self._pending
        if self.atomic and self.store.can_append and not self._rewrite:
            try:
                await self.store.append_text(self.path, "".join(ln + "\n" for ln in pending))
            except BaseException:
                self._rewrite = True  # a part may be on disk: the retry rewrites the file whole
                raise
        else:
            text = "".join(ln + "\n" for ln in [*self._lines, *pending])
            await self.store.write_text(self.path, text, atomic=self.atomic)
            self._rewrite = False
        self._lines.extend(pending)
        self._pending = []

    def _seed(self, messages: Sequence[Message]) -> None:
        self._seeded = True
        matched = 0
        for m, d in zip(messages, self._disk, strict=False):
            if _fingerprint(redact_message(m, self.redact)) != _fingerprint(d):
                break
            self._seen[id(m)] = m
            matched += 1
        if self._disk and matched < len(self._disk):
            log.warning("%s: the history continues only %d of %d stored messages; the rest is "
                        "appended", self.store.describe(self.path), matched, len(self._disk))

    def _collect(self, messages: Sequence[Message]) -> tuple[list[str], int]:
        prev = self._synced
        self._synced = list(messages)
        # List equality checks identity first (at C speed): a history that only grew, the usual
        # turn, costs one comparison per message; a message replaced by an equal copy counts
        # as written (it is, by value).
        grew = len(messages) >= len(prev) and messages[: len(prev)] == prev
        start = len(prev) if grew else 0  # the history only grew: only its new tail is new
        last_seen = max((i for i in range(start, len(messages)) if id(messages[i]) in self._seen),
                        default=-1)
        lines: list[str] = []
        rewritten = 0
        for i in range(start, len(messages)):
            m = messages[i]
            if id(m) in self._seen:
                continue
            self._seen[id(m)] = m
            if i < last_seen or self._is_rewrite(m):
                rewritten += 1
                continue
            self._remember(m)
            lines.append(message_line(self._safe(m)))
        return lines, rewritten

    def _safe(self, m: Message) -> Message:
        """``m`` as it may be persisted: redacted (arguments nested too deep to walk are escaped
        first, so their text is redacted too)."""
        if self.redact is NO_REDACTION:
            return m
        try:
            return redact_message(m, self.redact)
        except RecursionError:
            return redact_message(bounded_message(m), self.redact)

    def _remember(self, m: Message) -> None:
        self._call_ids.update(c.id for c in m.tool_calls)
        if m.role == "tool" and m.tool_call_id:
            self._answer_ids.add(m.tool_call_id)

    def _is_rewrite(self, m: Message) -> bool:
        if m.origin in CONTEXT_ORIGINS:
            return True
        if m.role == "tool":
            return m.tool_call_id in self._answer_ids
        return bool(m.tool_calls) and all(c.id in self._call_ids for c in m.tool_calls)
