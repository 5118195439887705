"""``python -m harness``: run the reference harness against an OpenAI-compatible server.

    python -m harness --base-url http://127.0.0.1:8000/v1 --model NAME [--preset looplab]
                      [--workspace DIR] [--api-key-env VAR] "task"

Streams every model turn, tool call and intervention to stdout and exits with a code derived
from the run's ``ExitStatus`` (``EXIT_CODES``; 2 is a usage error).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import signal
import sys
import tempfile
from typing import Any, TextIO

import yaml

from harness.assembly import build_controls
from harness.config import HarnessConfig
from harness.controls.base import Control
from harness.events import RunEvent
from harness.loop import Agent, RunResult
from harness.messages import ToolCall
from harness.model import Model, ModelReply
from harness.openai_client import OpenAICompatModel
from harness.presets import PresetError, get_preset, preset_names
from harness.state import RunState
from harness.status import ExitStatus
from harness.tools.base import ToolOutcome
from harness.workspace import LocalWorkspace

EXIT_CODES: dict[ExitStatus, int] = {
    ExitStatus.COMPLETED: 0,
    ExitStatus.ERROR: 1,
    ExitStatus.TURN_LIMIT: 3,
    ExitStatus.TOOL_CALL_LIMIT: 4,
    ExitStatus.TOKEN_BUDGET: 5,
    ExitStatus.CIRCUIT_BREAKER: 6,
    ExitStatus.PROVIDER_ERROR: 7,
    ExitStatus.FALLBACKS_EXHAUSTED: 8,
    ExitStatus.CONTEXT_OVERFLOW: 9,
    ExitStatus.EMPTY_REPLIES: 10,
    ExitStatus.INTERRUPTED: 130,
}
"""Process exit code per ending; an ending not listed exits with 1."""

QUIET_EVENTS = frozenset({"run.started", "run.record", "run.completed"})
"""Events the printer leaves out: the final summary line says the same."""


def short(text: str, limit: int = 160) -> str:
    one = " ".join(text.split())
    return one if len(one) <= limit else one[: limit - 1] + "…"


class ConsolePrinter(Control):
    name = "console"

    def __init__(self, out: TextIO | None = None, width: int = 160) -> None:
        self.out = out or sys.stdout
        self.width = width

    def line(self, text: str) -> None:
        print(text, file=self.out, flush=True)

    async def after_reply(self, run: RunState, reply: ModelReply) -> bool:
        msg = reply.message
        label = f"[turn {run.turns}] {reply.model or run.model_name}"
        if msg.thoughts:
            self.line(f"{label} (thinking) {short(msg.thoughts, self.width)}")
        self.line(f"{label}: {short(msg.content, self.width) if msg.content else '(no text)'}")
        for c in msg.tool_calls:
            self.line(f"  -> {c.name} {short(json.dumps(c.arguments), self.width)}")
        return False

    async def after_tool(self, run: RunState, call: ToolCall, outcome: ToolOutcome) -> ToolOutcome:
        self.line(f"  <- {call.name} [{outcome.kind}] {len(outcome.content)} chars: "
                  f"{short(outcome.content, self.width)}")
        return outcome

    def print_event(self, event: RunEvent) -> None:
        if event.type in QUIET_EVENTS:
            return
        data = " ".join(f"{k}={short(str(v), 80)}" for k, v in event.data.items()
                        if k != "traceback")
        self.line(f"  ! {event.type} {data}")


def exit_code(status: ExitStatus) -> int:
    return EXIT_CODES.get(status, 1)


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="python -m harness",
        description="Run looplab's reference harness against an OpenAI-compatible server.",
    )
    p.add_argument("task", help="the task for the agent")
    p.add_argument("--base-url", required=True, help="server URL, e.g. http://127.0.0.1:8000/v1")
    p.add_argument("--model", required=True, help="model name as the server knows it")
    p.add_argument("--fallback-model", action="append", default=[], metavar="NAME",
                   help="a model to fail over to (repeatable, in order)")
    p.add_argument("--preset", default="looplab", help=f"one of: {', '.join(preset_names())}")
    p.add_argument("--workspace", help="directory the agent works in (default: a new temp dir)")
    p.add_argument("--api-key-env", action="append", default=[], metavar="VAR",
                   help="environment variable holding an API key; repeat (or comma-separate) "
                        "for several auth profiles (default: OPENAI_API_KEY when set)")
    p.add_argument("--max-turns", type=int, help="override limits.max_turns")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a config field, e.g. --set loop_detection.enabled=true")
    p.add_argument("--timeout", type=float, default=300.0, help="HTTP timeout per model call (s)")
    return p.parse_args(argv)


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for item in args.set:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise ValueError(f"--set {item!r}: expected KEY=VALUE (e.g. limits.max_turns=20)")
        node = out
        *parents, leaf = key.strip().split(".")
        for part in parents:
            node = node.setdefault(part, {})
        node[leaf] = yaml.safe_load(raw)
    if args.max_turns is not None:
        out.setdefault("limits", {})["max_turns"] = args.max_turns
    return out


def build_config(args: argparse.Namespace) -> HarnessConfig:
    try:
        return get_preset(args.preset, **_overrides(args))
    except PresetError:
        raise
    except Exception as e:  # pydantic's ValidationError names the field
        raise ValueError(f"--set/--max-turns: invalid override for preset {args.preset!r}: {e}") from e


def build_models(args: argparse.Namespace) -> list[Model]:
    env_vars = [v.strip() for item in args.api_key_env for v in item.split(",") if v.strip()]
    if not env_vars and os.environ.get("OPENAI_API_KEY"):
        env_vars = ["OPENAI_API_KEY"]
    for var in env_vars:
        if var not in os.environ:
            raise ValueError(f"--api-key-env {var}: environment variable {var} is not set")
    keys: list[tuple[str | None, str | None]] = [(v, os.environ[v]) for v in env_vars] or [(None, None)]
    return [
        OpenAICompatModel(args.base_url, name, key, profile_id=var, timeout_s=args.timeout)
        for name in [args.model, *args.fallback_model]
        for var, key in keys
    ]


async def run_cli(args: argparse.Namespace, out: TextIO) -> RunResult:
    config = build_config(args)
    models = build_models(args)
    root = args.workspace or tempfile.mkdtemp(prefix="looplab-ws-")
    workspace = LocalWorkspace(root)
    printer = ConsolePrinter(out)
    printer.line(f"[looplab] preset {config.name} | model {args.model} | workspace {workspace.root}")
    printer.line(f"[looplab] controls on: {', '.join(config.controls_on()) or '(none)'}")
    agent = Agent(config, models, workspace, controls=[*build_controls(config), printer],
                  on_event=printer.print_event)
    loop = asyncio.get_running_loop()
    try:
        loop.add_signal_handler(signal.SIGINT, agent.interrupt)
    except (NotImplementedError, RuntimeError):  # not the main thread, or no signals here
        pass
    try:
        return await agent.run(args.task)
    finally:
        try:
            loop.remove_signal_handler(signal.SIGINT)
        except (NotImplementedError, RuntimeError):
            pass


def summary(result: RunResult) -> list[str]:
    u = result.usage
    lines = [f"[looplab] {result.status.value}: {result.turns} turns, {result.tool_calls} tool "
             f"calls, {u.input_tokens:,} input / {u.output_tokens:,} output tokens"
             f" ({u.cached_tokens:,} cached)"]
    cost = next((e.data.get("line") for e in result.events if e.type == "budget.cost"), None)
    if cost:
        lines.append(f"[looplab] cost: {cost}")
    lines.append(result.message if result.status == ExitStatus.COMPLETED
                 else f"[looplab] {result.message}")
    return lines


def main(argv: list[str] | None = None, out: TextIO | None = None) -> int:
    out = out or sys.stdout
    args = parse_args(argv)
    try:
        result = asyncio.run(run_cli(args, out))
    except (ValueError, KeyError, FileNotFoundError) as e:  # bad flags, preset, tool or prompt
        print(f"python -m harness: error: {e}", file=sys.stderr)
        return 2
    for line in summary(result):
        print(line, file=out, flush=True)
    return exit_code(result.status)


if __name__ == "__main__":
    sys.exit(main())
