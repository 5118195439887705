"""Destructive command blocker (seed 004 ``before_tool_call`` hook).

Shell tools' command lines are matched against ``destructive_commands.yaml`` before they run; a
match answers the call ``denied`` with the pattern's guidance and the original command, so the
model learns what to do instead. Only the listed shell tools are checked.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from harness.controls.base import Control
from harness.messages import ToolCall
from harness.prompts import load_prompt
from harness.security.config import CommandGuardConfig
from harness.security.patterns import Pattern, load_patterns
from harness.state import RunState
from harness.tools.base import ToolOutcome


@dataclass(frozen=True)
class CommandVerdict:
    blocked: bool
    pattern_id: str = ""
    guidance: str = ""


def blocked_patterns(patterns_file: str = "destructive_commands.yaml", disabled: tuple[str, ...] = ()) -> list[Pattern]:
    return [p for p in load_patterns(patterns_file, "blocked", "guidance") if p.id not in disabled]


def _variants(command: str) -> list[str]:
    # Line continuations are one command to the shell; quotes around a flag ("-rf") vanish in
    # the shell too, so a quoted flag must not slip through.
    joined = re.sub(r"\\\r?\n", " ", command)
    unquoted = joined.replace('"', "").replace("'", "")
    return [joined, unquoted] if unquoted != joined else [joined]


def check_command(command: str, patterns: list[Pattern] | None = None) -> CommandVerdict:
    """Whether ``command`` matches a blocked pattern (first match wins)."""
    for p in patterns if patterns is not None else blocked_patterns():
        if any(p.regex.search(v) for v in _variants(command)):
            return CommandVerdict(True, p.id, p.text)
    return CommandVerdict(False)


class CommandGuard(Control):
    name = "command_guard"

    def __init__(self, config: CommandGuardConfig) -> None:
        self.config = config
        self.patterns = blocked_patterns(config.patterns_file, tuple(config.disabled))

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        arg = self.config.tools.get(call.name)
        command = call.arguments.get(arg) if arg else None
        if not isinstance(command, str):
            return None
        verdict = check_command(command, self.patterns)
        if not verdict.blocked:
            return None
        run.emit("security.command_blocked", tool=call.name, pattern=verdict.pattern_id)
        text = load_prompt("security_command_blocked.md").format(
            guidance=verdict.guidance, command=command, pattern=verdict.pattern_id,
        )
        return ToolOutcome("denied", text, {"blocked_pattern": verdict.pattern_id})
