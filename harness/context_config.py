"""Config models of the context controls: compaction, context reset, the system prompt, the
bootstrap file, skills and reflection (fields of ``HarnessConfig``; defaults OFF). Kept out of ``harness/config.py`` so
that file stays small."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from harness.config_base import Strict as _Strict


class CompactionConfig(_Strict):
    enabled: bool = False
    """Summarise the middle of the history before it outgrows the context window (seed 004
    ``compact_history``; the context managers of seeds 000 and 001)."""
    threshold: float = Field(0.70, gt=0, lt=1)
    """Compact when the history exceeds this share of the context window (seed 004: ~70 %,
    seed 000: 80 %, seed 001: 90 %)."""
    keep_last: int = Field(5, ge=0)
    """Messages at the end kept verbatim (seed 000: 2, seed 001: 5). The cut moves earlier when
    needed so a tool call is never separated from its results."""
    keep_task_message: bool = False
    """Also keep the first user message (the task) verbatim instead of only in the summary."""
    strategy: Literal["summarize", "mechanical"] = "summarize"
    """``summarize``: the run's model summarises the middle in chunks and merges them (seed 004).
    ``mechanical``: one line per message, long outputs cut, no model call (seed 000)."""
    token_counter: Literal["model", "estimate"] = "model"
    """``model``: the model's own tokenizer when it offers one (seed 000), else ~4 chars/token.
    ``estimate``: always ~4 chars/token (seed 001)."""
    chunk_parts: int = Field(2, ge=1)
    """Chunks the middle is split into by token share before summarising (seed 004: 2); more when
    a chunk would exceed half the context window."""
    timeout_base_s: float = Field(120.0, gt=0)
    """Compaction safety timeout, fixed part (seed 004: 120 s). On timeout the middle gets a
    mechanical digest instead: the session never hangs on the summariser."""
    timeout_per_ktoken_s: float = Field(1.0, ge=0)
    """Extra seconds per 1,000 context tokens (seed 004: ``context_tokens / 1000``)."""
    timeout_token_cap: int = Field(200_000, ge=0)
    """Context tokens beyond this add no more time (seed 004: 200,000)."""
    tail_truncate_chars: int = Field(4_000, ge=500)
    """When the history is still above the threshold after compaction, tool outputs in the kept
    tail are cut head+tail to this many characters (seed 000 step 3)."""
    recover_overflow: bool = True
    """On a provider context-overflow error, compact (even below the threshold) and retry the
    call once; a second overflow ends the run with ``CONTEXT_OVERFLOW``."""
    handoff_on_switch: bool = True
    """After a model switch (failover, or ``RunState.request_handoff``), the next compaction
    writes a handoff briefing for the new model (seed 004 handoff mode)."""
    verify_identifiers: bool = False
    """After summarising, append verbatim every UUID, hash, IP/port, URL and path of the
    compacted messages that the summary lost (seed 004 only instructs; looplab verifies)."""
    preserve_progress: bool = False
    """After summarising, append verbatim the latest batch-progress lines ("17 of 43") that the
    summary lost."""
    max_preserved_identifiers: int = Field(60, ge=1)
    """At most this many identifiers are appended (most opaque kinds first, then most recent)."""


class ContextResetConfig(_Strict):
    enabled: bool = False
    """Full context reset (seed 004 "Ralph loop"): when compaction keeps degrading, replace the
    history with the system prompt and a structured handoff briefing (also written to
    ``.handoff-<ts>.md``). Works through the compaction control (needs ``compaction.enabled``)."""
    after_degraded: int = Field(2, ge=1)
    """Degraded compactions in a row before the reset. Degraded: the summariser failed or timed
    out, or the history is still above the threshold afterwards."""
    count_unverified: bool = False
    """Also count a compaction whose summary lost identifiers or progress (restored verbatim) as
    degraded."""


class PromptConfig(_Strict):
    enabled: bool = False
    """Tiered system prompt (seed 004): frozen (identity, tools) and session-stable (context
    files, skills index, workspace, extra sections) tiers, byte-identical across turns and runs,
    then a cache boundary, then volatile content. Off: the ``system_prompt`` file alone."""
    context_files: list[str] = Field(default_factory=lambda: [
        "AGENTS.md", "CLAUDE.md", ".cursorrules", "SOUL.md", "IDENTITY.md", "USER.md", "TOOLS.md",
    ])
    """Files read from the workspace root into the stable tier (missing ones are skipped),
    ordered by seed 004's fixed priority map, not by this list or the filesystem."""
    volatile_files: list[str] = Field(default_factory=lambda: ["MEMORY.md"])
    """Files read into the volatile tier, below the cache boundary (they change often)."""
    bootstrap_file: str | None = "BOOTSTRAP.md"
    """Read into the volatile tier only while the session has no ``session:bootstrap:completed``
    marker (bootstrap once per session)."""
    scan_context_files: bool = False
    """Pass every workspace file that reaches the prompt (context files, bootstrap, skills)
    through ``harness.security.context_scan.scan_context_file``; a blocked file is replaced by
    its notice."""
    max_file_chars: int = Field(20_000, ge=100)
    """A context file longer than this is cut head+tail."""
    include_tools: bool = True
    """List the offered tools (sorted) with their descriptions in the frozen tier."""
    include_workspace: bool = True
    """State the workspace root in the stable tier."""
    refresh_each_turn: bool = False
    """Rebuild the system prompt before every model call (seed 004 builds it per turn, with
    the volatile tier under the cache boundary inside the system message). A token-level
    prefix cache (vLLM) then loses the whole conversation whenever the volatile tier changes."""
    include_time: bool = False
    """State the current time in the volatile tier (never above the cache boundary)."""
    extra_sections: list[str] = Field(default_factory=list)
    """More prompt files (names under ``harness/prompts/`` or paths with a directory) for the stable tier, in this
    order (e.g. a security rule or a mode statement)."""


class SkillsConfig(_Strict):
    enabled: bool = False
    """Skills index in the prompt (seed 004 progressive disclosure): one line per
    ``<dir>/<name>/SKILL.md``; the model reads the full file with ``read_file`` when needed.
    Needs ``prompt.enabled``."""
    dirs: list[str] = Field(default_factory=lambda: ["skills"])
    """Skill directories, relative to the workspace root (or absolute)."""
    platform: str = "linux"
    """Skills whose frontmatter ``platforms`` excludes this are left out of the index."""
    max_skills: int = Field(200, ge=1)
    """At most this many skills in the index (sorted by name)."""


class ReflectionConfig(_Strict):
    enabled: bool = False
    """Budget-aware reflection step (seed 003 ``ReflectionEngine``): every ``every_turns`` turns
    the model writes a one-paragraph reflection that is added to the conversation."""
    every_turns: int = Field(5, ge=1)
    """Reflect after every this many turns."""
    max_reflections: int = Field(10, ge=1)
    """Reflections per run; later points get a stub (budget exhausted)."""
    token_budget: int = Field(20_000, ge=1)
    """Tokens (input + output) the reflections of one run may spend together."""
    timeout_s: float = Field(60.0, gt=0)
    """Deadline of one reflection call; on expiry a stub is returned and the run goes on."""


class BootstrapOnceConfig(_Strict):
    enabled: bool = False
    """Deliver the bootstrap file (``prompt.bootstrap_file``) once per session (seed 004 failure
    table, "bootstrap re-injected on every turn"): after the first reply to a system prompt that
    held it, the session counts it as delivered (``session:bootstrap:completed``) and later model
    calls get the prompt without it. Off: it stays in the system prompt of every call."""
