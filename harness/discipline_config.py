"""Config models of the work-discipline controls (fields of ``HarnessConfig``; defaults OFF).

Kept out of ``harness/config.py`` so that file stays small; imports nothing from the harness but
the strict base, so it can never form an import cycle.
"""

from __future__ import annotations

from pydantic import Field

from harness.config_base import Strict as _Strict


class VerifyDoneConfig(_Strict):
    enabled: bool = False
    """Completion verification (seed 004 failure table, "premature victory"): when the model
    gives a final answer, the harness runs ``command``; if it fails, the answer is not accepted
    and the model is sent back with the failure. Off: any answer without a tool call ends the
    run as done."""
    command: str = "python3 -m pytest -q"
    """The verification (the project's end-to-end tests), run in the workspace root."""
    only_if_exists: list[str] = Field(default_factory=lambda: ["tests"])
    """Verify only when one of these workspace paths exists (a project that has a test suite);
    empty: always. Keeps the check from rejecting answers in workspaces with nothing to test."""
    pass_exit_codes: list[int] = Field(default_factory=lambda: [0, 5])
    """Exit codes of ``command`` that count as verified (pytest 5: no tests collected)."""
    timeout_s: float = Field(300.0, gt=0)
    """Timeout of one verification run (a timeout counts as a failure)."""
    max_rejections: int = Field(3, ge=1)
    """Final answers sent back per run; the next one is accepted (the run must end) and
    recorded as unverified."""
    output_tail_chars: int = Field(2_000, ge=200)
    """How much of the end of the verification output the model is shown."""
