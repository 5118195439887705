"""Workspace files that reach the system prompt: AGENTS.md and friends, MEMORY.md, BOOTSTRAP.md.

They are read through the ``Workspace`` (missing ones are skipped), optionally passed through the
context-file scanner (``harness.security.context_scan``), ordered by seed 004's fixed priority
map, and the bootstrap file is due only until the session records that it was delivered.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from harness.config import HarnessConfig
from harness.events import subsystem_logger
from harness.messages import Message
from harness.textcut import truncate
from harness.workspace import Workspace

log = subsystem_logger("prompt")

CONTEXT_FILE_ORDER: dict[str, int] = {
    "agents.md": 10,
    "soul.md": 20,
    "identity.md": 30,
    "user.md": 40,
    "tools.md": 50,
    "bootstrap.md": 60,
    "memory.md": 70,
}
"""Seed 004: sort by this map, never by filesystem order (which differs across OS, mount and
locale and would change the prompt bytes). Unlisted files come after, by name."""

BOOTSTRAP_COMPLETED_MARKER = "session:bootstrap:completed"
"""Transcript marker record (``{"marker": ...}``) saying the bootstrap text was delivered."""
SCAN_TAIL_BYTES = 256 * 1024
SCAN_MAX_RECORDS = 500

Transcript = Sequence[Message | dict[str, Any]] | str | Path | None
ScanFn = Callable[[str, str], Any]


def sort_context_files(names: Iterable[str]) -> list[str]:
    """De-duplicated and in the fixed priority order (ties by lower-case name, then name)."""
    def key(name: str) -> tuple[int, str, str]:
        base = Path(name).name.lower()
        return (CONTEXT_FILE_ORDER.get(base, 999), base, name)

    return sorted(set(names), key=key)


def scanner(config: HarnessConfig) -> ScanFn | None:
    """The context-file scanner when ``prompt.scan_context_files`` or ``context_scan.enabled`` is
    on (with ``context_scan.extra_patterns``). Imported lazily: the security package is optional
    for a bare harness, and a switched-on scan that cannot load is an error, never a silent skip."""
    security = getattr(config, "context_scan", None)
    if not (config.prompt.scan_context_files or getattr(security, "enabled", False)):
        return None
    try:
        from harness.security.context_scan import scan_context_file
    except ImportError as e:
        raise RuntimeError(
            "prompt.scan_context_files is on but harness.security.context_scan cannot be imported"
        ) from e
    extra = tuple(getattr(security, "extra_patterns", ()) or ())
    return partial(scan_context_file, extra_patterns=extra) if extra else scan_context_file


async def load_context_file(
    workspace: Workspace,
    name: str,
    max_chars: int,
    scan: ScanFn | None,
    blocked: list[str],
    title: str | None = None,
) -> str | None:
    """The prompt section for one workspace file, or None when it is missing or empty. A file the
    scanner rejects becomes its BLOCKED notice (and its name is added to ``blocked``)."""
    try:
        content = await workspace.read_file(name)
    except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
        return None
    except (OSError, UnicodeError) as e:  # unreadable: the run goes on without it
        log.warning("context file %s unreadable: %s", name, e)
        return None
    if not content.strip():
        return None
    if scan is not None:
        verdict = scan(content, name)
        if not verdict.safe:
            blocked.append(name)
        content = verdict.replacement
    return f"## {title or name}\n{truncate(content.strip(), max_chars)}"


def _records_from_path(path: Path) -> list[dict[str, Any]]:
    if not path.is_file():
        return []
    size = path.stat().st_size
    with open(path, "rb") as f:
        f.seek(max(0, size - SCAN_TAIL_BYTES))  # only the tail: fast on long transcripts
        tail = f.read().decode("utf-8", errors="replace")
    records = []
    for line in tail.splitlines()[-SCAN_MAX_RECORDS:]:
        try:
            rec = json.loads(line)
        except json.JSONDecodeError:
            continue  # the first line of the tail is usually cut
        if isinstance(rec, dict):
            records.append(rec)
    return records


def has_received_bootstrap(transcript: Transcript) -> bool:
    """True when the session already has the ``session:bootstrap:completed`` marker.

    ``transcript``: a list of ``Message`` objects and/or record dicts (a marker record is
    ``{"marker": "session:bootstrap:completed"}``; a ``Message`` with ``origin="marker"`` and that
    content counts too), or the path of a JSONL transcript (its last 256 KiB / 500 records are
    scanned, seed 004). None (a new session) has no marker.
    """
    if transcript is None:
        return False
    if isinstance(transcript, str | Path):
        items: Sequence[Message | dict[str, Any]] = _records_from_path(Path(transcript))
    else:
        items = transcript
    for item in items:
        if isinstance(item, dict) and item.get("marker") == BOOTSTRAP_COMPLETED_MARKER:
            return True
        if (isinstance(item, Message) and item.origin == "marker"
                and item.content == BOOTSTRAP_COMPLETED_MARKER):
            return True
    return False
