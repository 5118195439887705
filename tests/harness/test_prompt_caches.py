"""The system prompt is rebuilt from stat-keyed caches: no process per build, and every change to
a context file or a skill still shows in the next build."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from harness.config import HarnessConfig
from harness.prompt_builder import build_prompt
from harness.workspace import ExecResult, LocalWorkspace

CFG = HarnessConfig(prompt={"enabled": True}, skills={"enabled": True, "dirs": ["skills"]})


class CountingWorkspace(LocalWorkspace):
    """The real local workspace, counting the processes it starts."""

    execs = 0

    async def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        self.execs += 1
        return await super().exec(command, timeout)


def _skill(root: Path, name: str, description: str) -> None:
    d = root / "skills" / name
    d.mkdir(parents=True, exist_ok=True)
    (d / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nbody\n")


def _bump(path: Path) -> None:
    # A rewrite inside the same clock tick keeps mtime; the size and ctime still change, and a
    # forced later mtime makes the test independent of the filesystem's timestamp resolution.
    st = path.stat()
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_rebuilding_starts_no_process_and_sees_every_change(tmp_path: Path) -> None:
    ws = CountingWorkspace(tmp_path)
    (tmp_path / "AGENTS.md").write_text("use tabs")
    _skill(tmp_path, "deploy", "ship it")

    async def text() -> str:
        return (await build_prompt(CFG, ws)).text

    first = asyncio.run(text())
    assert "use tabs" in first and "deploy" in first and ws.execs == 1
    for _ in range(5):
        assert asyncio.run(text()) == first
    assert ws.execs == 1  # five rebuilds, no process

    (tmp_path / "AGENTS.md").write_text("use spaces, always")
    _bump(tmp_path / "AGENTS.md")
    assert "use spaces, always" in asyncio.run(text()) and ws.execs == 1

    _skill(tmp_path, "lint", "check style")  # a new skill directory: listed again
    after = asyncio.run(text())
    assert "lint" in after and "check style" in after and ws.execs == 2

    skill = tmp_path / "skills" / "deploy" / "SKILL.md"
    skill.write_text("---\nname: deploy\ndescription: ship it carefully\n---\n")
    _bump(skill)
    assert "ship it carefully" in asyncio.run(text()) and ws.execs == 2

    (tmp_path / "AGENTS.md").unlink()
    assert "use spaces" not in asyncio.run(text())
