"""Map abstract actions onto the tools a harness offers, so one scenario drives any harness.

Tools are recognised by the shape of their schema (parameter names, types, descriptions), not by
a list of tool names: a shell is a tool with one command-like string parameter, a file reader
takes a path and nothing to write, a writer takes a path and content, a sub-agent tool takes a
task, a finishing tool gives a final answer. Our harness offers ``bash``/``read_file``/
``write_file``/``list_dir``/``agent``; inspect's ``react()`` peer ``bash`` and ``text_editor``;
third-party harnesses their own. A harness without a shell still gets reads and writes.
Text-action harnesses get their replies written by ``scenarios.actor.dialects``.
"""

from __future__ import annotations

import itertools
import re
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
"""Names policies may test for a shell; ``ActorView.tool_names`` adds ``bash`` for any shell."""
ROLE_NAMES = {"bash": "shell", "agent": "spawn"}
"""Tool names scenarios use for a role (``RawCall("agent", ...)``): they reach whatever tool of
that shape the harness offers."""

_ids = itertools.count(1)
# a word or camelCase part, so that "description" (de-script-ion) is no command parameter
_COMMAND = re.compile(r"(?:(?<![A-Za-z])|(?<=[a-z])(?=[A-Z]))(?i:command|cmd|script|shell|bash|code_?line)")
_PATH = re.compile(r"path|file|filename|target", re.I)
_CONTENT = re.compile(r"content|text|data|body|file_text|contents", re.I)
_TASK = re.compile(r"^(?:task|prompt|instructions?|goal|objective|request|query)$", re.I)
_SHELL_DOC = re.compile(r"shell|bash|command|terminal|execute|exec\b|run\b", re.I)
_READ_DOC = re.compile(r"read|view|cat\b|open|show|contents? of", re.I)
_LIST_DOC = re.compile(r"\blist|director|\bls\b|folder", re.I)
_SPAWN_DOC = re.compile(r"agent|delegat|sub-?task|spawn|worker|team member", re.I)
_FINISH_DOC = re.compile(r"final answer|final_answer|submit (?:the |your )?(?:final )?(?:answer|result|"
                         r"solution)|finish(?:es)? the task|task is (?:complete|done)", re.I)


def _call(name: str, arguments: dict[str, Any]) -> ToolCall:
    return ToolCall(id=f"actor_{next(_ids)}", name=name, arguments=arguments)


def _props(tool: ToolSpec) -> dict[str, dict[str, Any]]:
    props = tool.parameters.get("properties") or {}
    return {k: (v if isinstance(v, dict) else {}) for k, v in props.items()}


def _strings(tool: ToolSpec) -> list[str]:
    """The tool's string-typed (or untyped) parameters."""
    return [k for k, v in _props(tool).items() if v.get("type") in (None, "string")
            or "string" in (v.get("type") or [])]


def _param(tool: ToolSpec, pattern: re.Pattern[str], among: list[str] | None = None) -> str | None:
    """The first parameter whose name (then description) matches ``pattern``."""
    names = among if among is not None else list(_props(tool))
    for key in ("name", "description"):
        for n in names:
            text = n if key == "name" else str(_props(tool)[n].get("description", ""))
            if pattern.search(text):
                return n
    return None


def _doc(tool: ToolSpec) -> str:
    return f"{tool.name} {tool.description}"


def _is_editor(tool: ToolSpec) -> bool:
    """inspect's ``text_editor`` style: one tool, a ``command`` enum of view/create/..."""
    if not _props(tool):
        return tool.name == "text_editor"
    return any({"view", "create"} <= set(v.get("enum") or []) for v in _props(tool).values())


def find_tool(role: str, tools: list[ToolSpec]) -> tuple[ToolSpec, dict[str, str]] | None:
    """The offered tool playing ``role`` (shell, read, write, list, spawn, finish) and which of
    its parameters carries each abstract argument (``command``, ``path``, ``content``, ``task``,
    ``answer``); exact role names (``bash``, ``read_file``...) win ties."""
    found = [(t, m) for t in tools if not _is_editor(t) and (m := _fit(role, t)) is not None
             # a shell or a sub-agent tool is no file tool, whatever its parameters' prose says
             and (role not in _FILE_ROLES or not any(_fit(r, t) for r in ("shell", "spawn")))]
    # exact names first (case aside: Claude Code's Bash), then parameters matched by name
    # rather than by their descriptions (Write's `content` over Edit's "The text to replace")
    found.sort(key=lambda tm: (tm[0].name.lower() not in _EXACT.get(role, ()),
                               sum(_PATTERNS[a].search(p) is None for a, p in tm[1].items())))
    return found[0] if found else None


_FILE_ROLES = ("read", "write", "list")
_PATTERNS = {"command": _COMMAND, "path": _PATH, "content": _CONTENT, "task": _TASK,
             "answer": re.compile(".")}


_EXACT = {"shell": SHELL_TOOLS, "read": ("read_file",), "write": ("write_file",),
          "list": ("list_dir",), "spawn": ("agent",), "finish": ("final_answer", "submit")}


_DEFAULT_PARAMS = {"shell": {"command": "command"}, "read": {"path": "path"},
                   "write": {"path": "path", "content": "content"}, "list": {"path": "path"},
                   "spawn": {"task": "task"}, "finish": {"answer": "answer"}}


def _fit(role: str, t: ToolSpec) -> dict[str, str] | None:
    if not _props(t):  # a tool that declares no parameters is taken at its name
        return dict(_DEFAULT_PARAMS[role]) if t.name in _EXACT.get(role, ()) else None
    strings = _strings(t)
    # an agent's id is no path, whatever its name (Codex CLI's send_input: `target`, "Agent id
    # to message", beside a `message`: read as a writer, it swallowed every file the actor wrote)
    path = _param(t, _PATH, [s for s in strings if not _SPAWN_DOC.search(str(_props(t)[s].get("description", "")))])
    content = _param(t, _CONTENT, [s for s in strings if s != path])
    if role == "shell":
        cmd = _param(t, _COMMAND, strings)
        # a path parameter by its name only (Claude Code's Bash explains `description` with
        # "files"), and only a required one (Gemini CLI's shell takes an optional `dir_path`)
        required = t.parameters.get("required")
        named_path = any(_PATH.search(n) and (required is None or n in required) for n in strings)
        ok = cmd is not None and not named_path and bool(_SHELL_DOC.search(_doc(t)) or cmd == "command")
        return {"command": cmd} if ok and cmd else None
    if role == "write":
        return {"path": path, "content": content} if path and content else None
    if role == "read":
        ok = bool(path and not content and _READ_DOC.search(_doc(t)) and not _LIST_DOC.search(t.name))
        return {"path": path} if ok and path else None
    if role == "list":
        # a lister with parameters takes a path (Claude Code's ListAgents and ReportFindings list
        # no directory), and a reader is no lister though its prose speaks of directories
        ok = bool(path and not content and _LIST_DOC.search(_doc(t)) and not _SHELL_DOC.search(t.name)
                  and not _READ_DOC.search(t.name))
        return {"path": path} if ok and path else None
    if role == "spawn":
        task = _param(t, _TASK, strings)
        return {"task": task} if task and _SPAWN_DOC.search(_doc(t)) else None
    if role == "finish":  # one answer parameter at most: a sub-agent tool also speaks of answers
        if not _FINISH_DOC.search(_doc(t)) or _SPAWN_DOC.search(_doc(t)) or len(_props(t)) > 1:
            return None
        answer = next(iter(_props(t)), None)
        return {"answer": answer} if answer else {}
    return None


def _with(role: str, tools: list[ToolSpec], **args: Any) -> ToolCall | None:
    hit = find_tool(role, tools)
    if hit is None:
        return None
    tool, params = hit
    return _call(tool.name, {params[k]: v for k, v in args.items() if k in params})


def _editor(tools: list[ToolSpec]) -> str | None:
    return next((t.name for t in tools if _is_editor(t)), None)


def write_command(path: str, content: str) -> str:
    q = shlex.quote(path)
    return f"mkdir -p \"$(dirname {q})\" && printf %s {shlex.quote(content)} > {q}"


def to_call(action: Run | Read | Write | ListDir | RawCall, tools: list[ToolSpec]) -> ToolCall | None:
    """The tool call carrying ``action`` with the tools offered, or None if none can."""
    names = {t.name for t in tools}
    match action:
        case RawCall(name=name, arguments=args):
            role = ROLE_NAMES.get(name)
            if name in names or role is None or (hit := find_tool(role, tools)) is None:
                return _call(name, dict(args))  # offered, or a tool the harness lacks
            tool, params = hit
            return _call(tool.name, {params.get(k, k): v for k, v in args.items()
                                     if k in params or k in _props(tool)})
        case Run(command=command):
            return _with("shell", tools, command=command)
        # inspect's text_editor wants absolute paths, which the actor cannot know; a model would
        # use the shell for relative paths too, so the editor is the last resort.
        case Read(path=path):
            editor = _editor(tools)
            return (_with("read", tools, path=path) or _with("shell", tools, command=f"cat {shlex.quote(path)}")
                    or (_call(editor, {"command": "view", "path": path}) if editor else None))
        case Write(path=path, content=content):
            editor = _editor(tools)
            return (_with("write", tools, path=path, content=content)
                    or _with("shell", tools, command=write_command(path, content))
                    or (_call(editor, {"command": "create", "path": path, "file_text": content})
                        if editor else None))
        case ListDir(path=path):
            return (_with("list", tools, path=path)
                    or _with("shell", tools, command=f"ls -la {shlex.quote(path)}"))
    return None


def to_reply(action: Action, tools: list[ToolSpec], finish_command: str | None = None) -> Message:
    """The assistant message that performs ``action`` with native tool calls. An answer goes
    through the harness's finishing tool, or its finishing command, when it has one."""
    match action:
        case Answer(text=text):
            done = _with("finish", tools, answer=text) or (
                _with("shell", tools, command=finish_command) if finish_command else None)
            return Message(role="assistant", content=text, tool_calls=[done] if done else [])
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
