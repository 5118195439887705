"""The witness on the host (what `sandbox=local` uses): the same program and records as in a
container, started by the eval process over a temporary workspace (no protection: same user)."""

from __future__ import annotations

import asyncio
import importlib.util
import json
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


def test_a_counter_read_by_the_scan_of_a_new_directory_counts_once(tmp_path: Path) -> None:
    # The race a loaded machine shows: `.looplab` appears, the witness watches and scans it, and
    # by then the first run already appended its line; the counter's creation, queued before
    # the scan, is handled after it. The line was counted twice (3 executions for 2).
    spec = importlib.util.spec_from_file_location(
        "witness_journal", Path(__file__).parents[2] / "sandboxes" / "container" / "journal.py")
    assert spec is not None and spec.loader is not None
    program = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(program)
    root, journal = tmp_path / "ws", tmp_path / "journal"
    root.mkdir()
    journal.mkdir()
    witness = program.Witness(str(root), str(journal), [], oom=False)
    witness.open_segment("sample")
    (root / ".looplab").mkdir()
    (root / ".looplab" / "c.count").write_text("run\n")
    witness.watch_tree(".looplab", "create")  # the scan on the directory's creation
    wd = witness.wds[".looplab"]
    witness.handle(wd, program.IN_CREATE, 0, "c.count")  # the creation queued before the scan
    witness.handle(wd, program.IN_CLOSE_WRITE, 0, "c.count")
    with open(root / ".looplab" / "c.count", "a") as f:
        f.write("run\n")
    witness.handle(wd, program.IN_MODIFY | program.IN_CLOSE_WRITE, 0, "c.count")
    records = [json.loads(line) for line in
               (journal / "segment-sample.jsonl").read_text().splitlines()]
    appends = [r for r in records if r["ev"] == "append" and r["path"] == ".looplab/c.count"]
    writes = [r for r in records if r["ev"] == "write" and r["path"] == ".looplab/c.count"]
    assert len(appends) == 2 and len(writes) == 2, records
