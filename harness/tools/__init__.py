"""Tools the harness offers the model. Tools declare themselves; the loop never lists them."""

from harness.tools import builtin as _builtin  # noqa: F401  (side effect: registers the tools)
from harness.tools import search as _search  # noqa: F401  (registers grep)
from harness.tools.base import Tool, ToolContext, ToolOutcome, register_tool, resolve_tools

__all__ = ["Tool", "ToolContext", "ToolOutcome", "register_tool", "resolve_tools"]
