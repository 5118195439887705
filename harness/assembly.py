"""The one place an agent is assembled: a ``HarnessConfig`` plus run bindings become the finished
tools and controls an ``Agent`` runs with.

``TABLE`` is the order of the controls, one row per control family with the reason for its place.
Order matters because every hook runs the controls in this order: a security refusal must come
before a hook that would act on the call, truncation before loop detection's warning, the
transcript after everything it persists. A row's builder reads the config (the loop itself never
tests a config flag) and returns nothing when its control is off.

``Bindings`` are what a config cannot say: the permission approver, a session's transcript and
bootstrap (one per session, shared by its runs), the sub-agent tree an agent belongs to, and
extra controls before the table (a session's interrupt fence).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.controls.bootstrap_once import BootstrapOnce
from harness.controls.budget import TokenBudget
from harness.controls.compaction import Compaction
from harness.controls.contract_first import ContractFirst
from harness.controls.empty_reply import EmptyReplyGuard
from harness.controls.loop_detection import LoopDetection
from harness.controls.observability import Observability
from harness.controls.prompt_refresh import PromptRefresh
from harness.controls.truncation import Truncation
from harness.controls.verify_done import VerifyDone
from harness.events import EventSink
from harness.hooks.builtin import build_hook_runner
from harness.reflection import Reflection
from harness.security.commands import CommandGuard
from harness.security.modes import ModeGuard, allowed_tools
from harness.security.paths import PathGuard
from harness.security.permissions import Approver, Permissions
from harness.security.redaction_control import RedactToolOutput
from harness.security.untrusted import UntrustedOutput
from harness.sessions.bootstrap import SessionBootstrap
from harness.sessions.transcript_control import TranscriptControl
from harness.subagents.tool import (
    ChildFactory,
    SubagentParent,
    SubagentSpawner,
    SubagentSupervisor,
    build_spawner,
    top_level_parent,
)
from harness.tools import Tool, resolve_tools


@dataclass(frozen=True)
class Bindings:
    """What one agent is bound to beyond its config."""

    approver: Approver | None = None
    """Async ``(tool_name, args) -> bool`` asked by permission modes (``ask``); None: denied."""
    transcript: TranscriptControl | None = None
    """A session's transcript (shared by its runs). None: one from ``config.transcript``."""
    bootstrap: SessionBootstrap | None = None
    """A session's state bootstrap (once per session). None: one from ``config.progress``."""
    session_id: str | None = None
    """The conversation the run record names (a session's id; else the transcript's)."""
    parent: SubagentParent | None = None
    """The sub-agent tree this agent sits in (set for a child). None: a new tree."""
    first: Sequence[Control] = ()
    """Controls before the table (a session's interrupt fence and lane progress)."""


@dataclass
class Context:
    """What a row's builder may read: the config and the bindings, resolved."""

    config: HarnessConfig
    bindings: Bindings
    transcript: TranscriptControl | None = None
    bootstrap: SessionBootstrap | None = None


Build = Callable[[Context], "Control | Sequence[Control] | None"]


@dataclass(frozen=True)
class Row:
    name: str
    why: str
    build: Build


def _observability(c: Context) -> Control | None:
    if not c.config.observability.enabled:
        return None
    session = c.bindings.session_id or (c.transcript.session_id if c.transcript else None)
    return Observability(c.config.observability, session)


def _before_tool_security(c: Context) -> list[Control]:
    cfg = c.config
    out: list[Control] = []
    if cfg.mode.enabled:
        out.append(ModeGuard(cfg.mode))
    if cfg.command_guard.enabled:
        out.append(CommandGuard(cfg.command_guard))
    if cfg.path_guard.enabled:
        out.append(PathGuard(cfg.path_guard))
    if cfg.permissions.enabled:
        out.append(Permissions(cfg.permissions, c.bindings.approver))
    return out


def _after_tool_security(c: Context) -> list[Control]:
    cfg = c.config
    out: list[Control] = []
    if cfg.redaction.enabled and cfg.redaction.redact_tool_output:
        out.append(RedactToolOutput(cfg.redaction))
    if cfg.untrusted_output.enabled:
        out.append(UntrustedOutput(cfg.untrusted_output))
    return out


def _on(flag: Callable[[HarnessConfig], bool], make: Callable[[Context], Control]) -> Build:
    return lambda c: make(c) if flag(c.config) else None


TABLE: tuple[Row, ...] = (
    Row("observability", "first: the run record starts before anything else acts",
        _observability),
    Row("budget", "before any control spends work on a model call that will not happen",
        _on(lambda f: f.budget.enabled, lambda c: TokenBudget(c.config.budget))),
    Row("security.before_tool", "mode, destructive command, path, then permissions (never ask "
        "to approve what would be refused): refusals before any hook acts on a call",
        _before_tool_security),
    Row("truncation", "cuts raw output first: later feedback and warnings are never cut away",
        _on(lambda f: f.truncation.enabled, lambda c: Truncation(c.config))),
    Row("security.after_tool", "redact, then wrap untrusted output: after truncation (the END "
        "marker stays), before hook feedback and loop warnings (they stay outside the block)",
        _after_tool_security),
    Row("contract_first", "after the refusals (theirs win) and the wrapping (the contract it "
        "shows stays outside the untrusted block)",
        _on(lambda f: f.contract_first.enabled, lambda c: ContractFirst(c.config.contract_first))),
    Row("hooks", "after truncation (lint output is kept), before loop detection (its "
        "intervention leads the tool result)",
        _on(lambda f: f.hooks.enabled, lambda c: build_hook_runner(c.config))),
    Row("loop_detection", "sees the final tool result of each call",
        _on(lambda f: f.loop_detection.enabled, lambda c: LoopDetection(c.config.loop_detection))),
    Row("empty_reply", "answers empty replies before anything judges an answer",
        _on(lambda f: f.empty_reply.enabled, lambda c: EmptyReplyGuard(c.config.empty_reply))),
    Row("verify_done", "after the empty-reply guard: only real answers are verified",
        _on(lambda f: f.verify_done.enabled, lambda c: VerifyDone(c.config.verify_done))),
    Row("session_bootstrap", "injects session state before compaction measures the context",
        lambda c: c.bootstrap),
    Row("reflection", "adds its paragraph after the turn's other feedback",
        _on(lambda f: f.reflection.enabled, lambda c: Reflection(c.config.reflection))),
    Row("prompt_refresh", "rebuilds the system prompt before the bootstrap is stripped from it",
        _on(lambda f: f.prompt.enabled and f.prompt.refresh_each_turn, lambda c: PromptRefresh())),
    Row("bootstrap_once", "after the refresh (which re-reads BOOTSTRAP.md), before compaction "
        "measures", _on(lambda f: f.bootstrap_once.enabled and f.prompt.enabled,
                        lambda c: BootstrapOnce(c.transcript))),
    Row("compaction", "last before the model call: it measures everything the others added",
        _on(lambda f: f.compaction.enabled, lambda c: Compaction(c.config))),
    Row("transcript", "persists what every other control added", lambda c: c.transcript),
)
"""The controls of an agent, in order. The sub-agent supervisor follows (``assemble``): it needs
the agent's finished tools and its way to make children."""


@dataclass
class Assembly:
    tools: list[Tool]
    controls: list[Control]
    spawner: SubagentSpawner | None = None


def build_controls(config: HarnessConfig, *, approver: Approver | None = None) -> list[Control]:
    """The table's controls for ``config`` (no sub-agent supervisor: that needs an agent)."""
    return _table(_context(config, Bindings(approver=approver)))


def _context(config: HarnessConfig, b: Bindings) -> Context:
    transcript = b.transcript
    if transcript is None and config.transcript.enabled:
        transcript = TranscriptControl(config.transcript)
    bootstrap = b.bootstrap
    if bootstrap is None and config.progress.enabled:
        bootstrap = SessionBootstrap(config.progress, transcript)
    return Context(config, b, transcript, bootstrap)


def _table(ctx: Context) -> list[Control]:
    controls: list[Control] = list(ctx.bindings.first)
    for row in TABLE:
        built = row.build(ctx)
        if built is not None:
            controls.extend([built] if isinstance(built, Control) else built)
    return controls


def assemble(
    config: HarnessConfig,
    bindings: Bindings | None = None,
    *,
    tools: list[Tool] | None = None,
    controls: list[Control] | None = None,
    make_child: ChildFactory | None = None,
    on_event: EventSink | None = None,
) -> Assembly:
    """The finished tools and controls of one agent. ``tools``: the tools to offer (default:
    ``config.tools`` from the catalogue), narrowed by the plan/execute mode. ``controls``: a
    finished list used as it is (the table is skipped). ``make_child``: how the agent makes a
    sub-agent; without it sub-agents are not offered."""
    b = bindings or Bindings()
    # Plan/execute mode, layer 2: only mode-allowed tools are offered.
    finished_tools = allowed_tools(config, tools if tools is not None else resolve_tools(config.tools))
    finished = list(controls) if controls is not None else _table(_context(config, b))
    spawner = None
    has_supervisor = any(isinstance(c, SubagentSupervisor) for c in finished)
    if config.subagents.enabled and make_child is not None and not has_supervisor:
        approver = b.approver or next(
            (c.approver for c in finished if isinstance(c, Permissions)), None)
        place = b.parent or top_level_parent(config, approver)
        spawner, supervisor = build_spawner(config, finished_tools, place, make_child, on_event)
        finished.append(supervisor)  # after the transcript, as it always was: it only fences
    return Assembly(finished_tools, finished, spawner)
