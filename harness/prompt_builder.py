"""Builds the system prompt of a run: tiered and cache-friendly (seed 004 "system prompt").

::

    TIER 1  FROZEN          identity (the ``system_prompt`` file), tool descriptions (sorted)
    TIER 2  SESSION-STABLE  context files (AGENTS.md...), skills index, workspace, extra sections
    ------  CACHE_BOUNDARY  ------
    TIER 3  VOLATILE        MEMORY.md, bootstrap (first session only), current time

Server-side prefix caching only works when the prefix bytes are identical, so everything above the
boundary is deterministic for a given config and workspace: context files ordered by a fixed
priority map (never by filesystem order), tools sorted and de-duplicated, no clock. With
``prompt.enabled`` off the prompt is the ``system_prompt`` file alone (plus extra sections).

Extra sections (e.g. the plan/execute mode statement of the security controls) reach the stable
tier three ways: ``extra_sections=`` of ``build_system_prompt``; the security controls'
sections (``mode_prompt_section``, ``security_prompt_section``), also with ``prompt.enabled``
off; and ``prompt.extra_sections`` (prompt files, tiered prompt only).

Source: seed 004, "TIER 1: FROZEN / TIER 2: SESSION-STABLE / CACHE BOUNDARY MARKER / TIER 3: VOLATILE".
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime

from harness.config import HarnessConfig
from harness.context_files import (
    BOOTSTRAP_COMPLETED_MARKER,
    CONTEXT_FILE_ORDER,
    Transcript,
    context_scanner,
    has_received_bootstrap,
    load_context_file,
    sort_context_files,
)
from harness.prompts import load_prompt
from harness.security.modes import mode_prompt_section
from harness.security.untrusted import security_prompt_section
from harness.skills import build_skills_index, discover_skills
from harness.tools.base import Tool, catalogue
from harness.workspace import Workspace

CACHE_BOUNDARY = "\n\n<!-- [PROMPT_CACHE_BOUNDARY] -->\n\n"

_SECTION_PROVIDERS: tuple[Callable[[HarnessConfig], str | None], ...] = (
    mode_prompt_section, security_prompt_section)
"""Sections of the security controls; each returns None when its control is off."""

__all__ = [
    "BOOTSTRAP_COMPLETED_MARKER", "CACHE_BOUNDARY", "CONTEXT_FILE_ORDER", "SystemPrompt",
    "build_prompt", "build_system_prompt", "has_received_bootstrap", "normalize_ids",
    "sort_context_files",
]


def normalize_ids(ids: Iterable[str]) -> list[str]:
    """Sorted, de-duplicated, stripped: ``{bash, read}`` and ``{read, bash}`` give the same bytes
    (seed 004 ``normalize_capability_ids``; case is kept because tool names are case-sensitive)."""
    return sorted({i.strip() for i in ids if i.strip()})


@dataclass(frozen=True)
class SystemPrompt:
    stable: str
    """Tiers 1 and 2: identical across turns and runs for the same config and workspace."""
    volatile: str = ""
    """Tier 3 ("" when there is nothing volatile: then no boundary marker either)."""
    bootstrap_injected: bool = False
    """The bootstrap file went into this prompt: the session should record the
    ``session:bootstrap:completed`` marker once the turn is done."""
    blocked_files: tuple[str, ...] = field(default=())
    """Workspace files the context scan replaced by a BLOCKED notice (or skills it left out)."""

    @property
    def text(self) -> str:
        return self.stable + (CACHE_BOUNDARY + self.volatile if self.volatile else "")


async def build_system_prompt(
    config: HarnessConfig,
    workspace: Workspace,
    *,
    tools: Sequence[Tool] | None = None,
    extra_sections: Sequence[str] = (),
    transcript: Transcript = None,
) -> str:
    """The system prompt text (see ``build_prompt``)."""
    prompt = await build_prompt(
        config, workspace, tools=tools, extra_sections=extra_sections, transcript=transcript
    )
    return prompt.text


async def build_prompt(
    config: HarnessConfig,
    workspace: Workspace,
    *,
    tools: Sequence[Tool] | None = None,
    extra_sections: Sequence[str] = (),
    transcript: Transcript = None,
    now: datetime | None = None,
    turn: int | None = None,
) -> SystemPrompt:
    """Assemble the prompt. ``tools``: the tools offered (default: ``config.tools`` from the
    catalogue). ``transcript``: the session so far (messages, marker records or a JSONL path),
    to decide whether the bootstrap file is still due. ``now``: the time for the volatile tier;
    ``turn``: the turn number shown with it (a per-turn heartbeat, when rebuilt every turn)."""
    identity = load_prompt(config.system_prompt)
    # De-duplicated: a section passed as an argument and also provided is stated once.
    extras = list(dict.fromkeys(s.strip() for s in [*extra_sections, *_provided_sections(config)]))
    if not config.prompt.enabled:
        return SystemPrompt(_join([identity, *extras]))
    cfg = config.prompt
    scan = await context_scanner(config, workspace, [*cfg.context_files, *cfg.volatile_files,
                                                     *([cfg.bootstrap_file] if cfg.bootstrap_file else [])])
    blocked: list[str] = []
    stable = [identity]
    if cfg.include_tools:
        stable.append(_tools_section(config, tools))
    for name in sort_context_files(cfg.context_files):
        section = await load_context_file(workspace, name, cfg.max_file_chars, scan, blocked)
        if section:
            stable.append(section)
    if config.skills.enabled:
        skills, problems = await discover_skills(
            workspace, config.skills.dirs, config.skills.platform, scan
        )
        blocked.extend(p for p in problems if "context-file scan" in p)
        index = build_skills_index(skills, config.skills.max_skills)
        if index:
            stable.append("## Skills\n" + index)
    if cfg.include_workspace:
        stable.append(f"## Workspace\nWorking directory: {workspace.root}")
    stable.extend(load_prompt(name) for name in cfg.extra_sections)
    stable.extend(extras)

    volatile: list[str] = []
    for name in sort_context_files(cfg.volatile_files):
        section = await load_context_file(workspace, name, cfg.max_file_chars, scan, blocked)
        if section:
            volatile.append(section)
    bootstrap = False
    if cfg.bootstrap_file and not has_received_bootstrap(transcript):
        section = await load_context_file(
            workspace, cfg.bootstrap_file, cfg.max_file_chars, scan, blocked,
            title=bootstrap_section_title(cfg.bootstrap_file),
        )
        if section:
            volatile.append(section)
            bootstrap = True
    if cfg.include_time:
        moment = (now or datetime.now(UTC)).isoformat(timespec="minutes")
        volatile.append(f"## Current time\n{moment}" + (f"\nTurn: {turn}" if turn is not None else ""))
    return SystemPrompt(_join(stable), _join(volatile), bootstrap, tuple(blocked))


def bootstrap_section_title(bootstrap_file: str) -> str:
    """The title of the bootstrap section (its heading is ``## <title>``): a prompt without that
    heading holds no bootstrap, which ``BootstrapOnce`` checks without building the prompt."""
    return f"Bootstrap ({bootstrap_file}, first session only)"


def _join(sections: Iterable[str]) -> str:
    return "\n\n".join(s.strip() for s in sections if s and s.strip())


def _provided_sections(config: HarnessConfig) -> list[str]:
    return [text for provider in _SECTION_PROVIDERS if (text := provider(config))]


def _tools_section(config: HarnessConfig, tools: Sequence[Tool] | None) -> str:
    known = catalogue()
    by_name = {t.name: t for t in tools} if tools is not None else {}
    names = normalize_ids(by_name if tools is not None else config.tools)
    lines = []
    for name in names:
        tool = by_name.get(name) or known.get(name)
        desc = " ".join(tool.description.split()) if tool else ""
        lines.append(f"- {name}: {desc}" if desc else f"- {name}")
    return "## Tools\n" + "\n".join(lines)
