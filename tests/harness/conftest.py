"""Fixtures shared by the path-guard tests (file tools and shell commands)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """tmp/ws is the workspace; tmp/outside holds a secret; ws/link -> outside;
    ws/src_alias -> ws/src."""
    ws, outside = tmp_path / "ws", tmp_path / "outside"
    (ws / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "secret.txt").write_text("TOP SECRET")
    (ws / "src" / "main.py").write_text("print(1)")
    os.symlink(outside, ws / "link")
    os.symlink(ws / "src", ws / "src_alias")
    return ws
