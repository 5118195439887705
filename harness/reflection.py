"""Budget-aware reflection step (seed 003 ``ReflectionEngine``).

Every few turns the model is asked for one paragraph on where the session stands; the paragraph
is added to the conversation so the next turn can act on it. ``ReflectionEngine.reflect`` always
returns a ``ReflectionResult``: a stub when the reflection budget is spent, the deadline has
passed, or the model fails. A reflection is advice, never a reason for the run to fail.

Source: seed 003, ``ReflectionEngine.reflect()`` "always returns a ReflectionResult".
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field

from harness.config import ReflectionConfig
from harness.controls.base import Control
from harness.events import subsystem_logger
from harness.messages import Message, estimate_tokens
from harness.model import Model, ToolSpec, Usage
from harness.prompts import load_prompt
from harness.state import RunState

log = subsystem_logger("reflection")

REFLECTION_PREFIX = "[Reflection]"


@dataclass(frozen=True)
class ReflectionResult:
    text: str
    """The paragraph ("" for a stub)."""
    stub: bool = False
    reason: str = ""
    """Why this is a stub: ``budget_exhausted``, ``deadline``, ``no_model``, ``empty``, or
    ``model_error: ...``."""
    usage: Usage = field(default_factory=Usage)


def _stub(reason: str) -> ReflectionResult:
    return ReflectionResult("", stub=True, reason=reason)


class ReflectionEngine:
    """Asks for reflections within a per-run budget of calls and tokens."""

    def __init__(self, config: ReflectionConfig) -> None:
        self.config = config
        self.reflections = 0
        self.tokens_used = 0

    async def reflect(
        self,
        messages: Sequence[Message],
        model: Model | None,
        tools: Sequence[ToolSpec] = (),
    ) -> ReflectionResult:
        """One reflection on ``messages``; the call gets at most ``timeout_s``."""
        cfg = self.config
        if self.reflections >= cfg.max_reflections:
            return _stub("budget_exhausted")
        prompt = [*messages, Message.user(load_prompt("reflection.md"), origin="reflection")]
        # Budget-aware: do not start a call whose input alone would overspend the budget.
        if self.tokens_used + estimate_tokens(prompt) > cfg.token_budget:
            return _stub("budget_exhausted")
        if model is None:
            return _stub("no_model")
        self.reflections += 1
        try:
            # The same tools as the turn: a request with tool messages but no tools is invalid for
            # some providers, and an identical prefix keeps the provider's prompt cache warm.
            reply = await asyncio.wait_for(model.generate(prompt, list(tools)), cfg.timeout_s)
        except TimeoutError:
            return _stub("deadline")
        except Exception as e:  # never raises: a failed reflection is only a missing hint
            log.debug("reflection failed", exc_info=True)
            return _stub(f"model_error: {type(e).__name__}: {e}"[:300])
        self.tokens_used += reply.usage.input_tokens + reply.usage.output_tokens
        text = reply.message.content.strip()
        if not text:
            return ReflectionResult("", stub=True, reason="empty", usage=reply.usage)
        return ReflectionResult(text, usage=reply.usage)


class Reflection(Control):
    """Runs the engine after every ``every_turns`` turns and adds the paragraph as a message."""

    name = "reflection"

    def __init__(self, config: ReflectionConfig) -> None:
        self.config = config
        self.engine = ReflectionEngine(config)

    async def after_tools(self, run: RunState) -> None:
        if run.turns == 0 or run.turns % self.config.every_turns:
            return
        result = await self.engine.reflect(run.messages, run.model, [t.spec for t in run.tools])
        run.usage = run.usage + result.usage
        if result.stub:
            run.emit("reflection.stub", turn=run.turns, reason=result.reason)
            return
        run.model_calls += 1
        run.messages.append(Message.user(f"{REFLECTION_PREFIX}\n{result.text}", origin="reflection"))
        run.emit("reflection.added", turn=run.turns, chars=len(result.text))
