"""Artifact store: session-scoped files in the workspace, deduplicated, expiring after a TTL."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness.artifacts import ArtifactStore
from harness.workspace import LocalWorkspace


class Clock:
    """A settable time source, so expiry is tested without sleeping."""

    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def test_put_writes_a_session_scoped_file(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    store = ArtifactStore()
    art = asyncio.run(store.put(ws, "full output\n" * 2_000, "bash"))
    assert art.path.startswith(f"{store.dir}/bash-") and art.chars == 24_000
    assert (tmp_path / art.path).read_text() == "full output\n" * 2_000


def test_two_sessions_do_not_share_a_directory(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    a = asyncio.run(ArtifactStore().put(ws, "same", "x"))
    b = asyncio.run(ArtifactStore().put(ws, "same", "x"))
    assert a.path != b.path and Path(a.path).parent != Path(b.path).parent


def test_same_content_is_one_artifact(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    store = ArtifactStore()
    a = asyncio.run(store.put(ws, "abc" * 5_000, "bash"))
    b = asyncio.run(store.put(ws, "abc" * 5_000, "bash"))
    c = asyncio.run(store.put(ws, "abd" * 5_000, "bash"))
    assert a == b and c.id != a.id


def test_artifacts_expire_after_the_ttl_and_their_files_are_removed(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    clock = Clock()
    store = ArtifactStore(ttl_s=3600, clock=clock)
    old = asyncio.run(store.put(ws, "old output", "bash"))
    clock.now += 3599
    assert asyncio.run(store.prune(ws)) == [] and (tmp_path / old.path).exists()
    clock.now += 2
    asyncio.run(store.put(ws, "new output", "bash"))  # a put prunes what expired
    assert not (tmp_path / old.path).exists()


def test_reference_is_compact_and_previews_an_important_tail(tmp_path: Path) -> None:
    store = ArtifactStore()
    content = "row\n" * 10_000 + "ERROR: disk full\n"
    art = asyncio.run(store.put(LocalWorkspace(tmp_path), content, "bash"))
    ref = store.reference(art, content, preview_chars=600)
    assert len(ref) < 1_000
    assert "read_file" in ref and "ERROR: disk full" in ref and "60 min" in ref
    assert art.path in ref
