"""The presets at a glance: which controls are on, with their main numbers (Markdown).

``python -m harness.presets`` prints it; docs/presets.md embeds it and a test keeps them in step.
"""

from __future__ import annotations

from collections.abc import Callable

from harness.config import HarnessConfig
from harness.presets import get_preset, preset_names

ORDER = ["naive", "seed000", "seed001", "seed002", "seed003", "seed004", "looplab"]


def _onoff(on: bool, detail: str = "") -> str:
    return ("on" + (f" ({detail})" if detail else "")) if on else "–"


def _flags(*on: bool) -> str:
    return " / ".join("on" if x else "–" for x in on)


def _loops(c: HarnessConfig) -> str:
    ld = c.loop_detection
    if not ld.enabled:
        return "–"
    parts = []
    if ld.identical_repeat:
        parts.append(f"repeat {ld.warning_threshold}/{ld.critical_threshold}")
    if ld.failing_repeat:
        parts.append(f"failing {ld.failing_repeat_threshold}-in-{ld.failing_repeat_window}")
    if ld.ping_pong:
        parts.append("ping-pong")
    if ld.known_poll:
        parts.append("poll")
    if ld.unknown_tool:
        parts.append("unknown tool")
    if ld.circuit_breaker:
        parts.append(f"breaker {ld.circuit_breaker_threshold}")
    return ", ".join(parts)


ROWS: list[tuple[str, Callable[[HarnessConfig], str]]] = [
    ("turn cap / tool calls", lambda c: f"{c.limits.max_turns} / {c.limits.max_tool_calls or '–'}"),
    ("loop detection", _loops),
    ("empty / thought-only nudge", lambda c: _onoff(c.empty_reply.enabled)),
    ("token budget", lambda c: _onoff(c.budget.enabled, f"{c.budget.max_input_tokens:,} in")
        if c.budget.max_input_tokens else _onoff(c.budget.enabled)),
    ("compaction", lambda c: _onoff(c.compaction.enabled,
        f"{c.compaction.threshold:.0%}, keep {c.compaction.keep_last}"
        + (", verify ids" if c.compaction.verify_identifiers else ""))),
    ("overflow recovery", lambda c: _onoff(c.compaction.enabled and c.compaction.recover_overflow)),
    ("oversize output", lambda c: _onoff(c.truncation.enabled,
        f"{c.truncation.mode}, {c.truncation.max_chars:,} chars")),
    ("model fallback", lambda c: _onoff(c.failover.enabled)),
    ("context-file scan", lambda c: _onoff(c.context_scan.enabled or c.prompt.scan_context_files)),
    ("untrusted output wrapped", lambda c: _onoff(c.untrusted_output.enabled)),
    ("destructive commands / paths", lambda c: _flags(c.command_guard.enabled, c.path_guard.enabled)),
    ("redaction", lambda c: _onoff(c.redaction.enabled or c.transcript.redact)),
    ("permissions / plan mode", lambda c: " / ".join(
        (c.permissions.mode if c.permissions.enabled else "–", "on" if c.mode.enabled else "–"))),
    ("sub-agents", lambda c: _onoff(c.subagents.enabled,
        f"depth {c.subagents.max_depth}, fan-out {c.subagents.max_children}")),
    ("deadlines / parallel reads / replay", lambda c: _flags(
        c.deadlines.enabled, c.parallel_tools.enabled, c.replay.enabled)),
    ("hooks (lint, test gate)", lambda c: _onoff(c.hooks.enabled, ", ".join(
        n for n, on in (("lint", c.hooks.post_edit_lint), ("tests", c.hooks.pre_commit_tests)) if on))),
    ("transcript / progress file", lambda c: _flags(c.transcript.enabled, c.progress.enabled)),
    ("session queue / interrupt / triage", lambda c: _flags(
        c.queue.enabled, c.interrupt.enabled, c.triage.enabled)),
    ("bootstrap once / skills index / verify done", lambda c: _flags(
        c.bootstrap_once.enabled, c.skills.enabled, c.verify_done.enabled)),
    ("contract first / context reset / kill switch / run record", lambda c: _flags(
        c.contract_first.enabled, c.context_reset.enabled, c.hooks.enabled and bool(c.hooks.kill_switch_file),
        c.observability.enabled and bool(c.observability.record_file))),
    ("prompt prefix", lambda c: ("rebuilt every turn" if c.prompt.enabled and c.prompt.refresh_each_turn
                                 else "stable")),
]


def presets_table() -> str:
    names = [n for n in ORDER if n in preset_names()] + [n for n in preset_names() if n not in ORDER]
    configs = [get_preset(n) for n in names]
    lines = ["| control | " + " | ".join(f"`{n}`" for n in names) + " |",
             "|---|" + "---|" * len(names)]
    for label, cell in ROWS:
        lines.append(f"| {label} | " + " | ".join(cell(c) for c in configs) + " |")
    return "\n".join(lines)
