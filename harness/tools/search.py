"""The read-only search tool ``grep`` (seed 000 lists Grep among the read-only tools).

Being ``read_only`` and ``idempotent``, its calls may share a parallel wave
(``parallel_tools``) and an identical repeat after a success is skipped (``replay``). It runs
GNU grep in the workspace, so a slow source (a big tree, a named pipe fed by another process)
takes as long as it takes: that is what running searches in parallel saves.
"""

from __future__ import annotations

import shlex
from typing import Any

from harness.tools.base import ToolContext, ToolOutcome, check_arguments, register_tools

MAX_MATCHES_PER_FILE = 200
"""Matching lines kept per file: a search is for finding, not for dumping whole files."""


async def _grep(args: dict[str, Any], ctx: ToolContext) -> ToolOutcome:
    check_arguments(args)
    pattern = args.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise ValueError("argument 'pattern' is required and must be a non-empty string")
    path = args.get("path") or "."
    if not isinstance(path, str):
        raise ValueError("argument 'path' must be a string")
    # -r: directories are searched recursively (named pipes met on the way are skipped, those
    # named as the path are read); -I: binary files are skipped; -E: extended regex.
    command = (f"grep -rnIE -m {MAX_MATCHES_PER_FILE} -e {shlex.quote(pattern)} "
               f"-- {shlex.quote(path)}")
    res = await ctx.workspace.exec(command, timeout=ctx.timeout)
    if res.timed_out:
        return ToolOutcome("timeout", f"[search timed out after {ctx.timeout}s]\n{res.output}")
    if res.exit_code == 1:  # grep: no line matched
        return ToolOutcome("result", f"No matches for {pattern!r} in {path}.", {"matches": 0})
    if res.exit_code != 0:
        return ToolOutcome("failure", res.output or f"[grep exit code {res.exit_code}]",
                           {"exit_code": res.exit_code})
    return ToolOutcome("result", res.stdout, {"matches": len(res.stdout.splitlines())})


register_tools({"grep": _grep})
