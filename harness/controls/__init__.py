"""Harness controls: each is a small collaborator plugged into the loop through ``Control`` hooks.

Which controls an agent gets, and in which order, is decided in one place: ``harness.assembly``
(its ``TABLE``). This package only holds the hook surface and the controls themselves, so any
module may import ``harness.controls.base`` without pulling in the others.
"""

from __future__ import annotations

from typing import Any

from harness.controls.base import Control


def __getattr__(name: str) -> Any:
    # ``harness.controls.build_controls`` is the name older callers use; it lives in
    # harness.assembly, which imports the control modules (and so this package).
    if name == "build_controls":
        # On first use, never at load: at load the two modules would import each other.
        from harness.assembly import build_controls

        return build_controls
    raise AttributeError(f"module 'harness.controls' has no attribute {name!r}")


__all__ = ["Control", "build_controls"]
