"""Harness controls: each is a small collaborator plugged into the loop through ``Control`` hooks.

Which controls an agent gets, and in which order, is decided in one place: ``harness.assembly``
(its ``TABLE``). This package only holds the hook surface and the controls themselves, so any
module may import ``harness.controls.base`` without pulling in the others.
"""

from __future__ import annotations

from harness.controls.base import Control

__all__ = ["Control"]
