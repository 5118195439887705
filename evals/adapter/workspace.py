"""A harness ``Workspace`` backed by an inspect sandbox (looplab-docker, local, k8s...)."""

from __future__ import annotations

from inspect_ai.util import OutputLimitExceededError, SandboxEnvironment

from harness.workspace import ExecResult


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
        try:
            res = await self.sandbox.exec(
                ["bash", "-c", command], cwd=self.root,
                timeout=int(timeout) if timeout else None,
            )
        except TimeoutError:
            return ExecResult(exit_code=124, stderr=f"timed out after {timeout}s", timed_out=True)
        except OutputLimitExceededError as e:
            # The command ran; only its output was too large for the sandbox transport.
            return ExecResult(exit_code=-1, stdout=e.truncated_output or "",
                              stderr=f"[output limit exceeded: {e.limit_str}]")
        return ExecResult(exit_code=res.returncode, stdout=res.stdout, stderr=res.stderr)

    async def read_file(self, path: str) -> str:
        return await self.sandbox.read_file(self._abs(path), text=True)

    async def write_file(self, path: str, content: str) -> None:
        await self.sandbox.write_file(self._abs(path), content)

    async def rename(self, src: str, dst: str) -> None:
        """Atomically replace ``dst`` with ``src`` (the optional ``Workspace`` capability that
        session stores use for atomic writes): the sandbox's own rename where it has one (one
        request, no process), else ``mv`` through ``exec``. Raises ``OSError`` on failure."""
        # inspect hands out an event-logging proxy; as_type reaches the provider behind it.
        native = getattr(self.sandbox.as_type(SandboxEnvironment), "rename", None)  # type: ignore[type-abstract]
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
    from inspect_ai.util import store

    key = f"looplab:sandbox-root:{id(sandbox)}"
    root = store().get(key)
    if root is None:
        res = await sandbox.exec(["pwd"])
        root = res.stdout.strip() or "/"
        store().set(key, root)
    return str(root)
