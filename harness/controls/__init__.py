"""Harness controls: each is a small collaborator plugged into the loop through ``Control`` hooks.

``build_controls`` turns a ``HarnessConfig`` into the list of enabled controls; the loop itself
never tests a config flag.
"""

from __future__ import annotations

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.controls.budget import TokenBudget
from harness.controls.empty_reply import EmptyReplyGuard
from harness.controls.loop_detection import LoopDetection
from harness.controls.observability import Observability
from harness.controls.truncation import Truncation


def build_controls(config: HarnessConfig) -> list[Control]:
    controls: list[Control] = []
    # First: the run record starts before anything else acts, and the token budget stops the
    # run before any other control spends work on a model call that will not happen.
    if config.observability.enabled:
        controls.append(Observability(config.observability))
    if config.budget.enabled:
        controls.append(TokenBudget(config.budget))
    # Order matters for after_tool: truncation cuts the raw output first, then loop detection
    # prepends its warning, so an intervention is never truncated away.
    if config.truncation.enabled:
        controls.append(Truncation(config))
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
    return controls


__all__ = ["Control", "build_controls"]
