"""Tool type, typed outcomes and the self-registering catalogue (seed 004, "tool registry").

Source: seed 004, "You want tools to declare themselves" (``register_tool``, ``dispatch_tool``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from functools import cache
from typing import TYPE_CHECKING, Any, Literal

import yaml

from harness.model import ToolSpec
from harness.prompts import load_prompt
from harness.tool_arguments import ERROR_KEY, INVALID_JSON_KEY
from harness.workspace import Workspace

if TYPE_CHECKING:
    from harness.config import HarnessConfig

Effect = Literal["read_only", "local_write", "network", "destructive"]
OutcomeKind = Literal["result", "timeout", "failure", "denied", "artifact"]


@dataclass(frozen=True)
class ToolOutcome:
    """What a tool call produced. A closed set of kinds (seed 003, typed tool outcomes)."""

    kind: OutcomeKind
    content: str
    """The text the model will see."""
    metadata: dict[str, Any] = field(default_factory=dict)

    @property
    def is_error(self) -> bool:
        return self.kind in ("timeout", "failure", "denied")

    def with_content(self, content: str, **metadata: Any) -> ToolOutcome:
        return ToolOutcome(self.kind, content, {**self.metadata, **metadata})


@dataclass
class ToolContext:
    workspace: Workspace
    config: HarnessConfig
    timeout: float | None = None
    """Deadline for this call in seconds (from the turn budget when deadlines are on)."""


def check_arguments(args: dict[str, Any]) -> None:
    """Raise ``ValueError`` (a tool error the model sees) for arguments that were rejected when
    the call arrived (``harness.tool_arguments``): invalid JSON, NUL bytes, deep nesting..."""
    if INVALID_JSON_KEY in args:
        raise ValueError(f"{args.get(ERROR_KEY) or 'arguments are not valid JSON'}; received: "
                         f"{str(args[INVALID_JSON_KEY])[:300]}")


ToolFn = Callable[[dict[str, Any], ToolContext], Awaitable[ToolOutcome]]


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict[str, Any]
    run: ToolFn
    effect: Effect = "read_only"
    """Scheduling and permission class: read-only tools may run in parallel and need no approval."""
    idempotent: bool = False
    """Repeating a successful call changes nothing (replay control may skip it)."""

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(name=self.name, description=self.description, parameters=self.parameters)


_CATALOGUE: dict[str, Tool] = {}


def register_tool(tool: Tool) -> Tool:
    """Add a tool to the catalogue (called at import time by the module defining it)."""
    _CATALOGUE[tool.name] = tool
    return tool


@cache
def tool_spec(name: str) -> dict[str, Any]:
    """A built-in tool's declaration in ``harness/prompts/tools.yaml``: ``description``,
    ``parameters`` (JSON schema), ``effect``, ``idempotent``."""
    return dict(yaml.safe_load(load_prompt("tools.yaml"))[name])


def register_tools(runs: dict[str, ToolFn]) -> None:
    """Register built-in tools declared in ``tools.yaml``, each run by its function."""
    for name, run in runs.items():
        register_tool(Tool(name=name, run=run, **tool_spec(name)))


def catalogue() -> dict[str, Tool]:
    return dict(_CATALOGUE)


def resolve_tools(names: list[str]) -> list[Tool]:
    """Tools by name, in the order given; unknown names raise ``KeyError`` naming the valid ones."""
    missing = [n for n in names if n not in _CATALOGUE]
    if missing:
        raise KeyError(f"unknown tool(s) {missing}; known: {sorted(_CATALOGUE)}")
    return [_CATALOGUE[n] for n in names]
