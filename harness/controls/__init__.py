"""Harness controls: each is a small collaborator plugged into the loop through ``Control`` hooks.

``build_controls`` turns a ``HarnessConfig`` into the list of enabled controls; the loop itself
never tests a config flag.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.controls.budget import TokenBudget
from harness.controls.compaction import Compaction
from harness.controls.empty_reply import EmptyReplyGuard
from harness.controls.loop_detection import LoopDetection
from harness.controls.observability import Observability
from harness.controls.truncation import Truncation
from harness.sessions import progress_tools as _session_tools  # noqa: F401  (registers tools)

if TYPE_CHECKING:
    from harness.security.permissions import Approver


def build_controls(config: HarnessConfig, *, approver: Approver | None = None) -> list[Control]:
    """``approver``: the async ``(tool_name, args) -> bool`` callback permission modes ask."""
    # Security controls are imported here: their modules import harness.controls.base.
    from harness.security.wiring import after_tool_controls, before_tool_controls

    controls: list[Control] = []
    # First: the run record starts before anything else acts, and the token budget stops the
    # run before any other control spends work on a model call that will not happen.
    if config.observability.enabled:
        controls.append(Observability(config.observability))
    if config.budget.enabled:
        controls.append(TokenBudget(config.budget))
    # Security refusals (mode, destructive command, path, permission) before any other control
    # acts on a call, so a blocked call never triggers hooks such as the pre-commit test run.
    controls.extend(before_tool_controls(config, approver))
    # Order matters for after_tool: truncation cuts the raw output first, then loop detection
    # prepends its warning, so an intervention is never truncated away.
    if config.truncation.enabled:
        controls.append(Truncation(config))
    # Redact, then wrap untrusted output: after truncation (the END marker is never cut off),
    # before hooks and loop detection (their feedback stays outside the untrusted block).
    controls.extend(after_tool_controls(config))
    if config.contract_first.enabled:
        # After the security refusals (theirs win) and after untrusted-output wrapping (the
        # contract it shows stays outside the untrusted block). Local import: it reads the
        # progress file, and harness.sessions imports controls.base.
        from harness.controls.contract_first import ContractFirst

        controls.append(ContractFirst(config.contract_first))
    if config.hooks.enabled:
        # After truncation (hook feedback such as lint errors is never cut away), before loop
        # detection (its intervention leads the tool result). Imported here because
        # harness.hooks itself imports harness.controls.base.
        from harness.hooks.builtin import build_hook_runner

        controls.append(build_hook_runner(config))
    if config.loop_detection.enabled:
        controls.append(LoopDetection(config.loop_detection))
    if config.empty_reply.enabled:
        controls.append(EmptyReplyGuard(config.empty_reply))
    if config.verify_done.enabled:  # after the empty-reply guard: only real answers are verified
        from harness.controls.verify_done import VerifyDone

        controls.append(VerifyDone(config.verify_done))
    # Session state (seed 004) is injected before compaction measures the context; the
    # transcript is appended last, below. Local import: harness.sessions imports controls.base.
    from harness.sessions.controls import build_session_controls

    session = build_session_controls(config)
    for c in controls:
        if isinstance(c, Observability) and session.transcript is not None:
            c.bind_session(session.transcript.session_id)  # the record names the transcript's
    if session.bootstrap is not None:
        controls.append(session.bootstrap)
    # Late: reflection adds its paragraph after the turn's other feedback, and compaction runs
    # last before the model call, so it sees everything the other controls added.
    # harness.reflection imports harness.controls.base, hence the local import.
    if config.reflection.enabled:
        from harness.reflection import Reflection

        controls.append(Reflection(config.reflection))
    if config.prompt.enabled and config.prompt.refresh_each_turn:
        from harness.controls.prompt_refresh import PromptRefresh

        controls.append(PromptRefresh())
    if config.bootstrap_once.enabled and config.prompt.enabled:
        # After the refresh (it re-reads BOOTSTRAP.md every turn), before compaction measures.
        from harness.controls.bootstrap_once import BootstrapOnce

        controls.append(BootstrapOnce(session.transcript))
    if config.compaction.enabled:
        controls.append(Compaction(config))
    # LAST, keep it last: the transcript persists what every other control added.
    if session.transcript is not None:
        controls.append(session.transcript)
    return controls


__all__ = ["Control", "build_controls"]
