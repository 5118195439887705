"""Sub-agent registry (seed 004 ``SubagentRegistry``): parent tracking, event-based completion,
orphan detection and the interrupt fence.

Completion is pushed, never polled: each child has a future that ``announce_completion``
resolves. An *orphan* is a child
still running after its parent's run ended; ``reap_orphans`` interrupts them. The interrupt
*fence* is a flag per record: flipping it for an agent flips it for every descendant, whose
supervisors stop at their next checkpoint (and whose agents are interrupted at once).

Source: seed 004, ``SubagentRegistry`` "Push completion to parent's queue - parent never polls".
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any, Literal

Status = Literal["running", "completed", "failed", "interrupted"]


@dataclass
class SubagentResult:
    child_id: str
    status: str
    """The child's exit status (``completed``, ``turn_limit``, ``interrupted`` ...)."""
    answer: str


@dataclass
class SubagentRecord:
    id: str
    parent_id: str
    depth: int
    tier: str | None
    task: str
    agent: Any = None
    """The child ``Agent`` (to interrupt it)."""
    status: Status = "running"
    result: SubagentResult | None = None
    fence: bool = False
    """Set when an interrupt reached this agent: it must stop at its next checkpoint."""
    done: asyncio.Future[SubagentResult] = field(default_factory=lambda: asyncio.get_running_loop().create_future())


class SubagentRegistry:
    def __init__(self) -> None:
        self.records: dict[str, SubagentRecord] = {}
        self.finished_parents: set[str] = set()

    def spawn(self, child_id: str, parent_id: str, task: str, tier: str | None = None, agent: Any = None) -> SubagentRecord:
        record = SubagentRecord(child_id, parent_id, self.depth(parent_id) + 1, tier, task, agent)
        self.records[child_id] = record
        if self.fenced(parent_id):
            record.fence = True  # spawned under an interrupt: it starts fenced
        return record

    def depth(self, agent_id: str) -> int:
        """0 for a top-level agent (not in the registry)."""
        record = self.records.get(agent_id)
        return record.depth if record else 0

    def children(self, parent_id: str) -> list[SubagentRecord]:
        return [r for r in self.records.values() if r.parent_id == parent_id]

    def count_children(self, parent_id: str) -> int:
        """Children ever spawned by ``parent_id`` (the fan-out limit counts these)."""
        return len(self.children(parent_id))

    def announce_completion(self, child_id: str, result: SubagentResult) -> None:
        record = self.records.get(child_id)
        if record is None or record.done.done():
            return
        record.status = ("completed" if result.status == "completed"
                         else "interrupted" if result.status == "interrupted" else "failed")
        record.result = result
        record.done.set_result(result)

    async def wait(self, child_id: str) -> SubagentResult:
        """The child's result, as soon as it is announced."""
        return await asyncio.shield(self.records[child_id].done)

    def fenced(self, agent_id: str) -> bool:
        record = self.records.get(agent_id)
        return bool(record and record.fence)

    def descendants(self, agent_id: str) -> list[SubagentRecord]:
        out, frontier = [], [agent_id]
        while frontier:
            kids = [r for r in self.records.values() if r.parent_id in frontier]
            out += kids
            frontier = [r.id for r in kids]
        return out

    def interrupt_subtree(self, agent_id: str) -> None:
        """Flip the fence for ``agent_id`` (a child) and every descendant, interrupting each
        running one."""
        own = self.records.get(agent_id)
        for r in ([own] if own else []) + self.descendants(agent_id):
            r.fence = True
            if r.status == "running" and r.agent is not None:
                r.agent.interrupt()

    def mark_finished(self, agent_id: str) -> None:
        """An agent's run ended: its still-running children are orphans from now on."""
        self.finished_parents.add(agent_id)

    def orphans(self, parent_id: str | None = None) -> list[SubagentRecord]:
        """Running children of finished parents (of ``parent_id`` only, when given)."""
        return [r for r in self.records.values()
                if r.status == "running" and r.parent_id in self.finished_parents
                and (parent_id is None or r.parent_id == parent_id)]

    def reap_orphans(self, parent_id: str | None = None) -> list[str]:
        """Interrupt every orphan (of ``parent_id`` only, when given) and its subtree; returns
        their ids."""
        ids = [r.id for r in self.orphans(parent_id)]
        for cid in ids:
            self.interrupt_subtree(cid)
        return ids
