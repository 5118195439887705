"""Plan/execute mode, enforced at three layers (seed 001 "Mode Enforcement").

1. System prompt: ``mode_prompt_section(config)`` is the stable section stating the mode.
2. Tool filtering: ``allowed_tools(config, tools)`` keeps only the tools the mode allows; the
   agent offers only those.
3. Runtime blocking: ``ModeGuard`` answers any other call with an error instead of running it,
   even a call to a tool that was never offered (models do call tools they were not given).

Source: seed 001, "Tools are restricted based on the current mode at three layers".
"""

from __future__ import annotations

from collections.abc import Sequence

from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.messages import ToolCall
from harness.prompts import load_prompt
from harness.security.config import ModeConfig
from harness.state import RunState
from harness.tools.base import Tool, ToolOutcome, catalogue

PROMPTS = {"plan": "mode_plan.md", "execute": "mode_execute.md"}


def mode_allows(mode: ModeConfig, tool: Tool) -> bool:
    """Whether ``tool`` may run in the configured mode."""
    listed = mode.plan_tools if mode.mode == "plan" else mode.execute_tools
    if listed is not None:
        return tool.name in listed
    return mode.mode == "execute" or tool.effect == "read_only"


def allowed_tools(config: HarnessConfig, tools: Sequence[Tool]) -> list[Tool]:
    """The tools to offer the model (layer 2). All of them when mode enforcement is off."""
    if not config.mode.enabled:
        return list(tools)
    return [t for t in tools if mode_allows(config.mode, t)]


def mode_prompt_section(config: HarnessConfig) -> str | None:
    """The system-prompt section stating the mode (layer 1); ``None`` when mode enforcement is
    off. Byte-stable for a given config, so it can sit above the prompt's cache boundary."""
    if not config.mode.enabled:
        return None
    return load_prompt(PROMPTS[config.mode.mode])


class ModeGuard(Control):
    """Layer 3: a call the mode does not allow is answered ``denied`` and never executed."""

    name = "mode"

    def __init__(self, config: ModeConfig) -> None:
        self.config = config

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        tool = next((t for t in run.tools if t.name == call.name), None) or catalogue().get(call.name)
        if tool is None or mode_allows(self.config, tool):
            return None  # unknown tools are answered by the executor
        allowed = sorted(t.name for t in run.tools if mode_allows(self.config, t))
        run.emit("security.mode_blocked", tool=call.name, mode=self.config.mode)
        text = load_prompt("security_mode_blocked.md").format(
            mode=self.config.mode, tool=call.name, allowed=", ".join(allowed) or "(none)",
        )
        return ToolOutcome("denied", text, {"mode_blocked": True, "mode": self.config.mode})
