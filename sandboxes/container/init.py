"""The sandbox container's main process: starts the witness and keeps it running, stays up.

Runs as root under the engine's init (``docker run --init``: tini is PID 1 and reaps orphans).
The container is created with a negative ``oom_score_adj``, which this process and the witness
keep; the harness's commands raise their own to 1000 (see sandboxes/agent/commands.py), so under memory
pressure the kernel kills the harness, not these. Standard library only.

    python3 /opt/looplab/init.py [--root /workspace] [--dir /var/lib/looplab] [--disk PATH ...]
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def main(argv: list[str]) -> int:
    witness = [sys.executable, "-I", os.path.join(HERE, "witness.py"), "serve", *argv]
    child: subprocess.Popen[bytes] | None = None

    def stop(*_: object) -> None:
        if child is not None and child.poll() is None:
            child.terminate()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    restarts = 0
    while True:
        child = subprocess.Popen(witness)
        code = child.wait()
        # The witness never exits by itself: whatever stopped it, a new one carries on the same
        # segment and records that it restarted (judges see the gap).
        restarts += 1
        print(f"looplab init: the witness exited ({code}); restart {restarts}", file=sys.stderr,
              flush=True)
        time.sleep(min(5.0, 0.2 * restarts))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
