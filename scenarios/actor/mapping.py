"""Map abstract actions onto the tools a harness offers, so one scenario drives any harness.

Our harness offers ``bash``/``read_file``/``write_file``/``list_dir``; inspect's ``react()`` peer
offers ``bash`` and ``text_editor``. A harness without a shell still gets reads and writes.
"""

from __future__ import annotations

import itertools
import shlex
from typing import Any

from harness.messages import Message, ToolCall
from harness.model import ToolSpec
from scenarios.actor.actions import (
    Action,
    Answer,
    Empty,
    ListDir,
    Parallel,
    RawCall,
    Read,
    Run,
    ThoughtOnly,
    Write,
)

SHELL_TOOLS = ("bash", "shell", "exec", "run_command")
_ids = itertools.count(1)


def _call(name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(id=f"actor_{next(_ids)}", name=name, arguments=arguments)


def _shell(names: set[str]) -> str | None:
    return next((t for t in SHELL_TOOLS if t in names), None)


def to_call(action: Run | Read | Write | ListDir | RawCall, tools: list[ToolSpec]) -> ToolCall | None:
    """The tool call carrying ``action`` with the tools offered, or None if none can."""
    names = {t.name for t in tools}
    shell = _shell(names)
    match action:
        case RawCall(name=name, arguments=args):
            return _call(name, dict(args))
        case Run(command=command):
            return _call(shell, {"command": command}) if shell else None
        # inspect's text_editor wants absolute paths, which the actor cannot know; a model would
        # use the shell for relative paths too, so the editor is the last resort.
        case Read(path=path):
            if "read_file" in names:
                return _call("read_file", {"path": path})
            if shell:
                return _call(shell, {"command": f"cat {shlex.quote(path)}"})
            if "text_editor" in names:
                return _call("text_editor", {"command": "view", "path": path})
            return None
        case Write(path=path, content=content):
            if "write_file" in names:
                return _call("write_file", {"path": path, "content": content})
            if shell:
                q = shlex.quote(path)
                cmd = f"mkdir -p \"$(dirname {q})\" && printf %s {shlex.quote(content)} > {q}"
                return _call(shell, {"command": cmd})
            if "text_editor" in names:
                return _call("text_editor", {"command": "create", "path": path, "file_text": content})
            return None
        case ListDir(path=path):
            if "list_dir" in names:
                return _call("list_dir", {"path": path})
            return _call(shell, {"command": f"ls -la {shlex.quote(path)}"}) if shell else None
    return None


def to_reply(action: Action, tools: list[ToolSpec]) -> Message:
    """The assistant message that performs ``action``."""
    match action:
        case Answer(text=text):
            return Message(role="assistant", content=text)
        case Empty():
            return Message(role="assistant", content="")
        case ThoughtOnly(thought=thought):
            return Message(role="assistant", content="", thoughts=thought)
        case Parallel(actions=actions):
            calls = [c for a in actions if (c := to_call(a, tools)) is not None]
            if not calls:
                return Message(role="assistant", content="I have no tool to do this.")
            return Message(role="assistant", tool_calls=calls)
    call = to_call(action, tools)  # type: ignore[arg-type]
    if call is None:
        return Message(role="assistant", content=f"I cannot do this with the tools offered: {action}")
    return Message(role="assistant", content=getattr(action, "note", ""), tool_calls=[call])
