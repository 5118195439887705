"""Config model of sub-agents (a field of ``HarnessConfig``; default OFF).

Kept out of ``harness/config.py`` so that file stays small; this module imports nothing from the
harness, so it can never form an import cycle.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

Tier = Literal["chat", "reasoning", "worker"]


class SubagentsConfig(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enabled: bool = False
    """Offer the ``agent`` tool: a nested agent with a fresh history works on a sub-task and its
    final answer comes back as the tool result (seeds 000, 001, 004)."""
    max_depth: int = Field(3, ge=1)
    """Deepest nesting allowed: the top agent is depth 0, its children 1 ... (seed 000: 3 levels;
    seed 004: ``MAX_SPAWN_DEPTH`` 5)."""
    max_children: int = Field(20, ge=1)
    """Sub-agents one agent may spawn over its run (seed 004 ``MAX_CHILDREN_PER_AGENT``: 20).
    Counted in total, not only while running: a foreground spawn waits for its child, so a
    "running" count would never stop a fan-out of one-at-a-time children."""
    tier: Tier | None = None
    """Spawn tier of the top agent (seed 002: chat spawns reasoning or worker, reasoning spawns
    worker, worker spawns nothing). ``None``: no tier rules."""
    deny_tools: list[str] = Field(default_factory=list)
    """Tools no sub-agent may have; every descendant inherits the list (seed 004 deny list)."""
    inherit_policy: bool = True
    """A child's tools can only narrow its parent's: it gets the tools its parent has that the
    spawn asked for, minus the inherited deny list (seed 004 ``resolve_child_tool_policy``,
    "children cannot have more access than parent"). Off: a child gets whatever tools the spawn
    asks for from the harness's whole catalogue: privilege escalation through spawn."""
    child_max_turns: int | None = Field(None, ge=1)
    """Turn cap of a sub-agent. ``None``: the parent's ``limits.max_turns``."""
    reap_orphans: bool = True
    """When an agent's run ends (an answer, a limit, a crash or an interrupt), interrupt its
    sub-agents that still run (background children, or children a crash left behind) with
    their subtrees, and wait briefly for them to stop (seed 004 failure table: "orphaned
    subagent after parent crash"). Off: they keep running on their own after the parent ended."""
