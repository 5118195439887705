"""Child tool policy only narrows; the spawn-tier table (seeds 002, 004)."""

from __future__ import annotations

from harness.subagents.policy import (
    ToolPolicy,
    can_spawn,
    default_child_tier,
    resolve_child_tool_policy,
)

PARENT_TOOLS = ["bash", "read_file", "write_file", "agent"]


def test_no_request_inherits_exactly_the_parents_tools() -> None:
    child = resolve_child_tool_policy(ToolPolicy(), PARENT_TOOLS)
    assert child.allow_list == frozenset(PARENT_TOOLS)
    assert not child.permits("web_fetch")  # the parent lacks it


def test_the_allow_list_is_an_intersection() -> None:
    child = resolve_child_tool_policy(ToolPolicy(), PARENT_TOOLS, allow_list=["read_file", "web_fetch"])
    assert child.allow_list == frozenset({"read_file"})


def test_deny_lists_are_inherited() -> None:
    parent = ToolPolicy(deny_list=frozenset({"bash"}))
    child = resolve_child_tool_policy(parent, PARENT_TOOLS, allow_list=["bash", "write_file"])
    assert child.deny_list == {"bash"} and child.allow_list == frozenset({"write_file"})
    grandchild = resolve_child_tool_policy(child, PARENT_TOOLS)
    assert not grandchild.permits("bash") and grandchild.permits("write_file")


def test_a_narrowed_parent_narrows_its_children() -> None:
    parent = ToolPolicy(allow_list=frozenset({"read_file"}))
    child = resolve_child_tool_policy(parent, PARENT_TOOLS, allow_list=["read_file", "bash"])
    assert child.allow_list == {"read_file"}


def test_tier_table() -> None:
    assert can_spawn("chat", "reasoning") and can_spawn("chat", "worker")
    assert not can_spawn("chat", "chat")
    assert can_spawn("reasoning", "worker") and not can_spawn("reasoning", "reasoning")
    assert not can_spawn("reasoning", "chat")
    assert not any(can_spawn("worker", t) for t in ("chat", "reasoning", "worker"))
    assert can_spawn(None, None)
    assert default_child_tier("chat") == "reasoning" and default_child_tier("reasoning") == "worker"
    assert default_child_tier("worker") is None and default_child_tier(None) is None
