"""The basic tools: bash, read_file, write_file, list_dir (declared in ``harness/prompts/tools.yaml``)."""

from __future__ import annotations

import shlex
from typing import Any

from harness.tools.base import ToolContext, ToolOutcome, check_arguments, register_tools


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


register_tools({"bash": _bash, "read_file": _read_file, "write_file": _write_file, "list_dir": _list_dir})
