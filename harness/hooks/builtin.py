"""Built-in hooks: post-edit lint, pre-commit test gate, stop hooks, post-turn hooks.

Success is silent, failure is verbose and corrective (seed 004). Everything runs through the
``Workspace``, so the hooks work the same on a local directory and in a sandbox.

Source: seed 004, "Post-edit quality sensor" and "Pre-commit hook (enforced, not suggested)".
"""

from __future__ import annotations

import os
import re
import shlex
import time
from typing import Any

from harness.config import HarnessConfig, HooksConfig
from harness.context_files import local_root
from harness.controls.budget import cost_usd, formatted_cost
from harness.hooks import (
    AfterToolHook,
    BeforeToolHook,
    HookResult,
    HookRunner,
    PostTurnHook,
    StopHook,
    StopRequest,
)
from harness.messages import ToolCall
from harness.prompts import load_texts
from harness.state import RunState
from harness.status import ExitStatus
from harness.tools.base import ToolOutcome

EDIT_TOOLS = frozenset({"write_file", "edit_file", "edit", "str_replace", "multi_edit"})
"""Tools whose successful call changed the file named by their ``path`` argument."""

_GIT_COMMIT = re.compile(r"\bgit\b[^;&|\n]*?\bcommit\b")

# Same check as ``python3 -m py_compile`` without writing a .pyc into the workspace.
_COMPILE_CHECK = (
    "import sys\n"
    "p = sys.argv[1]\n"
    "try:\n"
    "    compile(open(p, encoding='utf-8').read(), p, 'exec')\n"
    "except (SyntaxError, ValueError) as e:\n"
    "    print(f'{p}:{getattr(e, \"lineno\", \"?\")}: {type(e).__name__}: {getattr(e, \"msg\", e)}')\n"
    "    if getattr(e, 'text', None):\n"
    "        print('    ' + e.text.rstrip())\n"
    "        print('    ' + ' ' * max((e.offset or 1) - 1, 0) + '^')\n"
    "    sys.exit(1)\n"
)


def _tail(text: str, lines: int = 40, chars: int = 3000) -> str:
    return "\n".join(text.strip().splitlines()[-lines:])[-chars:]


def edited_path(call: ToolCall, outcome: ToolOutcome) -> str | None:
    path: Any = outcome.metadata.get("file_path") or call.arguments.get("path") \
        or call.arguments.get("file_path")
    return path if isinstance(path, str) else None


def post_edit_lint(cfg: HooksConfig) -> AfterToolHook:
    async def post_edit_lint(call: ToolCall, outcome: ToolOutcome, run: RunState) -> str | None:
        if call.name not in EDIT_TOOLS or outcome.is_error:
            return None
        path = edited_path(call, outcome)
        if path is None or not path.endswith(".py"):
            return None
        q = shlex.quote(path)
        problems = []
        res = await run.workspace.exec(f"python3 -c {shlex.quote(_COMPILE_CHECK)} {q}",
                                       timeout=cfg.lint_timeout_s)
        if res.exit_code != 0:
            problems.append(res.output.strip() or f"compile check exited {res.exit_code}")
        elif cfg.lint_ruff:
            res = await run.workspace.exec(
                f"command -v ruff >/dev/null 2>&1 || exit 0; ruff check --quiet --no-cache {q}",
                timeout=cfg.lint_timeout_s,
            )
            if res.exit_code != 0:
                problems.append(res.output.strip())
        if not problems:
            return None
        return load_texts("hooks.yaml")["lint_failure"].format(path=path, output=_tail("\n".join(problems)))

    return post_edit_lint


def pre_commit_tests(cfg: HooksConfig) -> BeforeToolHook:
    async def pre_commit_tests(call: ToolCall, run: RunState) -> HookResult | None:
        command = call.arguments.get("command")
        if not isinstance(command, str) or not _GIT_COMMIT.search(command):
            return None
        res = await run.workspace.exec(cfg.test_command, timeout=cfg.test_timeout_s)
        run.emit("hooks.pre_commit_tests", command=cfg.test_command, exit_code=res.exit_code,
                 timed_out=res.timed_out)
        if not res.timed_out and res.exit_code in cfg.test_pass_exit_codes:
            return None
        exit_code = "a timeout" if res.timed_out else str(res.exit_code)
        return HookResult(True, load_texts("hooks.yaml")["commit_blocked"].format(
            command=cfg.test_command, exit_code=exit_code, summary=_tail(res.output),
            original=command,
        ))

    return pre_commit_tests


def kill_switch(path: str) -> StopHook:
    async def kill_switch(run: RunState) -> StopRequest | None:
        root = local_root(run.workspace)  # a local directory: one stat, no thread per turn
        if root is not None and not os.path.exists(os.path.join(root, path)):
            return None
        try:
            await run.workspace.read_file(path)
        except FileNotFoundError:
            return None
        except OSError:
            pass  # it exists (e.g. a directory): that is the signal
        return StopRequest(ExitStatus.INTERRUPTED, f"kill switch: {path} exists in the workspace", "kill_switch")

    return kill_switch


def cost_cap(config: HarnessConfig) -> StopHook:
    """Ends the run once its cost reaches the ``cost_usd`` row of the limits table
    (``hooks.max_cost_usd``; prices from ``budget``)."""
    b = config.budget

    def cost_cap(run: RunState) -> StopRequest | None:
        if not run.reached("cost_usd", cost_usd(run.usage, b.price_per_mtok_in, b.price_per_mtok_out)):
            return None
        line = formatted_cost(run.usage, b.price_per_mtok_in, b.price_per_mtok_out)
        cap = run.limits["cost_usd"].cap or 0.0
        return StopRequest(ExitStatus.TOKEN_BUDGET, f"budget cap ${cap:.4f} reached: {line}", "cost_usd")

    return cost_cap


async def _append(run: RunState, path: str, text: str) -> None:
    try:
        old = await run.workspace.read_file(path)
    except FileNotFoundError:
        old = ""
    await run.workspace.write_file(path, old + text)


def cost_log(config: HarnessConfig, path: str) -> PostTurnHook:
    b = config.budget

    async def cost_log(run: RunState, status: str, message: str) -> None:
        line = formatted_cost(run.usage, b.price_per_mtok_in, b.price_per_mtok_out)
        when = time.strftime("%Y-%m-%dT%H:%M:%S")
        await _append(run, path, f"{when} run {run.run_id[:12]} {run.model_name} {status}: {line}\n")

    return cost_log


def memory_distillation(path: str) -> PostTurnHook:
    async def memory_distillation(run: RunState, status: str, message: str) -> None:
        task = next((m.content for m in reversed(run.messages)
                     if m.role == "user" and m.origin is None), "")
        answer = message if status == "completed" else next(
            (m.content for m in reversed(run.messages) if m.role == "assistant" and m.content),
            "",
        ) or f"(no answer: {message})"
        entry = load_texts("hooks.yaml")["notes_entry"].format(
            when=time.strftime("%Y-%m-%d %H:%M:%S"), run_id=run.run_id[:12], status=status,
            task=task.strip()[:500], answer=answer.strip(),
        )
        await _append(run, path, entry + "\n")

    return memory_distillation


def build_hook_runner(config: HarnessConfig) -> HookRunner:
    """A runner holding the built-in hooks ``config.hooks`` switches on."""
    cfg = config.hooks
    runner = HookRunner()
    if cfg.post_edit_lint:
        runner.register("after_tool_call", post_edit_lint(cfg))
    if cfg.pre_commit_tests:
        runner.register("before_tool_call", pre_commit_tests(cfg))
    if cfg.kill_switch_file:
        runner.register("stop", kill_switch(cfg.kill_switch_file))
    if cfg.max_cost_usd is not None:
        runner.register("stop", cost_cap(config))
    if cfg.cost_log_file:
        runner.register("post_turn", cost_log(config, cfg.cost_log_file))
    if cfg.notes_file:
        runner.register("post_turn", memory_distillation(cfg.notes_file))
    return runner
