"""Hooks: the runner's five events, and the built-in lint, pre-commit, stop and post-turn hooks."""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace, Usage
from harness.hooks import HookResult, HookRunner, StopRequest
from harness.testing import FunctionModel, call, scripted

HOOKS_ONLY = {"enabled": True, "post_edit_lint": False, "pre_commit_tests": False,
              "kill_switch_file": None}


def run(cfg: HarnessConfig, model, tmp_path: Path, controls=None):
    return asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path), controls=controls).run("task"))


def tool_texts(res) -> list[str]:
    return [m.content for m in res.messages if m.role == "tool"]


# --- post-edit lint -------------------------------------------------------------------------

BROKEN = "def f(:\n    return 1\n"


def test_lint_feedback_after_writing_a_broken_python_file(tmp_path: Path) -> None:
    model = scripted([call("write_file", path="pkg/mod.py", content=BROKEN)],
                     [call("write_file", path="pkg/ok.py", content="x = 1\n")],
                     [call("write_file", path="notes.txt", content="def f(:")])
    cfg = HarnessConfig(hooks={**HOOKS_ONLY, "post_edit_lint": True})
    broken, ok, txt = tool_texts(run(cfg, model, tmp_path))
    assert "[Linter found issues in pkg/mod.py]" in broken
    assert "pkg/mod.py:1" in broken and "SyntaxError" in broken
    assert "Fix these errors before proceeding." in broken
    assert ok == "Wrote 6 characters to pkg/ok.py"  # success is silent
    assert txt == "Wrote 7 characters to notes.txt"  # not a .py file
    assert not list(tmp_path.rglob("*.pyc"))  # the check leaves nothing behind


def test_without_hooks_a_broken_file_is_written_silently(tmp_path: Path) -> None:
    model = scripted([call("write_file", path="mod.py", content=BROKEN)])
    (text,) = tool_texts(run(HarnessConfig(), model, tmp_path))
    assert text == f"Wrote {len(BROKEN)} characters to mod.py"


RUFF_DIR = Path(sys.executable).parent  # ruff comes with the dev extra, next to python


@pytest.mark.skipif(not (RUFF_DIR / "ruff").exists() and shutil.which("ruff") is None,
                    reason="ruff not installed")
def test_optional_ruff_lint(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path, env={"PATH": f"{RUFF_DIR}:{os.environ.get('PATH', '')}"})
    texts = []
    for ruff in (True, False):  # without ruff the file compiles fine: silent
        model = scripted([call("write_file", path="m.py", content="import os\n")])
        cfg = HarnessConfig(hooks={**HOOKS_ONLY, "post_edit_lint": True, "lint_ruff": ruff})
        texts += tool_texts(asyncio.run(Agent(cfg, model, ws).run("task")))
    assert "F401" in texts[0] and texts[1] == "Wrote 10 characters to m.py"


# --- pre-commit test gate -------------------------------------------------------------------

def _repo(tmp_path: Path, tests_pass: bool) -> None:
    for args in (["init", "-q"], ["config", "user.email", "t@example.invalid"],
                 ["config", "user.name", "t"]):
        subprocess.run(["git", *args], cwd=tmp_path, check=True)
    (tmp_path / "tests.sh").write_text(
        "echo 'collected 2 items'\n"
        + ("echo '2 passed'\n" if tests_pass else
           "echo 'FAILED test_calc.py::test_add - assert 3 == 4'\necho '1 failed, 1 passed'\nexit 1\n")
    )
    (tmp_path / "calc.py").write_text("def add(a, b):\n    return a + b\n")


COMMIT = [call("bash", command="git add -A && git commit -qm 'add calc'")]


def _gate() -> HarnessConfig:
    return HarnessConfig(hooks={**HOOKS_ONLY, "pre_commit_tests": True,
                                "test_command": "sh tests.sh"})


def _commits(tmp_path: Path) -> int:
    out = subprocess.run(["git", "rev-list", "--all", "--count"], cwd=tmp_path,
                         capture_output=True, text=True)
    return int(out.stdout.strip() or 0)


def test_commit_blocked_while_tests_fail(tmp_path: Path) -> None:
    _repo(tmp_path, tests_pass=False)
    res = run(_gate(), scripted(COMMIT), tmp_path)
    (text,) = tool_texts(res)
    assert text.startswith("Commit blocked")
    assert "test_calc.py::test_add" in text and "exited with 1" in text
    assert _commits(tmp_path) == 0
    assert any(e.type == "hooks.blocked" and e.data["hook"] == "pre_commit_tests"
               for e in res.events)


def test_commit_goes_through_silently_when_tests_pass(tmp_path: Path) -> None:
    _repo(tmp_path, tests_pass=True)
    (text,) = tool_texts(run(_gate(), scripted(COMMIT), tmp_path))
    assert "Commit blocked" not in text and _commits(tmp_path) == 1


def test_without_the_gate_a_failing_suite_is_committed(tmp_path: Path) -> None:
    _repo(tmp_path, tests_pass=False)
    run(HarnessConfig(), scripted(COMMIT), tmp_path)
    assert _commits(tmp_path) == 1


def test_gate_ignores_other_commands(tmp_path: Path) -> None:
    _repo(tmp_path, tests_pass=False)
    (text,) = tool_texts(run(_gate(), scripted([call("bash", command="git status --short")]),
                             tmp_path))
    assert "Commit blocked" not in text


# --- stop hooks -----------------------------------------------------------------------------

def test_kill_switch_file_stops_between_iterations(tmp_path: Path) -> None:
    def fn(messages, tools):
        if sum(m.role == "tool" for m in messages) == 2:
            (tmp_path / ".looplab-stop").write_text("")  # someone flips the switch
        return [call("bash", command="echo working")]

    cfg = HarnessConfig(hooks={**HOOKS_ONLY, "kill_switch_file": ".looplab-stop"})
    res = run(cfg, FunctionModel(fn), tmp_path)
    assert res.status == ExitStatus.INTERRUPTED and "kill switch" in res.message
    assert res.turns == 3 and len(tool_texts(res)) == 3
    (tmp_path / ".looplab-stop").unlink()
    res = run(HarnessConfig(limits={"max_turns": 5}), FunctionModel(fn), tmp_path)
    assert res.status == ExitStatus.TURN_LIMIT  # no hooks: the switch file means nothing


def test_cost_cap_stop_hook(tmp_path: Path) -> None:
    from harness import ModelReply
    from harness.messages import Message

    def fn(messages, tools):
        return ModelReply(message=Message(role="assistant",
                                          tool_calls=[call("bash", command="echo x")]),
                          usage=Usage(input_tokens=400_000, output_tokens=0))

    cfg = HarnessConfig(budget={"price_per_mtok_in": 1.0},
                        hooks={**HOOKS_ONLY, "max_cost_usd": 1.0})
    res = run(cfg, FunctionModel(fn), tmp_path)
    assert res.status == ExitStatus.TOKEN_BUDGET and res.turns == 3
    assert "budget cap $1.0000" in res.message


# --- post-turn hooks ------------------------------------------------------------------------

def test_memory_distillation_and_cost_log(tmp_path: Path) -> None:
    cfg = HarnessConfig(hooks={**HOOKS_ONLY, "notes_file": "agent-notes.md",
                               "cost_log_file": ".looplab/cost.log"},
                        budget={"price_per_mtok_in": 2.0, "price_per_mtok_out": 2.0})
    run(cfg, scripted("The answer is 42."), tmp_path)
    run(cfg, scripted("Second answer."), tmp_path)
    notes = (tmp_path / "agent-notes.md").read_text()
    assert "The answer is 42." in notes and "Second answer." in notes
    assert notes.count("(completed)") == 2 and "Task: task" in notes
    lines = (tmp_path / ".looplab/cost.log").read_text().splitlines()
    assert len(lines) == 2 and all("completed: $0.0" in x and " input / " in x for x in lines)


def test_post_turn_hook_failure_never_breaks_the_turn(tmp_path: Path) -> None:
    runner = HookRunner()
    seen: list[str] = []

    def boom(run, status, message):
        raise RuntimeError("disk full")

    runner.register("post_turn", boom)
    runner.register("post_turn", lambda run, status, message: seen.append(status))
    res = run(HarnessConfig(), scripted("ok"), tmp_path, controls=[runner])
    assert res.status == ExitStatus.COMPLETED and res.message == "ok"
    assert seen == ["completed"]
    assert any(e.type == "hooks.post_turn_failed" and "disk full" in e.data["error"]
               for e in res.events)


# --- the runner itself ----------------------------------------------------------------------

def test_first_block_wins_and_extras_are_appended(tmp_path: Path) -> None:
    runner = HookRunner()
    order: list[str] = []

    def allow(c, run):
        order.append("allow")
        return None

    async def block_rm(c, run):
        order.append("block")
        if "rm " in c.arguments.get("command", ""):
            return HookResult(True, "Blocked: no rm.")
        return HookResult(False)

    def never(c, run):
        order.append("never")
        return HookResult(True, "should not be reached")

    for h in (allow, block_rm, never):
        runner.register("before_tool_call", h)
    runner.register("after_tool_call", lambda c, o, run: "[sensor] all good? no: check X")
    runner.register("after_tool_call", lambda c, o, run: None)
    model = scripted([call("bash", command="rm -r data")])
    (text,) = tool_texts(run(HarnessConfig(), model, tmp_path, controls=[runner]))
    assert text.startswith("Blocked: no rm.") and "[sensor]" in text
    assert order == ["allow", "block"]


def test_stop_hook_request_and_unknown_event(tmp_path: Path) -> None:
    runner = HookRunner()
    runner.register("stop", lambda run: StopRequest(ExitStatus.TOKEN_BUDGET, "cap")
                    if run.turns >= 2 else None)
    model = FunctionModel(lambda m, t: [call("bash", command="echo x")])
    res = run(HarnessConfig(), model, tmp_path, controls=[runner])
    assert res.status == ExitStatus.TOKEN_BUDGET and res.turns == 2
    with pytest.raises(ValueError, match="valid: before_tool_call"):
        runner.register("before_tools", lambda: None)


def test_a_broken_gate_fails_closed(tmp_path: Path) -> None:
    runner = HookRunner()

    def broken(c, run):
        raise OSError("no test runner")

    runner.register("before_tool_call", broken)
    (text,) = tool_texts(run(HarnessConfig(), scripted([call("bash", command="echo hi")]),
                             tmp_path, controls=[runner]))
    assert text.startswith("Blocked: the broken check failed")
