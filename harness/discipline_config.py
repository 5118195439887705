"""Config models of the work-discipline controls (fields of ``HarnessConfig``; defaults OFF).

Kept out of ``harness/config.py`` so that file stays small; imports nothing from the harness but
the strict base, so it can never form an import cycle.
"""

from __future__ import annotations

from pydantic import Field

from harness.config_base import Regex
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


class ContractFirstConfig(_Strict):
    enabled: bool = False
    """Sprint contract first (seed 004 failure table: "Agent overengineers (adds unrequested
    features)", cause "vague done conditions", answer "sprint contract written before coding
    begins; explicit acceptance criteria in task objects"). On a sprint task with no contract
    yet, every tool call that changes something (tool effect other than ``read_only``, bash
    included) is refused with a notice asking for the contract; reading stays allowed. The
    contract is the progress file (``progress.progress_file``, seed 004's task objects) whose
    current task has non-empty ``acceptance_criteria``; once it exists the work goes on and the
    criteria are shown to the model in the result of the call that recorded them. Off: the model
    may start coding at once, with nothing but its own idea of "done".

    Why this scope: a contract is the seed's answer for feature work, where "done" is vague; a
    bug fix, a chore or a one-file request states its own done condition, and refusing its first
    write would only cost a turn. So the rule applies to tasks that ``task_pattern`` marks as
    sprints, and a contract already in the progress file (later sessions, seed 004's coding agent)
    satisfies it from the start."""
    task_pattern: Regex | None = r"(?i)\b(feature|sprint|user stor(y|ies))\b"
    """Which tasks are sprints: a regular expression searched in the run's task (the user's
    message), the way triage rules classify triggers. ``None``: every task needs a contract."""
    allow_tools: list[str] = Field(default_factory=lambda: [
        "progress_add_task", "progress_update", "notes_append",
    ])
    """Tools that may run before the contract exists: they write the contract and the plan.
    A call whose ``path`` argument is the progress or notes file (``write_file``) is allowed too."""
