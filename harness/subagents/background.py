"""Background sub-agents: spawned without waiting; their results come back to the parent as
messages.

A background spawn returns the child's id at once and the parent keeps working. When the child
ends, its result is delivered before the parent's next model call (``collect``). A child still
running when its parent's run ends is an orphan: ``SubagentSupervisor`` reaps it when
``subagents.reap_orphans`` is on, and ``stop`` waits (bounded) until it has wound down.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable

from harness.subagents.registry import SubagentRegistry, SubagentResult


class BackgroundChildren:
    """The background children of one agent: their tasks, and which results were delivered."""

    def __init__(self, registry: SubagentRegistry) -> None:
        self.registry = registry
        self.tasks: dict[str, asyncio.Future[None]] = {}
        """Child id -> the task running it (kept so it is neither collected nor forgotten)."""
        self.delivered: set[str] = set()

    def start(self, child_id: str, run: Callable[[], Awaitable[None]]) -> None:
        self.tasks[child_id] = asyncio.ensure_future(run())

    def collect(self) -> list[SubagentResult]:
        """Results of children that ended since the last call, in spawn order."""
        out = []
        for child_id in self.tasks:
            record = self.registry.records.get(child_id)
            if child_id in self.delivered or record is None or record.result is None:
                continue
            self.delivered.add(child_id)
            out.append(record.result)
        return out

    async def stop(self, child_ids: list[str], timeout: float) -> None:
        """Wait up to ``timeout`` seconds for these children (already interrupted) to end."""
        tasks = [self.tasks[c] for c in child_ids if c in self.tasks and not self.tasks[c].done()]
        if tasks:
            await asyncio.wait(tasks, timeout=timeout)
