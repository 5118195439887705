"""Completion verification (seed 004 failure table: "Agent declares premature victory").

A model grades its own work too generously: without a check, any reply without a tool call ends
the run as done, whether or not the work passes its tests. With this control a final answer is
accepted only after the harness ran the verification command and it passed; otherwise the
answer is sent back to the model with the failing output, a bounded number of times.

Source: seed 004 failure table, "Agent declares premature victory".
"""

from __future__ import annotations

import shlex

from harness.controls.base import Control
from harness.controls.empty_reply import visible_text
from harness.discipline_config import VerifyDoneConfig
from harness.messages import Message
from harness.model import ModelReply
from harness.prompts import load_prompt
from harness.state import RunState


class VerifyDone(Control):
    name = "verify_done"

    def __init__(self, config: VerifyDoneConfig) -> None:
        self.config = config
        self.rejections = 0

    async def on_run_start(self, run: RunState) -> None:
        self.rejections = 0  # the rejection budget is per run

    async def after_reply(self, run: RunState, reply: ModelReply) -> bool:
        # Only a real final answer: tool calls continue anyway, and an empty reply is the
        # empty-reply guard's business (a nudge, not a verification).
        if reply.message.tool_calls or not visible_text(reply.message.content):
            return False
        if not await self._applies(run):
            return False
        cfg = self.config
        res = await run.workspace.exec(cfg.command, timeout=cfg.timeout_s)
        passed = res.exit_code in cfg.pass_exit_codes and not res.timed_out
        run.emit("verify.ran", command=cfg.command, exit_code=res.exit_code, passed=passed,
                 rejections=self.rejections)
        if passed:
            return False
        if self.rejections >= cfg.max_rejections:
            run.emit("verify.unverified", command=cfg.command, exit_code=res.exit_code)
            return False
        self.rejections += 1
        output = res.output.strip() or "(no output)"
        if len(output) > cfg.output_tail_chars:
            output = "…" + output[-cfg.output_tail_chars:]
        text = load_prompt("verify_done_failed.md").format(
            command=cfg.command, exit_code=res.exit_code, output=output,
        )
        run.messages.append(Message.user(text, origin="harness"))
        return True

    async def _applies(self, run: RunState) -> bool:
        paths = self.config.only_if_exists
        if not paths:
            return True
        test = " || ".join(f"test -e {shlex.quote(p)}" for p in paths)
        res = await run.workspace.exec(test, timeout=30)
        return res.exit_code == 0
