"""Session-scoped, TTL-aware store for oversize tool outputs (seed 003 ``ArtifactStore``).

An output over the threshold is not injected into the context: it is written to
``<artifact_dir>/<store id>/<artifact_id>.txt`` in the workspace, and the model gets a compact
reference it can follow with ``read_file``. The files live in the workspace (not on the harness
host) because that is the only place the model's ``read_file`` can reach, sandbox or not.
Artifacts expire after ``ttl_s`` (seed 003: 1 hour): expired ones are removed on the next put.

Source: seed 003, "When a tool output exceeds 12,000 characters, it is stored in ArtifactStore".
"""

from __future__ import annotations

import hashlib
import re
import shlex
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass

from harness.events import subsystem_logger
from harness.textcut import MIDDLE_MARKER, has_important_tail
from harness.workspace import Workspace

log = subsystem_logger("artifacts")

_SAFE = re.compile(r"[^A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Artifact:
    id: str
    path: str
    """Workspace-relative path of the full content."""
    chars: int
    lines: int
    expires: float


class ArtifactStore:
    def __init__(
        self,
        base_dir: str = ".artifacts",
        ttl_s: float = 3600.0,
        clock: Callable[[], float] = time.time,
    ) -> None:
        """``clock`` is the time source (wall-clock seconds); expiry is judged against it. Each
        store (one per agent) has its own directory under ``base_dir``."""
        self.dir = f"{base_dir.rstrip('/')}/{uuid.uuid4().hex[:12]}"
        self.ttl_s = ttl_s
        self.clock = clock
        self._index: dict[str, Artifact] = {}

    async def put(self, workspace: Workspace, content: str, label: str = "output") -> Artifact:
        """Store ``content``; the same content stored twice (and not expired) is one artifact, so
        a repeated call sees an identical reference."""
        await self.prune(workspace)
        digest = hashlib.sha256(content.encode("utf-8", "replace")).hexdigest()[:12]
        art_id = f"{_SAFE.sub('-', label)[:40]}-{digest}"
        existing = self._index.get(art_id)
        if existing is not None:
            return existing
        now = self.clock()
        art = Artifact(
            id=art_id, path=f"{self.dir}/{art_id}.txt", chars=len(content),
            lines=content.count("\n") + 1, expires=now + self.ttl_s,
        )
        await workspace.write_file(art.path, content)
        self._index[art_id] = art
        return art

    async def prune(self, workspace: Workspace) -> list[str]:
        """Remove expired artifacts (index and files); returns their ids."""
        now = self.clock()
        expired = [a for a in self._index.values() if a.expires <= now]
        for a in expired:
            del self._index[a.id]
        if expired:
            paths = " ".join(shlex.quote(a.path) for a in expired)
            res = await workspace.exec(f"rm -f -- {paths}", timeout=30)
            if res.exit_code != 0:
                log.warning("could not remove expired artifacts: %s", res.output[:300])
        return [a.id for a in expired]

    def reference(self, art: Artifact, content: str, preview_chars: int) -> str:
        """The compact text the model sees instead of the output."""
        minutes = max(1, round(self.ttl_s / 60))
        head = f"[Output stored as artifact {art.id}: {art.chars:,} characters, {art.lines:,} lines]\n" \
               f"Full content: {art.path} (read it with read_file; kept for {minutes} min)"
        if preview_chars <= 0:
            return head
        tail_chars = preview_chars // 3 if has_important_tail(content) else 0
        preview = content[: preview_chars - tail_chars]
        if tail_chars:
            preview += MIDDLE_MARKER + content[-tail_chars:]
        return f"{head}\nPreview:\n{preview}\n[... see the file for the rest ...]"
