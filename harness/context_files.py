"""Workspace files that reach the system prompt: AGENTS.md and friends, MEMORY.md, BOOTSTRAP.md.

They are read through the ``Workspace`` (missing ones are skipped), optionally passed through the
context-file scanner (``harness.security.context_scan``), ordered by seed 004's fixed priority
map, and the bootstrap file is due only until the session records that it was delivered.

On a local workspace each file's prompt section is cached under the file's stat signature
(``local_signature``): a system prompt rebuilt every turn reads and scans a file only when it
changed. Other workspaces (a sandbox reached through ``exec``) read every time, as a stat there
costs as much as the read.

Source: seed 004, "Sort context files by a fixed priority map, not by filesystem order" (``CONTEXT_FILE_ORDER``).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable, Sequence
from functools import partial
from pathlib import Path
from typing import Any

from harness.config import HarnessConfig
from harness.events import subsystem_logger
from harness.messages import Message
from harness.security.context_scan import SplitFindings, scan_context_file, split_findings
from harness.textcut import truncate
from harness.workspace import LocalWorkspace, Workspace

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

Transcript = Sequence[Message | dict[str, Any]] | None
ScanFn = Callable[[str, str], Any]


def sort_context_files(names: Iterable[str]) -> list[str]:
    """De-duplicated and in the fixed priority order (ties by lower-case name, then name)."""
    def key(name: str) -> tuple[int, str, str]:
        base = Path(name).name.lower()
        return (CONTEXT_FILE_ORDER.get(base, 999), base, name)

    return sorted(set(names), key=key)


def scanner(config: HarnessConfig, split: SplitFindings = ()) -> ScanFn | None:
    """The context-file scanner when ``prompt.scan_context_files`` or ``context_scan.enabled`` is
    on (with ``context_scan.extra_patterns``, and the joint findings ``split``)."""
    security = config.context_scan
    if not (config.prompt.scan_context_files or security.enabled):
        return None
    extra = tuple(security.extra_patterns)
    if split:  # a keyword of the partial: ``scan_key`` sees the findings, so cached sections follow them
        return partial(scan_context_file, extra_patterns=extra, config=security, split=split)
    return partial(scan_context_file, extra_patterns=extra, config=security)


async def context_scanner(config: HarnessConfig, workspace: Workspace, names: Iterable[str]) -> ScanFn | None:
    """``scanner(config)``; with ``context_scan.across_files`` it also blocks those of ``names``
    (every file this prompt loads) that complete an instruction split across them: files that
    reach the model together are judged together as well as alone."""
    scan = scanner(config)
    if scan is None or not config.context_scan.across_files:
        return scan
    ordered = sort_context_files(names)
    key = _split_key(workspace, ordered, scan)
    if key is not None and (hit := _splits.get(key)) is not None:
        return scanner(config, hit)
    files = []
    for name in ordered:
        content = await _read_text(workspace, name)
        if content and content.strip():
            files.append((name, content))
    split = split_findings(files, config.context_scan)
    if key is not None:
        bounded_put(_splits, key, split)
    return scanner(config, split)


_splits: dict[tuple[Any, ...], SplitFindings] = {}
"""(scanner, files' stat signatures) -> joint findings, on a local workspace (no reads when
nothing changed, as for the sections)."""


def _split_key(workspace: Workspace, names: list[str], scan: ScanFn) -> tuple[Any, ...] | None:
    root = local_root(workspace)
    if root is None:
        return None
    try:
        return (scan_key(scan), tuple((n, local_signature(os.path.join(root, n))) for n in names))
    except OSError:
        return None


async def _read_text(workspace: Workspace, name: str) -> str | None:
    """The file's text; None when it is missing or unreadable (the loader reports that)."""
    try:
        return await workspace.read_file(name)
    except (OSError, UnicodeError):
        return None


Signature = tuple[int, int, int, int] | None
"""``(mtime_ns, ctime_ns, size, inode)`` of a file, or None when it does not exist."""
_SECTION_CACHE_LIMIT = 512
_sections: dict[tuple[Any, ...], tuple[str | None, bool]] = {}
"""(path, signature, how it is rendered) -> (section, blocked)."""


def bounded_put(cache: dict[Any, Any], key: Any, value: Any) -> None:
    """``cache[key] = value``, emptying the cache first once it holds ``_SECTION_CACHE_LIMIT``."""
    if len(cache) >= _SECTION_CACHE_LIMIT:
        cache.clear()
    cache[key] = value


def local_root(workspace: Workspace) -> str | None:
    """The host directory behind ``workspace`` when its files can be stat'ed directly (a plain
    ``LocalWorkspace`` whose ``read_file`` is the directory's), else None."""
    if isinstance(workspace, LocalWorkspace) and type(workspace).read_file is LocalWorkspace.read_file:
        return workspace.root
    return None


def local_signature(path: str, *, follow: bool = True) -> Signature:
    """The stat signature of ``path``; None when it does not exist. Raises ``OSError`` for other
    failures (the caller then reads the file the ordinary way)."""
    try:
        st = os.stat(path) if follow else os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_size, st.st_ino if not stat.S_ISDIR(st.st_mode)
            else -st.st_ino)  # a directory's inode is negated: the same path as a file differs


def scan_key(scan: ScanFn | None) -> Any:
    """A cache key for a scanner: ``scanner()`` builds a new partial per call, so a partial is
    keyed by its parts (unhashable ones, such as a config model, by their repr)."""
    if not isinstance(scan, partial):
        return scan
    parts = [scan.func, *scan.args, *sorted(scan.keywords.items(), key=lambda kv: kv[0])]
    return tuple(_hashable(p) for p in parts)


def _hashable(value: Any) -> Any:
    try:
        hash(value)
    except TypeError:
        return repr(value)
    return value


async def load_context_file(
    workspace: Workspace,
    name: str,
    max_chars: int,
    scan: ScanFn | None,
    blocked: list[str],
    title: str | None = None,
) -> str | None:
    """The prompt section for one workspace file, or None when it is missing or empty. A file the
    scanner rejects becomes its BLOCKED notice (and its name is added to ``blocked``). Cached
    by stat signature on a local workspace."""
    root = local_root(workspace)
    if root is None:
        return await _load_context_file(workspace, name, max_chars, scan, blocked, title)
    path = os.path.join(root, name)
    try:
        sig = local_signature(path)
    except OSError:
        return await _load_context_file(workspace, name, max_chars, scan, blocked, title)
    if sig is None or sig[3] < 0:
        return None  # missing, or a directory: what reading it would give
    key = (path, sig, max_chars, scan_key(scan), title)
    hit = _sections.get(key)
    if hit is None:
        mine: list[str] = []
        section = await _load_context_file(workspace, name, max_chars, scan, mine, title)
        hit = (section, bool(mine))
        bounded_put(_sections, key, hit)
    if hit[1]:
        blocked.append(name)
    return hit[0]


async def _load_context_file(
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


def has_received_bootstrap(transcript: Transcript) -> bool:
    """True when the session's records hold the ``session:bootstrap:completed`` marker record
    (``{"marker": ...}``); None (a new session) has none."""
    return any(isinstance(r, dict) and r.get("marker") == BOOTSTRAP_COMPLETED_MARKER
               for r in transcript or ())
