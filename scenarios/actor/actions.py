"""Abstract actions a policy can take. ``mapping`` turns them into tool calls for any harness."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Run:
    """Run a shell command (``note``: visible text said alongside, e.g. progress)."""

    command: str
    note: str = ""


@dataclass(frozen=True)
class Read:
    path: str


@dataclass(frozen=True)
class Write:
    path: str
    content: str


@dataclass(frozen=True)
class ListDir:
    path: str = "."


@dataclass(frozen=True)
class RawCall:
    """Call a tool by exact name (e.g. a hallucinated tool), whatever the harness offers."""

    name: str
    arguments: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class Answer:
    """Reply with text and no tool call (the model considers itself done)."""

    text: str


@dataclass(frozen=True)
class Empty:
    """Reply with nothing at all (a real failure of small or overloaded models)."""


@dataclass(frozen=True)
class ThoughtOnly:
    """Reply with hidden reasoning only: no visible text, no tool call."""

    thought: str


@dataclass(frozen=True)
class Parallel:
    """Several tool actions in one reply."""

    actions: tuple[Run | Read | Write | ListDir | RawCall, ...]


Action = Run | Read | Write | ListDir | RawCall | Answer | Empty | ThoughtOnly | Parallel
