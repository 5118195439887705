"""Who may spawn what, with which tools (seed 004 ``resolve_child_tool_policy``, seed 002 tiers).

A child's tool policy can only narrow its parent's: it inherits the parent's deny list, and its
allow list is the intersection of what the parent has and what the spawn asked for. Unlike the
seed's sketch, a parent without an explicit allow list counts as allowing exactly the tools it
has (not nothing), and a spawn without an allow list inherits the parent's (not everything).

Source: seed 004, ``validate_spawn`` and ``resolve_child_tool_policy``; seed 002 spawn tiers; seed 000 "limited to 3 levels".
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from harness.subagents.config import Tier

# Seed 002: chat spawns reasoning or worker; reasoning spawns worker; worker spawns nothing.
SPAWNABLE: dict[str, tuple[str, ...]] = {
    "chat": ("reasoning", "worker"),
    "reasoning": ("worker",),
    "worker": (),
}


@dataclass(frozen=True)
class ToolPolicy:
    allow_list: frozenset[str] | None = None
    """Tools allowed; ``None``: every tool the agent has."""
    deny_list: frozenset[str] = frozenset()
    """Tools never allowed, whatever the allow list says."""

    def permits(self, name: str) -> bool:
        return name not in self.deny_list and (self.allow_list is None or name in self.allow_list)


def resolve_child_tool_policy(
    parent: ToolPolicy,
    parent_tools: Iterable[str],
    allow_list: Iterable[str] | None = None,
) -> ToolPolicy:
    """The child's policy: never wider than ``parent`` restricted to ``parent_tools``."""
    deny = parent.deny_list
    parent_allow = frozenset(n for n in parent_tools if parent.permits(n))
    allow = parent_allow if allow_list is None else parent_allow & frozenset(allow_list)
    return ToolPolicy(allow_list=frozenset(allow - deny), deny_list=deny)


def can_spawn(parent_tier: Tier | None, child_tier: Tier | None) -> bool:
    """Whether the tier table lets ``parent_tier`` spawn ``child_tier`` (no tiers: always)."""
    if parent_tier is None:
        return True
    return child_tier in SPAWNABLE[parent_tier]


def default_child_tier(parent_tier: Tier | None) -> Tier | None:
    """The tier a spawn gets when it does not ask for one: the next lower tier."""
    if parent_tier is None:
        return None
    lower = SPAWNABLE[parent_tier]
    return lower[0] if lower else None  # type: ignore[return-value]
