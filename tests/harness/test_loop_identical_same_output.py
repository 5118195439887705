"""identical_repeat_same_output: paging with one command is progress, re-reading the same output
is a loop."""

import asyncio

from harness import Agent, LocalWorkspace, get_preset
from harness.testing import FunctionModel, call


def _run(tmp_path, same_output: bool, script: str) -> list[str]:
    (tmp_path / "page.sh").write_text(script)
    (tmp_path / "page.sh").chmod(0o755)
    cfg = get_preset("naive", loop_detection={
        "enabled": True, "identical_repeat": True, "identical_repeat_same_output": same_output,
        "failing_repeat": False, "known_poll": False, "ping_pong": False, "critical_limit": None})
    n = {"calls": 0}

    def fn(messages, tools):
        n["calls"] += 1
        return [call("bash", command="./page.sh")] if n["calls"] <= 6 else "done"

    result = asyncio.run(Agent(cfg, FunctionModel(fn), LocalWorkspace(tmp_path)).run("read all"))
    return [m.content for m in result.messages if m.role == "tool"]


PAGING = "#!/bin/bash\necho page >> count; echo \"page $(wc -l < count)\"\n"
STUCK = "#!/bin/bash\necho 'same page'\n"


def test_seed_behaviour_flags_paging(tmp_path):
    results = _run(tmp_path, same_output=False, script=PAGING)
    assert any("identical arguments" in r or "LOOP DETECTED" in r for r in results)


def test_same_output_mode_lets_paging_through(tmp_path):
    results = _run(tmp_path, same_output=True, script=PAGING)
    assert not any("WARNING" in r or "LOOP DETECTED" in r for r in results)


def test_same_output_mode_still_flags_a_stuck_repeat(tmp_path):
    results = _run(tmp_path, same_output=True, script=STUCK)
    assert any("LOOP DETECTED" in r for r in results)
