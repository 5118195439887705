"""Destructive command blocker (seed 004 ``before_tool_call`` hook).

Shell tools' command lines are checked before they run; a blocked call is answered ``denied``
with the rule's guidance and the original command, so the model learns what to do instead. Only
the listed shell tools are checked. Two modes (``command_guard.shell_aware``):

- off (the seeds' guard): the regexes (``blocked``) of ``harness/rules/destructive_commands.yaml``
  over the command text;
- on: the line is parsed as shell and each command judged by what the program does with its
  flags and arguments (the ``shell_rules`` of the same file, read by ``shell_rules``), through
  wrappers, nested shells, ``xargs``, ``find -exec`` and interpreter one-liners, so a grep for
  ``'rm -rf'`` is not an rm. A line the parser rejects is read by a tolerant tokenizer and judged
  the same way: it is blocked when what it runs looks destructive (fail closed) and left alone
  when it is a plain read-only command.

Source: seed 004, "before_tool_call hook: destructive command blocker" (``BLOCKED_PATTERNS``).
"""

from __future__ import annotations

import os
import re
import shlex
from dataclasses import dataclass

from harness.controls.base import Control
from harness.messages import ToolCall
from harness.prompts import load_prompt
from harness.security.config import CommandGuardConfig
from harness.security.patterns import Pattern, load_patterns
from harness.state import RunState
from harness.tools.base import ToolOutcome
from harness.workspace import LocalWorkspace, Workspace, innermost


@dataclass(frozen=True)
class CommandVerdict:
    blocked: bool
    pattern_id: str = ""
    guidance: str = ""
    new_files_allowed: bool = False
    """The rule lets a line through whose every emptied file does not exist yet."""


def blocked_patterns(patterns_file: str = "destructive_commands.yaml", disabled: tuple[str, ...] = ()) -> list[Pattern]:
    return [p for p in load_patterns(patterns_file, "blocked", "guidance") if p.id not in disabled]


def _variants(command: str) -> list[str]:
    # Line continuations are one command to the shell; quotes around a flag ("-rf") vanish in
    # the shell too, so a quoted flag must not slip through.
    joined = re.sub(r"\\\r?\n", " ", command)
    unquoted = joined.replace('"', "").replace("'", "")
    return [joined, unquoted] if unquoted != joined else [joined]


def check_command(command: str, patterns: list[Pattern] | None = None) -> CommandVerdict:
    """Whether ``command`` matches a blocked pattern (first match wins): the seeds' guard."""
    for p in patterns if patterns is not None else blocked_patterns():
        if any(p.regex.search(v) for v in _variants(command)):
            return CommandVerdict(True, p.id, p.text)
    return CommandVerdict(False)


def check_shell_command(command: str, patterns_file: str = "destructive_commands.yaml",
                        disabled: tuple[str, ...] = ()) -> CommandVerdict:
    """Whether ``command``, parsed as shell, runs something destructive (the shell-aware guard)."""
    from harness.security.shell_rules import (  # bashlex is imported only when this mode is on
        judge,
        rule_set,
    )

    for rule_id, shape, guidance in rule_set(patterns_file).shapes:  # shapes of a whole line, not programs
        if rule_id not in disabled and any(shape.search(v) for v in _variants(command)):
            return CommandVerdict(True, rule_id, guidance)
    rule, parsed = judge(command, disabled=disabled, rules_file=patterns_file)
    if rule is None:
        return CommandVerdict(False)
    guidance = rule.guidance
    if not parsed:
        guidance += " (The command line could not be parsed as shell; it was judged by its words.)"
    return CommandVerdict(True, rule.id, guidance.strip(), rule.new_files_allowed)


class CommandGuard(Control):
    name = "command_guard"

    def __init__(self, config: CommandGuardConfig) -> None:
        self.config = config
        self.patterns = blocked_patterns(config.patterns_file, tuple(config.disabled))
        if config.shell_aware:
            from harness.security.shell_rules import rule_set  # parser only when this mode is on

            rule_set(config.patterns_file)  # a bad file fails at start

    def check(self, command: str) -> CommandVerdict:
        """The verdict on one command line, in the configured mode."""
        if self.config.shell_aware:
            return check_shell_command(command, self.config.patterns_file, tuple(self.config.disabled))
        return check_command(command, self.patterns)

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        arg = self.config.tools.get(call.name)
        command = call.arguments.get(arg) if arg else None
        if not isinstance(command, str):
            return None
        verdict = self.check(command)
        if not verdict.blocked or await self._creates_only_new_files(run, verdict, command):
            return None
        run.emit("security.command_blocked", tool=call.name, pattern=verdict.pattern_id)
        text = load_prompt("security_command_blocked.md").format(
            guidance=verdict.guidance, command=command, pattern=verdict.pattern_id,
        )
        return ToolOutcome("denied", text, {"blocked_pattern": verdict.pattern_id})

    async def _creates_only_new_files(self, run: RunState, verdict: CommandVerdict, command: str) -> bool:
        """An emptying command whose every target is new (``: > notes.txt`` before notes.txt
        exists) creates empty files and destroys nothing; only the workspace knows which files
        exist, so the shell-aware guard asks it (``shell_rules.emptied_files``)."""
        if not self.config.shell_aware or not verdict.new_files_allowed:
            return False
        # Imported here: the shell parser is loaded only by a shell-aware guard.
        from harness.security.shell_rules import emptied_files

        targets = emptied_files(command, self.config.patterns_file)
        return targets is not None and not await _any_exists(run.workspace, targets)


async def _any_exists(workspace: Workspace, paths: list[str]) -> bool:
    """Whether any of ``paths`` (relative to the root) exists, a dangling symlink included;
    True when a remote workspace cannot answer (fail closed)."""
    workspace = innermost(workspace)
    if isinstance(workspace, LocalWorkspace):
        return any(os.path.lexists(os.path.join(workspace.root, p)) for p in paths)
    items = " ".join(shlex.quote(p) for p in paths)
    res = await workspace.exec(f'cd {shlex.quote(str(workspace.root))} && for p in {items}; do '
                               f'if [ -e "$p" ] || [ -L "$p" ]; then echo exists; fi; done; echo checked', timeout=30)
    return res.exit_code != 0 or "checked" not in res.stdout or "exists" in res.stdout
