"""The basic tools: bash, read_file, write_file, list_dir."""

from __future__ import annotations

import shlex
from typing import Any

from harness.tools.base import Tool, ToolContext, ToolOutcome, check_arguments, register_tool


def _str_arg(args: dict[str, Any], key: str) -> str:
    check_arguments(args)
    value = args.get(key)
    if not isinstance(value, str):
        raise ValueError(f"argument {key!r} is required and must be a string")
    return value


async def _bash(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    command = _str_arg(args, "command")
    res = await ctx.workspace.exec(command, timeout=ctx.timeout)
    if res.timed_out:
        return ToolOutcome("timeout", f"[command timed out after {ctx.timeout}s]\n{res.output}")
    text = res.output
    if res.exit_code != 0:
        text = f"{text}\n[exit code {res.exit_code}]" if text else f"[exit code {res.exit_code}]"
        return ToolOutcome("failure", text, {"exit_code": res.exit_code})
    return ToolOutcome("result", text, {"exit_code": 0})


async def _read_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    path = _str_arg(args, "path")
    try:
        return ToolOutcome("result", await ctx.workspace.read_file(path), {"file_path": path})
    except FileNotFoundError:
        return ToolOutcome("failure", f"File not found: {path}")
    except IsADirectoryError:
        return ToolOutcome("failure", f"{path} is a directory; use list_dir")


async def _write_file(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    path = _str_arg(args, "path")
    content = _str_arg(args, "content")
    await ctx.workspace.write_file(path, content)
    return ToolOutcome("result", f"Wrote {len(content)} characters to {path}", {"file_path": path})


async def _list_dir(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    check_arguments(args)
    path = args.get("path") or "."
    if not isinstance(path, str):
        raise ValueError("argument 'path' must be a string")
    res = await ctx.workspace.exec(f"ls -la -- {shlex.quote(path)}", timeout=ctx.timeout)
    if res.exit_code != 0:
        return ToolOutcome("failure", res.output or f"cannot list {path}")
    return ToolOutcome("result", res.stdout)


def _schema(**props: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {k: {"type": "string", "description": v} for k, v in props.items()},
        "required": list(props),
    }


register_tool(Tool(
    name="bash",
    description="Run a bash command in the workspace and return its output and exit code.",
    parameters=_schema(command="The command line to run."),
    run=_bash,
    effect="local_write",
))
register_tool(Tool(
    name="read_file",
    description="Read a text file from the workspace.",
    parameters=_schema(path="Path relative to the workspace root."),
    run=_read_file,
    effect="read_only",
    idempotent=True,
))
register_tool(Tool(
    name="write_file",
    description="Write (create or replace) a text file in the workspace.",
    parameters=_schema(path="Path relative to the workspace root.", content="The full new content."),
    run=_write_file,
    effect="local_write",
    idempotent=True,
))
register_tool(Tool(
    name="list_dir",
    description="List a directory in the workspace.",
    parameters={
        "type": "object",
        "properties": {"path": {"type": "string", "description": "Directory (default '.')."}},
        "required": [],
    },
    run=_list_dir,
    effect="read_only",
    idempotent=True,
))
