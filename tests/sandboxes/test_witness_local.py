"""The witness on the host (what `sandbox=local` uses): the same program and records as in a
container, started by the eval process over a temporary workspace (no protection: same user)."""

from __future__ import annotations

import asyncio
import subprocess
from pathlib import Path

from inspect_ai.util import ExecResult

from sandboxes.witness_client import WitnessUnavailableError, start_local_witness


class HostShell:
    """The least of a sandbox the witness client needs: commands on this host."""

    async def exec(self, cmd: list[str], user: str | None = None,
                   timeout: int | None = None) -> ExecResult[str]:
        res = await asyncio.to_thread(subprocess.run, cmd, capture_output=True, text=True,
                                      timeout=timeout)
        return ExecResult(res.returncode == 0, res.returncode, res.stdout, res.stderr)


def test_the_host_witness_records_a_workspace_and_stops(tmp_path: Path) -> None:
    async def run() -> None:
        witness = await start_local_witness(HostShell(), str(tmp_path))  # type: ignore[arg-type]
        try:
            (tmp_path / ".looplab").mkdir()
            for _ in range(3):
                with open(tmp_path / ".looplab" / "c.count", "a") as f:
                    f.write("run\n")
            (tmp_path / "data").mkdir()
            await asyncio.sleep(0.3)  # a new directory is watched once the witness sees it
            (tmp_path / "data" / "f").write_text("x")
            (tmp_path / "data" / "f").unlink()
            await witness.mark("run")
            reading = await witness.read()
            events = [(r["ev"], r.get("path")) for r in reading.records]
            assert events[0] == ("begin", None)
            assert events.count(("append", ".looplab/c.count")) == 3
            assert ("delete", "data/f") in events and events[-1] == ("mark", None)
        finally:
            witness.close()
        try:
            await witness.read()
        except WitnessUnavailableError as err:
            assert "could not sync" in str(err)
        else:
            raise AssertionError("a stopped witness still answered")

    asyncio.run(run())
