"""Host side of the witness (sandboxes/container/witness.py): begin a sample's segment, mark a
moment, and read what was recorded, after draining what the kernel has already queued.

In a looplab-docker container the witness runs as root (started by the image's init) and is
asked through a root command (``exec(user="root")``); its journal lies in a root-only tmpfs the
harness cannot read, write or stop. For ``sandbox=local`` the same program runs on the host as
this process's user, against the sample's temporary workspace: it records the same events, but
a harness running as the same user could stop it or rewrite its journal (that path is
unisolated and warned anyway). Everything here works through inspect's ``SandboxEnvironment``
API, so any provider whose image carries the witness works the same way.
"""

from __future__ import annotations

import asyncio
import atexit
import json
import subprocess
import sys
import tempfile
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from inspect_ai.util import SandboxEnvironment

from .agent.ask import op_ask
from .config import WITNESS_DIR

PROGRAM_IN_IMAGE = "/opt/looplab/witness.py"
SOCKET_NAME = "witness.sock"
"""The witness's control socket in its directory (sandboxes/container/witness.py)."""
SOCKET_IN_CONTAINER = f"{WITNESS_DIR}/{SOCKET_NAME}"
"""Where a container's witness listens (the image's init starts it with ``--dir WITNESS_DIR``)."""
PROGRAM_ON_HOST = str(Path(__file__).with_name("container") / "witness.py")
_CTL_TIMEOUT_S = 60


class WitnessUnavailableError(RuntimeError):
    """The witness did not answer (not in the image, not started, or gone): nothing it would
    have recorded can be read. The sample cannot be judged (infrastructure)."""


@dataclass
class Reading:
    """What one sync returned: the witness's answer and the records after ``since``."""

    summary: dict[str, Any]
    """``seq`` (the last record's), ``segment``, ``lost`` (records the journal's bound kept
    out: the record is incomplete), ``file``."""
    records: list[dict[str, Any]] = field(default_factory=list)


@dataclass(eq=False)
class WitnessHandle:
    """The witness of one sample's sandbox."""

    sandbox: SandboxEnvironment
    program: str = PROGRAM_IN_IMAGE
    directory: str = WITNESS_DIR
    user: str | None = "root"
    """Who asks: root in a container; None (this process's user) on the host."""
    process: subprocess.Popen[bytes] | None = None
    """The host process of a local witness (None in a container: the image's init runs it)."""
    segment: str = ""

    async def _ctl(self, op: str, name: str = "", since: int | None = None) -> Reading:
        # The looplab-docker agent's ask, or this process's for a witness on the host: no
        # process started either way.
        ask = self._ask_on_host if self.process is not None else getattr(self.sandbox, "ask", None)
        if ask is not None:
            reply = await ask(f"{self.directory}/{SOCKET_NAME}", {"op": op, "segment": name, "name": name},
                              since)
            if reply is not None:
                answer = reply.get("answer") or {}
                if reply.get("error") or "error" in answer:
                    why = reply.get("message") or answer.get("error")
                    raise WitnessUnavailableError(f"the witness could not {op}: {why}")
                return Reading(answer, [json.loads(line) for line in reply.get("lines", [])])
        argv = ["python3", "-I", self.program, "ctl", op, "--dir", self.directory]
        argv += ["--name", name] if name else []
        argv += ["--since", str(since)] if since is not None else []
        try:
            res = await self.sandbox.exec(argv, user=self.user, timeout=_CTL_TIMEOUT_S)
        except TimeoutError as err:
            raise WitnessUnavailableError(f"the witness did not answer {op} within "
                                          f"{_CTL_TIMEOUT_S} s") from err
        lines = res.stdout.splitlines()
        try:
            summary = json.loads(lines[0]) if lines else {}
        except ValueError:
            summary = {}
        if not res.success or "error" in summary or not lines:
            why = summary.get("error") or (res.stderr or res.stdout).strip()[-300:]
            raise WitnessUnavailableError(f"the witness could not {op}: {why or res.returncode}")
        records = []
        for line in lines[1:]:
            try:
                records.append(json.loads(line))
            except ValueError:
                continue  # a line the journal's bound tore: `lost` says so
        return Reading(summary, records)

    async def _ask_on_host(self, socket_path: str, request: dict[str, Any],
                           since: int | None) -> dict[str, Any]:
        """A witness on this host (``sandbox=local``) is asked from this process, in a thread, by
        the same code the looplab-docker agent asks with (``agent.ask.op_ask``): no
        interpreter started three times a sample (about 0.15 s of CPU each, the largest cost of
        a short local sample)."""
        return await asyncio.to_thread(op_ask, {"socket": socket_path, "request": request,
                                                "tail": since})

    async def begin(self, segment: str | None = None) -> None:
        """Start a fresh segment for a sample (waits until the witness listens)."""
        self.segment = segment or uuid.uuid4().hex[:12]
        await self._ctl("begin", self.segment)

    async def mark(self, name: str) -> None:
        """Record a named moment (e.g. ``run``: the scenario's set-up is done)."""
        await self._ctl("mark", name)

    async def read(self, since: int = 0) -> Reading:
        """Drain what the kernel already queued, then every record of the segment after
        ``since``."""
        return await self._ctl("sync", since=since)

    def close(self) -> None:
        """Stop a local witness (a container's stays with its container)."""
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(5)
            except subprocess.TimeoutExpired:
                self.process.kill()
        self.process = None


_LOCAL: set[WitnessHandle] = set()


async def start_local_witness(sandbox: SandboxEnvironment, root: str) -> WitnessHandle:
    """Start a witness on this host over ``root`` (a local sandbox's workspace) and begin its
    first segment. It runs as this process's user: no protection from the harness (see the
    module's docstring). Stopped by ``close`` or at exit."""
    directory = tempfile.mkdtemp(prefix="looplab-witness-")
    process = subprocess.Popen(
        # On the host the memory cgroup is everyone's: its OOM kills are not the sample's.
        [sys.executable, "-I", PROGRAM_ON_HOST, "serve", "--root", root, "--dir", directory,
         "--no-oom"],
        stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        start_new_session=True)
    handle = WitnessHandle(sandbox, PROGRAM_ON_HOST, directory, None, process)
    _LOCAL.add(handle)
    await handle.begin()
    return handle


def stop_local_witnesses() -> None:
    for handle in list(_LOCAL):
        handle.close()
        _LOCAL.discard(handle)


atexit.register(stop_local_witnesses)


