"""A harness ``Workspace`` backed by an inspect sandbox (looplab-docker, local, k8s...)."""

from __future__ import annotations

import asyncio
import contextlib
import shlex
import uuid

from inspect_ai.util import ExecResult as SandboxResult
from inspect_ai.util import OutputLimitExceededError, SandboxEnvironment, store_as

from evals.state import SandboxRoot
from harness.workspace import ExecResult

# ``bash -c WRAPPER PIDFILE COMMAND``: run COMMAND in a new session (its own process group),
# the group id written to PIDFILE for a kill on cancel and removed when the command ends.
_IN_SESSION = 'echo $$ > "$0"; bash -c "$1"; rc=$?; rm -f "$0"; exit $rc'
# (``setsid -w true`` rather than ``command -v setsid``: busybox's setsid has no ``-w``.)
_GROUP_WRAPPER = (f'if setsid -w true >/dev/null 2>&1; then exec setsid -w bash -c {shlex.quote(_IN_SESSION)} "$0" "$1"; '
                  'else exec bash -c "$1"; fi')


class SandboxWorkspace:
    def __init__(self, sandbox: SandboxEnvironment, root: str) -> None:
        self.sandbox = sandbox
        self.root = root

    @classmethod
    async def open(cls, sandbox: SandboxEnvironment, workdir: str | None = None) -> SandboxWorkspace:
        """The sandbox's working directory, or ``workdir`` below it (created if missing)."""
        root = await _working_dir(sandbox)
        if workdir:
            root = f"{root.rstrip('/')}/{workdir.strip('/')}"
            await sandbox.exec(["mkdir", "-p", root])
        return cls(sandbox, root)

    async def exec(self, command: str, timeout: float | None = None) -> ExecResult:
        """Run ``command`` with bash in the workspace. Cancelling the call (a user stop) kills
        the command's whole process group, whatever the sandbox does on its own."""
        limit = int(timeout) if timeout else None
        res: SandboxResult[str]
        try:
            if getattr(self._provider(), "kills_process_group_on_cancel", False):
                res = await self.sandbox.exec(["bash", "-c", command], cwd=self.root, timeout=limit)
            else:
                res = await self._exec_killable(command, limit)
        except TimeoutError:
            return ExecResult(exit_code=124, stderr=f"timed out after {timeout}s", timed_out=True)
        except OutputLimitExceededError as e:
            # The command ran; only its output was too large for the sandbox transport.
            return ExecResult(exit_code=-1, stdout=e.truncated_output or "",
                              stderr=f"[output limit exceeded: {e.limit_str}]")
        return ExecResult(exit_code=res.returncode, stdout=res.stdout, stderr=res.stderr)

    def _provider(self) -> SandboxEnvironment:
        # inspect hands out an event-logging proxy; as_type reaches the provider behind it.
        return self.sandbox.as_type(SandboxEnvironment)  # type: ignore[type-abstract]

    async def _exec_killable(self, command: str, timeout: int | None) -> SandboxResult[str]:
        """``exec`` in a session of its own whose process group is SIGKILLed on cancellation.

        Why: inspect's local sandbox answers a cancel by signalling bash alone and then waits for
        the output pipes to close, which a child (``sleep 600``) holds open: a user stop would
        wait for the command to finish. Killing the group closes the pipes at once. Without
        ``setsid`` in the sandbox the command runs as before (never a group kill of our own)."""
        pidfile = f"/tmp/.looplab-pgid-{uuid.uuid4().hex}"
        run = asyncio.ensure_future(self.sandbox.exec(["bash", "-c", _GROUP_WRAPPER, pidfile, command],
                                                      cwd=self.root, timeout=timeout))
        try:
            return await asyncio.shield(run)
        except asyncio.CancelledError:
            if not run.done():
                kill = f"kill -KILL -- -$(cat {pidfile} 2>/dev/null) 2>/dev/null; rm -f {pidfile}"
                # concurrency=False: inspect caps concurrent subprocesses (at the core count);
                # the kill must not queue behind the very commands it is meant to end.
                with contextlib.suppress(Exception):
                    await asyncio.wait_for(self.sandbox.exec(["bash", "-c", kill], timeout=10,
                                                             concurrency=False), 15)
                run.cancel()
                with contextlib.suppress(BaseException):
                    await run
            raise

    async def read_file(self, path: str) -> str:
        return await self.sandbox.read_file(self._abs(path), text=True)

    async def write_file(self, path: str, content: str) -> None:
        await self.sandbox.write_file(self._abs(path), content)

    async def rename(self, src: str, dst: str) -> None:
        """Atomically replace ``dst`` with ``src`` (the optional ``Workspace`` capability that
        session stores use for atomic writes): the sandbox's own rename where it has one (one
        request, no process), else ``mv`` through ``exec``. Raises ``OSError`` on failure."""
        native = getattr(self._provider(), "rename", None)
        if native is not None:
            await native(self._abs(src), self._abs(dst))
            return
        res = await self.sandbox.exec(["mv", "-f", "--", self._abs(src), self._abs(dst)],
                                      cwd=self.root, timeout=30)
        if not res.success:
            raise OSError(f"could not rename {src} over {dst}: {res.stderr.strip()}")

    def _abs(self, path: str) -> str:
        return path if path.startswith("/") else f"{self.root.rstrip('/')}/{path}"


async def _working_dir(sandbox: SandboxEnvironment) -> str:
    """The sandbox's working directory, asked once per sample (each exec costs a round trip)."""
    known = store_as(SandboxRoot, instance=str(id(sandbox)))
    if known.root is None:
        res = await sandbox.exec(["pwd"])
        known.root = res.stdout.strip() or "/"
    return known.root
