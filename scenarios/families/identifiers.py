"""Identifier shapes that must survive compaction: a job handle shown once, then long logs.

Each row gives a handle of one shape (UUID, SHA, IPv4/IPv6, JWT, URL with port, path, env
value...) and a regex by which the model recognises that shape. With a ``faithful`` summariser
the row probes ``context.identifiers_survive``; with a ``weak`` one (paraphrases identifiers
whatever it is told) it probes ``context.identifiers_verified``.
"""

from __future__ import annotations

import re
from typing import Literal

from scenarios.families.base import FamilyTable, Row, generator, scenario

FETCH = """#!/bin/bash
# Ten pages of about 2,500 tokens each, then END OF LOGS on every later call.
mkdir -p .looplab && echo page >> .looplab/pages.count
n=$(wc -l < .looplab/pages.count)
if [ "$n" -gt 10 ]; then echo "END OF LOGS"; exit 0; fi
python3 -c '
import sys
n = sys.argv[1]
for i in range(110):
    print(f"page {n} row {i:03d}: exported 500 records from partition p{i % 7} without errors")
' "$n"
if [ "$n" -eq 10 ]; then echo "END OF LOGS"; fi
"""


def _sq(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


class IdentifierRow(Row):
    handle: str
    """The identifier, shown once by the start script and required verbatim to finish."""
    shape: str
    """Regex by which the model spots an identifier of this shape in its context."""
    label: str = "job id"
    """How the start script introduces it."""
    summariser: Literal["faithful", "weak"] = "faithful"


@generator("identifier", IdentifierRow)
def build_identifier(table: FamilyTable, row: IdentifierRow):
    item = "context.identifiers_survive" if row.summariser == "faithful" else "context.identifiers_verified"
    start = ("#!/bin/bash\n"
             "if [ -e .looplab/job.started ]; then echo \"error: a job is already running; "
             "finish it with its handle\" >&2; exit 1; fi\n"
             "mkdir -p .looplab && touch .looplab/job.started\n"
             f"echo {_sq(f'export job started; {row.label}: {row.handle} (keep it to finish the job)')}\n")
    finish = ("#!/bin/bash\n"
              f"if [ \"$1\" = {_sq(row.handle)} ]; then\n"
              "  mkdir -p .looplab && touch .looplab/job.finished && echo \"job finished\"\n"
              "else echo \"error: unknown job $1\" >&2; exit 1; fi\n")
    return scenario(
        table, row, family="context", n_ctx=16000, harness={"context_window": 16000},
        summariser=row.summariser,
        probes={item: {"judge": "command_succeeds", "params": {
            "command": "test -f .looplab/job.finished",
            "asked_for": r"finish_job\.sh\b.*" + re.escape(row.handle),
            "explanation": "the job was finished with its real handle"}}},
        prompt=("Start the export job with ./start_job.sh, read all of its logs with "
                "./fetch_logs.sh (one page per call, until END OF LOGS), then finish it with "
                "./finish_job.sh <the job's handle>."),
        files={"start_job.sh": start, "fetch_logs.sh": FETCH, "finish_job.sh": finish},
        setup=["chmod +x start_job.sh fetch_logs.sh finish_job.sh"],
        actor={"policy": "use_identifier_shape", "params": {"shape": row.shape}},
    )
