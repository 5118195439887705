"""Per-turn system prompt rebuild (seed 004's ``build_system_prompt`` called every turn).

Kept as an explicit, switchable behaviour because it is what many harnesses do, and the suite
measures what it costs: the system message changes every turn, so a server-side prefix cache
that matches tokens from the start (vLLM) can reuse nothing after it.

Source: seed 004, ``build_system_prompt``: stable tiers above the cache boundary, volatile below.
"""

from __future__ import annotations

from harness.controls.base import Control
from harness.messages import Message
from harness.prompt_builder import build_prompt
from harness.state import RunState


class PromptRefresh(Control):
    name = "prompt_refresh"

    async def before_model(self, run: RunState) -> None:
        if not run.messages or run.messages[0].role != "system":
            return
        prompt = await build_prompt(run.config, run.workspace, tools=run.tools, turn=run.turns + 1)
        if prompt.text != run.messages[0].content:
            run.messages[0] = Message.system(prompt.text)
            run.emit("prompt.refreshed", turn=run.turns + 1)
