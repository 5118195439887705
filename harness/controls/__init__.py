"""Harness controls: each is a small collaborator plugged into the loop through ``Control`` hooks.

``build_controls`` turns a ``HarnessConfig`` into the list of enabled controls; the loop itself
never tests a config flag.
"""

from __future__ import annotations

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.controls.loop_detection import LoopDetection
from harness.controls.truncation import Truncation


def build_controls(config: HarnessConfig) -> list[Control]:
    controls: list[Control] = []
    # Order matters for after_tool: truncation cuts the raw output first, then loop detection
    # prepends its warning, so an intervention is never truncated away.
    if config.truncation.enabled:
        controls.append(Truncation(config))
    if config.loop_detection.enabled:
        controls.append(LoopDetection(config.loop_detection))
    return controls


__all__ = ["Control", "build_controls"]
