"""``looplab check-harness <id or folder>``: does the harness start and reach the model?

Builds the spec's image (cached by layer: ``evals.harnesses.image``), starts one container from
it, and launches the harness there exactly as a sample does (as the user ``agent``, its
environment, its argv, the same limit) on a trivial task, against an instant model in the
container that answers every call with the text ``done`` and no tool call
(``check_server.py``). No eval, no scenario, no scripted actor: the answer comes in seconds.

Reached the model (at least one model request arrived) is exit 0, with the request count, the
time to the first request and how the harness ended; a harness that never reached it is exit 1,
with its own exit code and the tail of its output (an import error, a missing binary, a wrong
base URL...). A bad id, a broken spec or a failed image build is exit 2 (``evals.flags.EXIT_CODES``).
"""

from __future__ import annotations

import shlex
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from evals.harnesses.launch import LOG, TASK_FILE, command_for, environment, launch_argv
from evals.harnesses.spec import HarnessSpec, load_factor, run_limit_s

CHECK_DIR = "/opt/looplab-check"
TASK = "Reply with the single word done. Do not run any command."
_HERE = Path(__file__).resolve().parent
_RELAY_SERVER = _HERE.parents[1] / "sandboxes" / "model_relay_server.py"


@dataclass
class CheckResult:
    """What one check saw."""

    image: str
    build_s: float
    requests: list[float]
    """Arrival times of the model requests (seconds since the harness was launched)."""
    exit_code: int | None
    """None: the harness was still running at the limit and was stopped."""
    tail: str
    run_s: float

    @property
    def reached(self) -> bool:
        return bool(self.requests)


def check(spec: HarnessSpec, limit_s: int | None = None) -> CheckResult:
    """Run the check for ``spec`` (``limit_s``: default, the spec's limit at this load)."""
    # The Docker SDK and the image builder: only once a check runs (--help answers at once).
    from evals.harnesses.image import ensure_image
    from sandboxes.config import DockerSandboxConfig
    from sandboxes.docker_agent import attach_exec
    from sandboxes.docker_engine import api_client, create_container, remove_container
    from sandboxes.docker_files import read_via_archive, write_via_archive
    from sandboxes.docker_io import run_exec

    t0 = time.monotonic()
    image = ensure_image(spec, log=False)
    build_s = time.monotonic() - t0
    limit = limit_s or run_limit_s(spec.finish)
    container_id, _ = create_container(DockerSandboxConfig(image=image), "looplab-check")
    server = None
    try:
        for source in (_RELAY_SERVER, _HERE / "check_server.py"):
            write_via_archive(container_id, f"{CHECK_DIR}/{source.name}", source.read_bytes())
        api = api_client()
        server, sock = attach_exec(api, container_id, [
            "python3", f"{CHECK_DIR}/check_server.py", f"{CHECK_DIR}/requests", "13131"])
        _wait_ready(sock)
        workdir = "/workspace"
        run_exec(api, container_id, ["bash", "-c", f"cat > {TASK_FILE}"], stdin=TASK.encode(),
                 workdir=workdir, env=None, user="agent", deadline_s=60, output_limit=1 << 12)
        argv = command_for(spec, TASK, workdir, {}, [])
        launched = time.time()
        try:
            code = run_exec(api, container_id, launch_argv(limit, argv), stdin=None,
                            workdir=workdir, env=environment(spec, workdir), user="root",
                            deadline_s=limit + 30, output_limit=1 << 12).returncode
        except TimeoutError:
            code = 124
        run_s = time.time() - launched
        tail = run_exec(api, container_id, ["tail", "-c", "3000", LOG], stdin=None, workdir="/",
                        env=None, user="root", deadline_s=60, output_limit=1 << 13).stdout
        raw = read_via_archive(container_id, f"{CHECK_DIR}/requests").decode()
        arrivals = [float(line.split()[0]) - launched for line in raw.splitlines() if line]
    finally:
        if server is not None:
            server.close()
        remove_container(container_id)
    timed_out = code in (124, 137) and run_s >= limit
    return CheckResult(image, build_s, arrivals, None if timed_out else code,
                       tail.decode("utf-8", "replace"), run_s)


def _wait_ready(sock: object, timeout_s: float = 120) -> None:
    sock.settimeout(timeout_s)  # type: ignore[attr-defined]
    seen = b""
    while b"ready" not in seen:
        chunk = sock.recv(65536)  # type: ignore[attr-defined]
        if not chunk:
            raise RuntimeError(f"the check's model server ended before it was ready: {seen[-300:]!r}")
        seen += chunk


def report(spec: HarnessSpec, result: CheckResult, out: object = sys.stdout) -> int:
    """Print what the check saw; → the exit code (0 reached the model, 1 did not)."""
    def say(text: str) -> None:
        print(text, file=out)  # type: ignore[call-overload]

    say(f"image {result.image} ({result.build_s:.1f} s to build or find)")
    ended = ("was still running at the limit and was stopped" if result.exit_code is None
             else f"exited with code {result.exit_code}")
    if result.reached:
        say(f"{spec.id}: reached the model: {len(result.requests)} request(s), the first "
            f"{result.requests[0]:.1f} s after launch; it {ended} after {result.run_s:.1f} s")
        if result.exit_code not in spec.finish.exit_statuses:
            say(f"its exit code is not in finish.exit_statuses (a sample would read it as "
                f"crashed); the tail of its output:\n{_indent(result.tail)}")
        return 0
    say(f"{spec.id}: did NOT reach the model: it {ended} after {result.run_s:.1f} s "
        f"(launch: {shlex.join(spec.launch)[:200]}; load factor {load_factor():.1f})")
    say(f"the tail of its output:\n{_indent(result.tail) or '    (nothing)'}")
    return 1


def _indent(text: str) -> str:
    return "\n".join(f"    {line}" for line in text.rstrip().splitlines()[-40:])


def main(harness: str, timeout_s: int | None = None) -> int:
    """``looplab check-harness``: ``harness`` is an id or a folder holding ``harness.yaml``."""
    # deferred like check's own imports
    from evals.harnesses.image import ImageError
    from evals.harnesses.spec import SpecError, get_spec, with_spec_folders

    try:
        spec = get_spec(with_spec_folders(harness))
        print(f"looplab: checking {spec.id} ({spec.folder}): building its image, then one "
              f"launch against an instant model", file=sys.stderr, flush=True)
        result = check(spec, timeout_s)
    except (SpecError, ImageError) as e:
        print(f"looplab: error: {e}", file=sys.stderr)
        return 2
    return report(spec, result)
