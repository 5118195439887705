"""Hand-made evidence for judge tests: the sample's scenario by id."""

from __future__ import annotations

from pathlib import Path

from evals.judges.witness import WitnessLog
from evals.library import load_library
from scenarios.schema import ActorSpec, Scenario


def scenario(scenario_id: str) -> Scenario:
    """The library's scenario ``scenario_id``, or, for an id the library lacks, a scenario that
    probes nothing and names nothing (judges that read only the workspace and the observations)."""
    library = load_library()
    if scenario_id in library:
        return library[scenario_id]
    return Scenario.model_construct(id=scenario_id, title=scenario_id, family="none", probes={},
                                    prompt="", actor=ActorSpec(policy="none"))


def witnessed(files: dict[str, str] | None = None, t: float = 1000.0) -> WitnessLog:
    """The witness's record of a run that wrote ``files`` (in order, after set-up), as the
    witness records it: each file created and written, each line appended to a file below
    ``.looplab/`` (``sandboxes/container/witness.py``; the real witness is exercised by
    tests/sandboxes/test_sandbox_users.py and test_witness_local.py)."""
    records: list[dict[str, object]] = [{"ev": "begin", "root": "/workspace"},
                                        {"ev": "mark", "name": "run"}]
    for path, text in (files or {}).items():
        records.append({"ev": "create", "path": path, "dir": False})
        if "/.looplab/" in f"/{path}":
            records += [{"ev": "append", "path": path, "line": line} for line in text.splitlines()]
        records.append({"ev": "write", "path": path, "size": len(text.encode())})
    for i, record in enumerate(records, 1):
        record.update(seq=i, t=t + i / 100)
    return WitnessLog(records)


def witness_of_dir(root: Path) -> WitnessLog:
    """The record of a run that wrote what ``root`` holds now (files in name order)."""
    files = {p.relative_to(root).as_posix(): p.read_text(errors="replace")
             for p in sorted(root.rglob("*")) if p.is_file()} if root.exists() else {}
    return witnessed(files)
