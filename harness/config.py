"""``HarnessConfig``: every control of the reference harness, switchable and tuned here.

Each control has its own small config model; a preset (``harness/presets/*.yaml``) is a partial
``HarnessConfig`` in data. Unknown keys are rejected so a typo in a preset names the field.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel, Field, field_validator

from harness.config_base import Regex
from harness.config_base import Strict as _Strict
from harness.context_config import (
    BootstrapOnceConfig,
    CompactionConfig,
    ContextResetConfig,
    PromptConfig,
    ReflectionConfig,
    SkillsConfig,
)
from harness.discipline_config import ContractFirstConfig, VerifyDoneConfig
from harness.execution.config import DeadlinesConfig, ParallelToolsConfig, ReplayConfig
from harness.security.config import (
    CommandGuardConfig,
    ContextScanConfig,
    ModeConfig,
    PathGuardConfig,
    PermissionsConfig,
    RedactionConfig,
    UntrustedOutputConfig,
)
from harness.sessions_config import (  # re-exported: sessions import them from here
    InterruptConfig,
    ProgressConfig,
    QueueConfig,
    TranscriptConfig,
    TriageConfig,
)
from harness.subagents.config import SubagentsConfig


class LimitsConfig(_Strict):
    max_turns: int = Field(50, ge=1)
    """Model turns (one generation plus the tool calls it produced) before the run stops."""
    max_tool_calls: int | None = Field(None, ge=1)
    """Tool calls per user message before the run stops (seed 001: 300). ``None``: no cap."""


class LoopDetectionConfig(_Strict):
    enabled: bool = False
    """Watch tool calls for loops and intervene (seed 004 ``ToolLoopDetector``)."""
    history_size: int = Field(30, ge=2)
    """How many recent calls the detectors look at."""
    identical_repeat: bool = True
    """Detector: the same ``{tool, args}`` repeated within the window (seed 001 '3+', seed 004)."""
    warning_threshold: int = Field(3, ge=2)
    """Identical ``{tool, args}`` calls in the window before a warning is prepended to the result."""
    critical_threshold: int = Field(5, ge=2)
    """Identical calls in the window before a ``[LOOP DETECTED]`` intervention."""
    failing_repeat: bool = True
    """Detector: the same call failing again shortly after it failed (seed 000)."""
    failing_repeat_threshold: int = Field(2, ge=2)
    """Identical failing calls within ``failing_repeat_window`` that trigger an intervention
    (seed 000: 2)."""
    failing_repeat_window: int = Field(4, ge=2)
    """Most recent calls, the current one included, searched for identical failures (seed 000: 4)."""
    identical_repeat_same_output: bool = False
    """Count an identical call as a repeat only when its result is also unchanged. Off (seed
    004): arguments alone count, so paging or polling with one command is flagged. On: a
    repeated call that keeps returning new output (the next page) is progress, not a loop."""
    failing_repeat_same_output: bool = False
    """Count a repeat only when it also failed with the same output. Off (seed 000): the same
    failing call twice is enough. On: re-running a test suite after an edit that changed its
    output is not flagged."""
    ping_pong: bool = True
    """Detector: two calls alternating A-B-A-B (seed 001, seed 004 ``ping_pong``)."""
    ping_pong_threshold: int = Field(4, ge=3)
    """Trailing alternating calls that count as ping-pong (seed 001: 4, i.e. A-B-A-B)."""
    known_poll: bool = True
    """Detector: a known poll returning the same result again and again (seed 004
    ``known_poll_no_progress``). Polls are exempt from the identical-repeat and ping-pong
    detectors while this is on, so legitimate polling whose result changes is never flagged."""
    poll_tools: list[str] = Field(default_factory=lambda: [
        "command_status", "check_status", "get_status", 'process:"action": "(poll|log|status)"',
    ])
    """Poll tools: ``name``, or ``name:regex`` where the regex must match the call's arguments as
    canonical JSON (sorted keys)."""
    poll_command_pattern: Regex | None = r"^\s*(cat|tail)\s.*\.(status|log)\s*$|status"
    """A call whose string ``command`` argument (bash) matches this regex is a poll too."""
    poll_threshold: int = Field(5, ge=2)
    """Trailing identical results of one poll that mean no progress (seed 004: the critical
    threshold)."""
    unknown_tool: bool = True
    """Detector: the model keeps calling a tool that does not exist (seed 004 unknown-tool repeat)."""
    unknown_tool_threshold: int = Field(3, ge=1)
    """Calls of the same unknown tool in the window before a critical naming the available tools."""
    unknown_tool_any_name: bool = False
    """Also count unknown tools whatever their names: ``unknown_tool_threshold`` calls in a row
    to tools that do not exist (``run_tests``, ``execute_tests``, ``test_runner``) get a warning
    naming the available tools, ``critical_threshold`` in a row a critical. Off: only one name's
    calls count together."""
    circuit_breaker: bool = True
    """Global circuit breaker on the total number of tool calls in the run."""
    circuit_breaker_threshold: int = Field(200, ge=1)
    """Total tool calls in the run after which the global circuit breaker stops it."""
    critical_limit: int | None = Field(3, ge=1)
    """Critical interventions the model may ignore before the run is stopped with
    ``CIRCUIT_BREAKER``. ``None``: intervene, never stop."""
    normalise_calls: bool = False
    """Compare calls by meaning: tool names in any case, separator or namespace
    (``functions.run_tests`` = ``RunTests``), whitespace collapsed, shell commands as parsed
    (flags as a set, ``-rn`` = ``-n -r``; ``./run.sh`` = ``run.sh`` = ``sh run.sh``). Off (the
    seeds): arguments compared as canonical JSON."""
    mask_volatile_output: bool = False
    """Compare results with volatile tokens masked (timestamps in any usual format, durations and
    ages, PIDs, hex and random ids, labelled counters and gauges such as load averages), so a poll
    whose only change is its clock makes no progress. Off: byte equality."""
    cycle_max_length: int = Field(2, ge=2, le=8)
    """Longest repeated sequence of distinct calls detected (A-B-C-A-B-C is 3); 2: ping-pong only."""
    cycle_repeats: int = Field(2, ge=2)
    """Full repetitions of a sequence of 3+ calls at the end of the window that count as a cycle
    (2: A-B-C-A-B-C, like ping-pong's A-B-A-B)."""

    @field_validator("poll_tools")
    @classmethod
    def _poll_regexes_compile(cls, v: list[str]) -> list[str]:
        for entry in v:
            _, _, pattern = entry.partition(":")
            try:
                re.compile(pattern)
            except re.error as e:
                raise ValueError(f"poll_tools entry {entry!r}: invalid regex: {e}") from e
        return v


class TruncationConfig(_Strict):
    enabled: bool = False
    """Cap oversize tool output before it reaches the model (seed 004 head+tail truncation)."""
    max_chars: int = Field(16_000, ge=1_000)
    """Hard cap on one tool result, in characters."""
    max_context_share: float = Field(0.30, gt=0, le=1)
    """Never let one result take more than this share of the context window."""
    keep_tail: bool = True
    """Keep the tail when it looks important (errors, tracebacks, totals, closing JSON)."""
    mode: Literal["head_tail", "offload", "artifact", "summarize"] = "head_tail"
    """``head_tail``: cut the output (seed 004). ``offload``: cut it and write the full output to
    ``offload_dir`` in the workspace, naming the file (seed 004 ``offload_large_result``).
    ``artifact``: store it in the session's artifact store and return a compact reference of kind
    ``artifact`` (seed 003 ``ArtifactStore``). ``summarize``: offload it and show a summary by the
    run's model instead of the cut text (seed 002's summarizer)."""
    offload_dir: str = ".agent-output"
    """Workspace directory for offloaded outputs (seed 004)."""
    artifact_dir: str = ".artifacts"
    """Workspace directory of the artifact store; each session has a subdirectory."""
    artifact_ttl_s: float = Field(3600.0, gt=0)
    """Artifacts expire (their files are removed) after this long (seed 003: 1 hour)."""
    preview_chars: int = Field(1_500, ge=0)
    """Characters of the output shown with an artifact reference or an offload summary."""


class FailoverConfig(_Strict):
    enabled: bool = False
    """On retriable provider errors, rotate auth profiles (model entries sharing a name) and move
    to the next model in the fallback chain (seed 004)."""
    max_attempts_per_model: int = Field(1, ge=1)
    """Attempts on one auth profile (with backoff) before rotating to the next profile/model."""
    backoff_s: float = Field(0.0, ge=0)
    """Sleep before retrying the same model (the provider's ``Retry-After`` wins when larger)."""
    handoff_note: bool = True
    """Tell the new model it is taking over the session after a switch (handoff mode)."""
    cooldowns_s: dict[str, float] = Field(default_factory=lambda: {
        "rate_limit": 60.0, "overloaded": 30.0, "auth_error": 300.0, "quota_exceeded": 3600.0,
    })
    """Cooldown of an auth profile after a failure, per fault kind (seed 004 ``mark_failure``)."""
    default_cooldown_s: float = Field(60.0, ge=0)
    """Cooldown for fault kinds not in ``cooldowns_s`` (seed 004: 60 s)."""
    honour_retry_after: bool = True
    """A provider's ``Retry-After`` replaces the cooldown of the profile that failed."""
    max_wait_s: float = Field(0.0, ge=0)
    """When every profile of the last model is cooling: wait for the soonest one to expire if
    that is at most this many seconds away; otherwise end with ``FALLBACKS_EXHAUSTED``."""
    retry_budget_s: float | None = Field(None, ge=0)
    """Total seconds one model call may spend failing and waiting (backoff, cooldown waits),
    over every profile and model, counted from the call's start. A wait that would pass the
    budget is not started: the run ends with ``FALLBACKS_EXHAUSTED`` instead. A server that
    stops answering therefore ends the run within this budget plus one request's HTTP timeout.
    ``None``: no time budget (the seeds set none)."""
    max_failed_attempts: int | None = Field(None, ge=1)
    """Failed attempts one model call may make (over every profile and model) before the run
    ends with ``FALLBACKS_EXHAUSTED``. ``None``: no cap (the seeds set none)."""

    @field_validator("cooldowns_s")
    @classmethod
    def _known_kinds(cls, v: dict[str, float]) -> dict[str, float]:
        kinds = {"rate_limit", "overloaded", "quota_exceeded", "auth_error", "timeout", "other"}
        unknown = sorted(set(v) - kinds)
        if unknown:
            raise ValueError(f"cooldowns_s: unknown fault kind(s) {unknown}; known: {sorted(kinds)}")
        if any(x < 0 for x in v.values()):
            raise ValueError("cooldowns_s: cooldowns must be >= 0")
        return v


class BudgetConfig(_Strict):
    enabled: bool = False
    """Token budget kill switch (seed 004 ``TokenBudget``) and the run's cost line."""
    max_input_tokens: int | None = Field(2_000_000, ge=1)
    """Input tokens per run before the run ends with ``TOKEN_BUDGET`` (seed 004: 2M)."""
    max_output_tokens: int | None = Field(500_000, ge=1)
    """Output tokens per run before the run ends with ``TOKEN_BUDGET`` (seed 004: 500k)."""
    price_per_mtok_in: float = Field(0.0, ge=0)
    """Price of one million input tokens, for the cost line."""
    price_per_mtok_out: float = Field(0.0, ge=0)
    """Price of one million output tokens, for the cost line."""


class EmptyReplyConfig(_Strict):
    enabled: bool = False
    """Answer an empty or thought-only reply with a nudge instead of ending the run (seed 000)."""
    max_nudges: int = Field(3, ge=1)
    """Consecutive empty replies answered with a nudge; the next one ends with ``EMPTY_REPLIES``."""
    thought_only: bool = True
    """Treat a reply holding only hidden thoughts (``thoughts`` or ``<think>``/``<thought>``
    blocks) and no visible text or tool call as empty too."""


class HooksConfig(_Strict):
    enabled: bool = False
    """Run the hook runner (seed 004 "Hooks", seed 002 stop and post-turn hooks)."""
    post_edit_lint: bool = True
    """After a ``.py`` file is written, compile it; silent on success, corrective on failure."""
    lint_ruff: bool = False
    """Also run ``ruff check`` on the file when ruff is installed in the workspace."""
    lint_timeout_s: float = Field(30.0, gt=0)
    """Timeout of one lint run."""
    pre_commit_tests: bool = True
    """Before a bash call containing ``git commit`` runs, run ``test_command``; block on failure."""
    test_command: str = "python3 -m pytest -q"
    """The test suite the pre-commit gate runs in the workspace."""
    test_pass_exit_codes: list[int] = Field(default_factory=lambda: [0, 5])
    """Exit codes of ``test_command`` that let the commit through (pytest 5: no tests found)."""
    test_timeout_s: float = Field(300.0, gt=0)
    """Timeout of the pre-commit test run (a timeout blocks the commit)."""
    kill_switch_file: str | None = ".looplab-stop"
    """Stop hook: when this file exists in the workspace, the run ends (``INTERRUPTED``)."""
    max_cost_usd: float | None = Field(None, gt=0)
    """Stop hook: end the run (``TOKEN_BUDGET``) once its cost reaches this (prices from
    ``budget``)."""
    cost_log_file: str | None = None
    """Post-turn hook: append the run's cost line to this workspace file."""
    notes_file: str | None = None
    """Post-turn hook ("memory distillation"): append the final answer to this workspace file."""


class ObservabilityConfig(_Strict):
    enabled: bool = False
    """Emit ``run.started`` and a ``run.record`` event with seed 004's ``AgentRunEvent`` fields."""
    harness_id: str = "looplab"
    """Which harness produced the record."""
    session_key: str = ""
    """Stable human-readable key of the session (e.g. ``alice@terminal``)."""
    trigger: str = "user"
    """What started the run: ``user``, ``cron``, ``heartbeat``..."""
    channel: str | None = None
    """Where the run came from (``terminal``, ``slack``...)."""
    record_file: str | None = ".looplab/runs.jsonl"
    """Run log: at each run's end its record is appended here as one JSON line, relative to the
    workspace root and written through the ``Workspace`` (so it works in any sandbox). Events
    and log lines vanish with the process; this file is what an operator, a dashboard or a
    black-box scorer reads afterwards. Redacted like the transcript when ``redaction`` or
    ``transcript.redact`` is on. ``None``: event and log line only."""


class HarnessConfig(_Strict):
    name: str = "custom"
    """Preset name, for reports."""
    description: str = ""
    """One line: what this configuration is."""
    system_prompt: str = "system.md"
    """System prompt: a file name under ``harness/prompts/`` or a path with a directory in it
    (``./my_system.md``)."""
    tools: list[str] = Field(default_factory=lambda: ["bash", "read_file", "write_file", "list_dir"])
    """Tools offered to the model, by name."""
    context_window: int = Field(32_768, ge=512)
    """Context window of the model in tokens (used when the model cannot say)."""
    tool_timeout_s: float = Field(60.0, gt=0)
    """Timeout for one tool call."""
    limits: LimitsConfig = LimitsConfig()
    loop_detection: LoopDetectionConfig = LoopDetectionConfig()
    truncation: TruncationConfig = TruncationConfig()
    failover: FailoverConfig = FailoverConfig()
    budget: BudgetConfig = BudgetConfig()
    empty_reply: EmptyReplyConfig = EmptyReplyConfig()
    hooks: HooksConfig = HooksConfig()
    observability: ObservabilityConfig = ObservabilityConfig()
    transcript: TranscriptConfig = TranscriptConfig()
    progress: ProgressConfig = ProgressConfig()
    interrupt: InterruptConfig = InterruptConfig()
    queue: QueueConfig = QueueConfig()
    triage: TriageConfig = TriageConfig()
    context_scan: ContextScanConfig = ContextScanConfig()
    untrusted_output: UntrustedOutputConfig = UntrustedOutputConfig()
    redaction: RedactionConfig = RedactionConfig()
    path_guard: PathGuardConfig = PathGuardConfig()
    command_guard: CommandGuardConfig = CommandGuardConfig()
    permissions: PermissionsConfig = PermissionsConfig()
    mode: ModeConfig = ModeConfig()
    parallel_tools: ParallelToolsConfig = ParallelToolsConfig()
    deadlines: DeadlinesConfig = DeadlinesConfig()
    replay: ReplayConfig = ReplayConfig()
    subagents: SubagentsConfig = SubagentsConfig()
    compaction: CompactionConfig = CompactionConfig()
    context_reset: ContextResetConfig = ContextResetConfig()
    prompt: PromptConfig = PromptConfig()
    skills: SkillsConfig = SkillsConfig()
    reflection: ReflectionConfig = ReflectionConfig()
    verify_done: VerifyDoneConfig = VerifyDoneConfig()
    contract_first: ContractFirstConfig = ContractFirstConfig()
    bootstrap_once: BootstrapOnceConfig = BootstrapOnceConfig()

    def controls_on(self) -> list[str]:
        """Names of the switchable controls that are enabled (for tables and reports)."""
        on = []
        for name, value in self:
            if isinstance(value, BaseModel) and getattr(value, "enabled", False):
                on.append(name)
        return on


