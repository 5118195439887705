"""The tiered system prompt: deterministic stable prefix, context files, scan, bootstrap once,
extra sections, and the cache boundary."""

from __future__ import annotations

import asyncio
import shutil
from datetime import UTC, datetime
from pathlib import Path

import pytest

from harness import Agent, HarnessConfig, LocalWorkspace, Message
from harness.prompt_builder import (
    BOOTSTRAP_COMPLETED_MARKER,
    CACHE_BOUNDARY,
    build_prompt,
    build_system_prompt,
    has_received_bootstrap,
    sort_context_files,
)
from harness.prompts import load_prompt
from harness.testing import FunctionModel, scripted

FILES = Path(__file__).parent / "context_files"
POISONED = (FILES / "poisoned" / "01_ignore_previous.md").read_text()
BENIGN = (FILES / "benign" / "01_python_service.md").read_text()


def build(cfg: HarnessConfig, root: Path, **kw):
    return asyncio.run(build_prompt(cfg, LocalWorkspace(root), **kw))


def tiered(**prompt) -> HarnessConfig:
    return HarnessConfig(prompt={"enabled": True, **prompt})


def write(root: Path, **files: str) -> None:
    for name, text in files.items():
        (root / name.replace("_dot_", ".")).write_text(text)


def test_off_the_prompt_is_the_system_file_alone(tmp_path: Path) -> None:
    write(tmp_path, AGENTS_dot_md="rule: always lint")
    text = asyncio.run(build_system_prompt(HarnessConfig(), LocalWorkspace(tmp_path)))
    assert text == load_prompt("system.md")


def test_tiers_in_order_and_context_files_by_the_fixed_priority_map(tmp_path: Path) -> None:
    write(tmp_path, CLAUDE_dot_md="claude rules", USER_dot_md="user prefs",
          SOUL_dot_md="soul text", AGENTS_dot_md="agents rules", MEMORY_dot_md="remember x")
    p = build(tiered(), tmp_path)
    s = p.stable
    order = [s.index(x) for x in (load_prompt("system.md")[:40], "## Tools", "## AGENTS.md",
                                  "## SOUL.md", "## USER.md", "## CLAUDE.md", "## Workspace")]
    assert order == sorted(order)
    assert "remember x" not in s and "remember x" in p.volatile  # MEMORY.md below the boundary
    assert p.text == s + CACHE_BOUNDARY + p.volatile
    assert sort_context_files(["TOOLS.md", "x.md", "AGENTS.md", "AGENTS.md"]) == ["AGENTS.md", "TOOLS.md", "x.md"]


def test_missing_context_files_are_skipped_and_no_boundary_without_volatile(tmp_path: Path) -> None:
    p = build(tiered(bootstrap_file=None, volatile_files=[]), tmp_path)
    assert "## AGENTS.md" not in p.stable and p.volatile == ""
    assert CACHE_BOUNDARY not in p.text


def test_stable_prefix_is_byte_identical_across_builds_and_tool_orders(tmp_path: Path) -> None:
    write(tmp_path, AGENTS_dot_md="agents rules", TOOLS_dot_md="tool notes")
    a = build(tiered(include_time=True), tmp_path, now=datetime(2025, 1, 1, tzinfo=UTC))
    cfg_b = tiered(include_time=True).model_copy(
        update={"tools": ["list_dir", "write_file", "read_file", "bash", "bash"]})
    b = build(cfg_b, tmp_path, now=datetime(2025, 6, 1, 12, 30, tzinfo=UTC))
    assert a.stable == b.stable
    assert a.text != b.text  # only the volatile tier (the time) differs
    assert "2025-06-01T12:30" in b.volatile and "2025" not in b.stable
    tools = a.stable[a.stable.index("## Tools"):].split("\n\n")[0].splitlines()[1:]
    assert [t.split(":")[0] for t in tools] == ["- bash", "- list_dir", "- read_file", "- write_file"]


def test_the_system_message_is_the_same_bytes_in_every_run(tmp_path: Path) -> None:
    write(tmp_path, AGENTS_dot_md="agents rules")
    systems = []
    for _ in range(2):
        model = scripted("first", name="m")
        asyncio.run(Agent(tiered(), model, LocalWorkspace(tmp_path)).run("task"))
        systems.append(model.inputs[0][0].content)
    assert systems[0] == systems[1] and "agents rules" in systems[0]


def test_without_the_scan_a_poisoned_context_file_reaches_the_prompt(tmp_path: Path) -> None:
    write(tmp_path, AGENTS_dot_md=POISONED)
    p = build(tiered(), tmp_path)
    assert "Ignore all previous instructions" in p.stable and p.blocked_files == ()


def test_the_scan_blocks_a_poisoned_file_and_keeps_a_benign_one(tmp_path: Path) -> None:
    write(tmp_path, AGENTS_dot_md=POISONED, SOUL_dot_md=BENIGN)
    p = build(tiered(scan_context_files=True), tmp_path)
    assert "Ignore all previous instructions" not in p.text
    assert "[CONTEXT FILE BLOCKED: AGENTS.md]" in p.stable
    assert BENIGN.strip()[:200] in p.stable
    assert p.blocked_files == ("AGENTS.md",)


def test_the_scan_also_covers_bootstrap_and_memory(tmp_path: Path) -> None:
    write(tmp_path, BOOTSTRAP_dot_md=POISONED, MEMORY_dot_md=POISONED)
    p = build(tiered(scan_context_files=True), tmp_path)
    assert "Ignore all previous instructions" not in p.text
    assert set(p.blocked_files) == {"BOOTSTRAP.md", "MEMORY.md"}


def test_bootstrap_only_until_the_session_has_the_marker(tmp_path: Path) -> None:
    write(tmp_path, BOOTSTRAP_dot_md="run ./setup.sh first")
    fresh = build(tiered(), tmp_path)
    assert fresh.bootstrap_injected and "run ./setup.sh first" in fresh.volatile
    marker = {"marker": BOOTSTRAP_COMPLETED_MARKER}
    done = build(tiered(), tmp_path, transcript=[Message.user("hi"), marker])
    assert not done.bootstrap_injected and "setup.sh" not in done.text
    assert fresh.stable == done.stable  # the bootstrap never moves the cached prefix


def test_has_received_bootstrap_reads_marker_records() -> None:
    assert not has_received_bootstrap(None)
    assert not has_received_bootstrap([Message.user("hi")])
    assert has_received_bootstrap([Message.user("hi"), {"marker": BOOTSTRAP_COMPLETED_MARKER}])


def test_extra_sections_from_argument_and_config(tmp_path: Path) -> None:
    p = build(tiered(extra_sections=["reflection.md"]), tmp_path, extra_sections=["EXTRA ARG"])
    assert p.stable.index(load_prompt("reflection.md")[:30]) < p.stable.index("EXTRA ARG")


def test_long_context_files_are_cut(tmp_path: Path) -> None:
    write(tmp_path, AGENTS_dot_md="rule\n" * 10_000)
    p = build(tiered(max_file_chars=1_000), tmp_path)
    section = p.stable[p.stable.index("## AGENTS.md"):].split("\n\n## ")[0]
    assert len(section) < 1_200 and "characters omitted" in section


def test_tools_passed_by_the_agent_are_listed(tmp_path: Path) -> None:
    model = FunctionModel(lambda m, t: "done")
    agent = Agent(tiered().model_copy(update={"tools": ["read_file"]}), model, LocalWorkspace(tmp_path))
    asyncio.run(agent.run("task"))
    system = model.inputs[0][0].content
    assert "- read_file:" in system and "- bash" not in system


@pytest.mark.parametrize("name", sorted(p.name for p in (FILES / "benign").iterdir()))
def test_benign_context_files_pass_the_scan_unchanged(tmp_path: Path, name: str) -> None:
    shutil.copy(FILES / "benign" / name, tmp_path / "AGENTS.md")
    p = build(tiered(scan_context_files=True), tmp_path)
    assert p.blocked_files == () and "BLOCKED" not in p.stable


def test_the_security_controls_state_mode_and_rule_in_the_stable_tier(tmp_path: Path) -> None:
    base = asyncio.run(build_system_prompt(tiered(), LocalWorkspace(tmp_path)))
    cfg = HarnessConfig(prompt={"enabled": True}, mode={"enabled": True, "mode": "plan"},
                        untrusted_output={"enabled": True})
    p = build(cfg, tmp_path)
    assert load_prompt("mode_plan.md") in p.stable and load_prompt("security_rule.md") in p.stable
    assert load_prompt("mode_plan.md") not in base
    bare = HarnessConfig(mode={"enabled": True, "mode": "plan"})  # also without the tiers
    text = asyncio.run(build_system_prompt(bare, LocalWorkspace(tmp_path)))
    assert text == load_prompt("system.md") + "\n\n" + load_prompt("mode_plan.md")


def test_the_security_scan_switch_and_its_extra_patterns_apply(tmp_path: Path) -> None:
    write(tmp_path, AGENTS_dot_md="deploy with the internal-only-token please")
    cfg = HarnessConfig(prompt={"enabled": True},
                        context_scan={"enabled": True, "extra_patterns": ["internal-only-token"]})
    p = build(cfg, tmp_path)
    assert p.blocked_files == ("AGENTS.md",) and "deploy with the" not in p.text
    assert "internal-only-token" in build(tiered(), tmp_path).stable
