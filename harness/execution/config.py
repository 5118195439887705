"""Config models of the execution controls (fields of ``HarnessConfig``; defaults OFF).

Kept out of ``harness/config.py`` so that file stays small; imports nothing from the harness but
the strict base, so it can never form an import cycle.
"""

from __future__ import annotations

from pydantic import Field

from harness.config_base import Strict as _Strict


class ParallelToolsConfig(_Strict):
    enabled: bool = False
    """Run consecutive read-only calls with non-overlapping resource keys in parallel; local
    writes, network and destructive calls run alone, in order (seed 003 ``ToolScheduler``).
    Results are appended in the order the model asked for them."""
    max_parallel: int = Field(8, ge=1)
    """Most calls of one parallel wave running at the same time."""
    key_args: list[str] = Field(default_factory=lambda: ["path", "file", "url", "uri", "directory"])
    """Arguments whose values are a call's resource keys; two reads of the same key never share
    a wave."""


class DeadlinesConfig(_Strict):
    enabled: bool = False
    """Per-tool deadlines from a turn budget (seed 003 ``per_tool_remaining_s``): a call past its
    deadline is answered ``timeout``, and anything it does afterwards (workspace writes, its
    result) is suppressed by the write gate."""
    turn_budget_s: float = Field(900.0, gt=0)
    """Tool time for one run (seed 003's turn is one user message); it starts with the first tool
    call. Once spent, further calls are denied."""
    per_tool_cap_s: float = Field(120.0, gt=0)
    """Most time one call may take (``cap_s``): its deadline is ``min(cap, budget left)``."""
    grace_s: float = Field(2.0, ge=0)
    """Time after the deadline before the executor stops waiting: cooperative tools honour
    ``ToolContext.timeout`` themselves and return their own partial output first."""


class ReplayConfig(_Strict):
    enabled: bool = False
    """Idempotency-aware replay control (seed 003 ``ReplayControl``): an idempotent call that
    already succeeded with the same arguments is answered ``denied`` (already done); after a
    failure or timeout it may run again; non-idempotent tools always run."""
    invalidate_on_write: bool = True
    """A call that is not read-only forgets earlier successes (other than its own), so reading a
    file again after something changed it is allowed."""
