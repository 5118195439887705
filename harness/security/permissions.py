"""Permission modes (seed 000 ``permissions.py``): ask / auto_read / auto_all.

Read-only tools never need approval. Other tools need it when their effect is listed for the
current mode; approval comes from an injectable async approver ``(tool_name, args) -> bool``
(a UI, a CLI prompt, a test). With no approver, a call that needs approval is denied with a
message the model can act on: the harness never runs a modifying tool unapproved in ``ask``.

Source: seed 000, ``permissions.py`` "three modes: ask, auto_read, auto_all".
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from harness.controls.base import Control
from harness.messages import ToolCall
from harness.prompts import load_prompt
from harness.security.config import PermissionsConfig
from harness.state import RunState
from harness.tools.base import ToolOutcome, catalogue

Approver = Callable[[str, dict[str, Any]], Awaitable[bool]]
"""``async (tool_name, args) -> bool``: True approves the call."""


class Permissions(Control):
    name = "permissions"

    def __init__(self, config: PermissionsConfig, approver: Approver | None = None) -> None:
        self.config = config
        self.approver = approver

    def needs_approval(self, effect: str) -> bool:
        if effect == "read_only":
            return False
        return effect in self.config.approval_effects.get(self.config.mode, [])

    async def before_tool(self, run: RunState, call: ToolCall) -> ToolOutcome | None:
        tool = next((t for t in run.tools if t.name == call.name), None) or catalogue().get(call.name)
        if tool is None or not self.needs_approval(tool.effect):
            return None  # unknown tools are answered by the executor
        run.emit("tool.permission_request", tool=call.name, mode=self.config.mode, effect=tool.effect)
        if self.approver is None:
            return self._deny(run, call, tool.effect, "No approver is configured, so nothing can be approved in this run.")
        try:
            approved = bool(await self.approver(call.name, dict(call.arguments)))
        except Exception as e:  # a broken approver must not run the tool
            return self._deny(run, call, tool.effect, f"The approval request failed ({type(e).__name__}).")
        run.emit("tool.permission_result", tool=call.name, approved=approved)
        if approved:
            return None
        return self._deny(run, call, tool.effect, "The user declined this call.")

    def _deny(self, run: RunState, call: ToolCall, effect: str, reason: str) -> ToolOutcome:
        text = load_prompt("security_permission_denied.md").format(
            tool=call.name, effect=effect, mode=self.config.mode, reason=reason,
        )
        return ToolOutcome("denied", text, {"permission_denied": True, "mode": self.config.mode})
