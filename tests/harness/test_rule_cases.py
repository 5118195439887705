"""Every rule's own cases (``harness/rules/cases/<set>/<rule id>.yaml``), run against the rule.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_rule_cases.py -rx

- ``shell_commands``: the looplab command guard must stop each ``ruleid`` line with that rule;
- ``paths``: the looplab path guard must deny each ``ruleid`` line (or file-tool path) with that rule;
- ``seed_commands``: the seeds' guard (regexes over the text) must block each ``ruleid`` line with it;
- ``ok`` lines: no guard of the set's preset may stop them (the command and path guards of looplab).

Lines are judged as before a tool call, in one workspace (``guard_workspace``); nothing runs. A
case a guard gets wrong stays in its file with ``xfail: <reason>`` (a strict expected failure: a
fix fails the test until the mark is removed). Case names are stable: a case is found by
``<set>/<rule>/<name>``, never by its position.
"""

from __future__ import annotations

import asyncio
from functools import cache
from pathlib import Path
from typing import Any

import pytest
import yaml
from guard_workspace import make

from harness import HarnessConfig, LocalWorkspace, get_preset
from harness.messages import ToolCall
from harness.rules import CASES_DIR, cases
from harness.security.commands import CommandGuard, check_command
from harness.security.paths import PathGuard
from harness.state import RunState


def _params(section: str) -> list:
    out = []
    for rule, kind, name, case in cases(section):
        line, reason = (case["line"], case.get("xfail")) if isinstance(case, dict) else (case, None)
        marks = [pytest.mark.xfail(reason=reason, strict=True)] if reason else []
        out.append(pytest.param(rule, kind, line, id=f"{section}/{rule}/{name}", marks=marks))
    return out


@pytest.fixture(scope="module")
def ws(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make(tmp_path_factory.mktemp("guards"))


@cache
def _guards() -> tuple[CommandGuard, PathGuard]:
    preset = get_preset("looplab")
    return CommandGuard(preset.command_guard), PathGuard(preset.path_guard)


def _stops(ws: Path, tool: str, arguments: dict[str, Any]) -> dict[str, str]:
    """What each looplab guard answers to the call: ``{"command": rule, "path": rule}`` for those that stop it."""
    run = RunState(HarnessConfig(), LocalWorkspace(str(ws)), [])
    call = ToolCall(id="c", name=tool, arguments=arguments)
    out = {}
    for name, guard in zip(("command", "path"), _guards(), strict=True):
        outcome = asyncio.run(guard.before_tool(run, call))
        if outcome is not None:
            out[name] = str(outcome.metadata.get("blocked_pattern") or outcome.metadata.get("path_rule"))
    return out


def _bash(ws: Path, line: str) -> dict[str, str]:
    return _stops(ws, "bash", {"command": line.replace("{outside}", str(ws.parent / "outside"))})


@pytest.mark.parametrize(("rule", "kind", "line"), _params("shell_commands"))
def test_shell_command_rule_cases(ws: Path, rule: str, kind: str, line: str) -> None:
    stopped = _bash(ws, line)
    if kind == "ruleid":
        assert stopped.get("command") == rule, (line, stopped)
    else:
        assert not stopped, (line, stopped)


@pytest.mark.parametrize(("rule", "kind", "line"), _params("paths"))
def test_path_rule_cases(ws: Path, rule: str, kind: str, line: str) -> None:
    stopped = _stops(ws, "read_file", {"path": line}) if rule == "file-tool-path" else _bash(ws, line)
    if kind == "ruleid":
        assert stopped.get("path") == rule, (line, stopped)
    else:
        assert not stopped, (line, stopped)


@pytest.mark.parametrize(("rule", "kind", "line"), _params("seed_commands"))
def test_seed_command_rule_cases(rule: str, kind: str, line: str) -> None:
    verdict = check_command(line)
    assert (verdict.pattern_id if verdict.blocked else None) == (rule if kind == "ruleid" else None), line


def test_every_case_file_names_a_rule_of_its_set() -> None:
    from harness.rules.listing import rules

    known = {(r.section, r.id) for r in rules()}
    files = [(p.parent.name, p.stem) for p in CASES_DIR.glob("*/*.yaml")]
    assert files and all(f in known for f in files), sorted(set(files) - known)


def test_every_case_is_one_line_or_a_line_with_a_reason() -> None:
    for path in CASES_DIR.glob("*/*.yaml"):
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
        assert set(data) <= {"ruleid", "ok"}, path
        for named in data.values():
            for case in named.values():  # a YAML slip (an unquoted `: `) would make a case a mapping
                if path.parent.name == "loops":  # a sequence of [tool, arguments, output] calls
                    calls = case["calls"] if isinstance(case, dict) else case
                    assert isinstance(calls, list) and all(len(c) == 3 for c in calls), (path, case)
                elif path.parent.name == "secrets":  # a text with its secret, or a text that stays
                    assert isinstance(case, str) or {"text", "secret"} <= set(case) <= {"text", "secret", "xfail"}
                elif path.parent.name == "context":  # a context file, framed or whole, or files together
                    assert {"text", "header", "files"} & set(case), (path, case)
                    assert set(case) <= {"text", "header", "where", "files", "blocks", "frame", "name", "scanner",
                                         "xfail"}, (path, case)
                else:
                    assert isinstance(case, str) and case.strip() or set(case) == {"line", "xfail"}, (path, case)


def test_rule_ids_made_by_code_are_rules_of_the_data() -> None:
    """The path guard, the context scanner and redaction name the rule behind a finding from code
    (how a word names a file, a check, a pass): each such id is a rule of its set's file."""
    import inspect

    from harness.rules.listing import rules
    from harness.security import context_scan, paths, redaction
    from harness.shell import file_args

    known = {(r.section, r.id) for r in rules()}
    path_ids = {file_args.ARGUMENT, file_args.REDIRECTION, file_args.COMPUTED, file_args.CODE, paths.FILE_TOOL_RULE}
    assert {("paths", i) for i in path_ids} <= known
    assert {("secrets", rule) for rule, _ in redaction._PASSES} <= known
    # the scanner's checks are the quoted ids of its findings that are not pattern ids
    source = inspect.getsource(context_scan)
    checks = {"invisible-characters", "look-alike-letters", "combined-signals", "endorsed-quote",
              "hidden-instructions", "encoded-command", "split-order", "configured-pattern"}
    assert all(f'"{c}"' in source for c in checks)
    assert {("context", c) for c in checks} <= known
