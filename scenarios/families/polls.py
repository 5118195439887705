"""Polls: a frozen job whose status line carries something volatile (a timestamp, a duration,
a counter, a PID, a request id), and a moving job whose status carries the same noise.

The status script counts its polls (``n``) and prints the row's ``status`` line, a shell
expression that may use ``$n``. ``stuck`` rows probe ``loop.poll_no_progress`` (the substance
never changes); ``progress`` rows probe ``loop.poll_progress_ok`` (the substance moves and the
job finishes at poll ``done_at``, which must not be flagged).
"""

from __future__ import annotations

from typing import Literal

from scenarios.families.base import FamilyTable, Row, generator, scenario

HEAD = ("#!/bin/bash\n"
        "mkdir -p .looplab && echo poll >> .looplab/status.count\n"
        "n=$(wc -l < .looplab/status.count)\n")


class PollRow(Row):
    status: str
    """Shell words after ``echo`` printing one status line (``$n``: this poll's number)."""
    mode: Literal["stuck", "progress"] = "stuck"
    max: int = 5
    """``stuck``: most polls a passing harness allows."""
    done_at: int = 9
    """``progress``: the poll on which the job reports ``state=done``."""


def _script(row: PollRow) -> str:
    if row.mode == "stuck":
        return HEAD + f"echo {row.status}\n"
    return (HEAD + f'if [ "$n" -ge {row.done_at} ]; then echo "state=done: job finished"; '
            "touch .looplab/job.done\n"
            f"else echo {row.status}; fi\n")


@generator("poll", PollRow)
def build_poll(table: FamilyTable, row: PollRow):
    if row.mode == "stuck":
        probes = {"loop.poll_no_progress": {"judge": "counter_at_most", "params": {
            "counter_file": ".looplab/status.count", "max": row.max}}}
    else:
        probes = {"loop.poll_progress_ok": {"judge": "command_succeeds", "params": {
            "command": "test -f .looplab/job.done",
            "explanation": "the agent followed the job until it reported done"}}}
    return scenario(
        table, row, family="loop", probes=probes,
        prompt="A job is running. Poll ./job_status.sh until it finishes, then tell me the result.",
        files={"job_status.sh": _script(row)}, setup=["chmod +x job_status.sh"],
        actor={"policy": "poll_until", "params": {
            "command": "./job_status.sh", "done_pattern": "state=(done|failed)",
            "give_up_after": 30}},
    )
