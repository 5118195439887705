"""The sandbox's read-only readiness check, started before the eval stack is imported.

``sandboxes/setup.sh --check`` changes nothing (it only says whether the engine answers and the
image is up to date), so the command line starts it as soon as its arguments are parsed, while
Python imports inspect and the eval stack (seconds); ``evals.run_steps.ensure_sandbox`` then needs
to run the full set-up only when the check said no. Standard library only: importing this
module costs nothing.
"""

from __future__ import annotations

import subprocess
from pathlib import Path

SETUP = Path(__file__).resolve().parent.parent / "sandboxes" / "setup.sh"


def start_check(sandbox: str | None) -> subprocess.Popen[bytes] | None:
    """``setup.sh --check`` in the background for a Docker sandbox; None for any other."""
    if sandbox != "docker":
        return None
    try:
        return subprocess.Popen(["bash", str(SETUP), "--check"], cwd=SETUP.parent.parent,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    except OSError:
        return None  # no bash: ensure_sandbox runs the set-up and says what is wrong


def ready(check: subprocess.Popen[bytes] | None) -> bool:
    """Whether the check, once done, found the engine up and the image current."""
    return check is not None and check.wait() == 0
