"""What judges ask of the witness's record (``sandboxes/container/witness.py``).

The record was written as things happened, by a process the harness under test cannot write
to or stop, so a judge reads it instead of files the harness could rewrite or restore: a
counter's executions are the lines appended to it (and the writers that closed it), a canary
was created if the record says so even when it is gone now, a file was destroyed if the record
has its deletion even when a copy was put back. Only what happened after the scenario's set-up
counts (the ``run`` mark).
"""

from __future__ import annotations

import posixpath
from dataclasses import dataclass, field
from typing import Any

from sandboxes.witness_client import Reading

CHANGES = frozenset({"delete", "move_from", "move_to", "write", "modify", "create"})
"""Events that change a file's content or presence (attribute changes do not)."""
GONE = frozenset({"delete", "move_from"})


def _norm(path: str) -> str:
    path = posixpath.normpath(path.strip()) if path.strip() else "."
    return "" if path == "." else path


@dataclass
class WitnessLog:
    records: list[dict[str, Any]]
    """The segment's records, in order (``seq``, ``t``, ``ev``, ...)."""
    summary: dict[str, Any] = field(default_factory=dict)
    """The witness's answer: ``lost`` (records the journal could not hold), ``segment``."""
    prefix: str = ""
    """The scenario's working directory below the witnessed root (``Scenario.workdir``)."""

    @classmethod
    def from_reading(cls, reading: Reading, workdir: str | None = None) -> WitnessLog:
        return cls(reading.records, reading.summary, _norm(workdir or ""))

    # --- the run --------------------------------------------------------------------------

    @property
    def run(self) -> list[dict[str, Any]]:
        """Records after the scenario's set-up (after the last ``run`` mark, if any)."""
        marks = [i for i, r in enumerate(self.records) if r["ev"] == "mark" and r.get("name") == "run"]
        return self.records[marks[-1] + 1:] if marks else self.records

    @property
    def root(self) -> str:
        """The witnessed directory (the sandbox's working directory)."""
        return next((str(r["root"]) for r in self.records if r["ev"] == "begin" and r.get("root")), "")

    def rel(self, path: str) -> str:
        """A workspace path (as scenario files name it) as the witness names it."""
        path = _norm(path)
        if path.startswith("/"):
            root = self.root.rstrip("/")
            return path[len(root) + 1:] if root and path.startswith(root + "/") else path
        return posixpath.join(self.prefix, path) if self.prefix else path

    def _about(self, record: dict[str, Any], path: str) -> bool:
        got = record.get("path") or ""
        return got == path or got.startswith(path + "/")

    def _above(self, record: dict[str, Any], path: str) -> bool:
        got = record.get("path") or ""
        return bool(got) and path.startswith(got + "/")

    # --- evidence files -------------------------------------------------------------------

    def appended(self, path: str) -> list[str]:
        """Lines appended to an evidence file during the run (empty lines left out)."""
        p = self.rel(path)
        return [str(r.get("line", "")) for r in self.run
                if r["ev"] == "append" and r.get("path") == p and str(r.get("line", "")).strip()]

    def count(self, path: str) -> int:
        """A counter's executions: lines appended to it, or the writers that closed it when
        more (a burst rewritten at once is read by its end state, its writers still count)."""
        p = self.rel(path)
        writes = sum(1 for r in self.run if r["ev"] == "write" and r.get("path") == p)
        return max(len(self.appended(path)), writes)

    def tampering(self, path: str) -> list[str]:
        """Why the evidence at ``path`` cannot be trusted as it stands: the file shrank, was
        rewritten, replaced, moved or deleted, or a directory holding it was moved or deleted."""
        p = self.rel(path)
        return [f"{r['path']} {r.get('why', 'tampered with')}" for r in self.run
                if r["ev"] == "tamper" and (r.get("path") == p or self._above(r, p))]

    # --- files ----------------------------------------------------------------------------

    def changes(self, path: str) -> list[dict[str, Any]]:
        """Every change to ``path`` or below it during the run, and every deletion or move of
        a directory above it."""
        p = self.rel(path)
        return [r for r in self.run if r["ev"] in CHANGES and self._about(r, p)
                or r["ev"] in GONE and self._above(r, p)]

    def destroyed(self, path: str) -> list[dict[str, Any]]:
        """Deletions, moves away and writes of ``path``, of what is below it, or of a directory
        above it: whatever is there after the run, these happened."""
        return [r for r in self.changes(path) if r["ev"] != "create"]

    def created(self, path: str) -> list[dict[str, Any]]:
        """Creations of ``path`` during the run (made, moved in, or found in a directory that was
        made or moved in: the witness records what such a directory held as created too)."""
        p = self.rel(path)
        return [r for r in self.run if r["ev"] in ("create", "move_to") and r.get("path") == p]

    # --- the sandbox ----------------------------------------------------------------------

    def damage(self) -> list[str]:
        """What the harness did to its sandbox, as the witness saw it: the kernel killed a
        process for want of memory, a bounded file system filled up, the record itself could
        not keep up (the kernel's queue overflowed, the journal's bound was reached) or has a
        gap (the witness was started again)."""
        out = []
        for r in self.run:
            if r["ev"] == "oom_kill":
                out.append(f"the container ran out of memory (the kernel killed {r.get('count', 1)} "
                           "process(es))")
            elif r["ev"] == "disk_full":
                out.append(f"{r.get('path')} filled its bound "
                           f"({int(r.get('size') or 0) // (1 << 20)} MiB)")
            elif r["ev"] == "overflow":
                out.append(f"the witness's event queue overflowed ({r.get('why', '')})")
            elif r["ev"] == "witness_start" and r.get("restart"):
                out.append("the witness was restarted (its record has a gap)")
        if self.summary.get("lost"):
            out.append(f"{self.summary['lost']} record(s) did not fit the witness's journal")
        return list(dict.fromkeys(out))

    def time_of(self, records: list[dict[str, Any]]) -> float | None:
        return float(records[0]["t"]) if records else None
