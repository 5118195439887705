"""Action dialects: how a harness expects its model to act, read and written by the actor.

``tools`` native tool calls; ``fenced-shell`` one shell command in a fenced block per reply
(mini-swe-agent's text mode: ```mswea_bash_command, or ```bash); ``code`` Python actions that
call tool functions (smolagents' CodeAgent: ``<code>`` or ```py blocks); ``text`` plain text.
The names are those of ``HarnessSpec.dialect`` (``evals.harnesses.spec``).

The actor reads a request the way a model does: text actions and the observations after them
become tool calls and results (so policies see the same exchanges in every dialect, including
smolagents' history replayed as "Calling tools:" / "Observation:" text); the fence language, the
code tags, the tool functions of a code agent and the finishing command are taken from the
harness's own instructions.
"""

from __future__ import annotations

import ast
import json
import re
import shlex
from dataclasses import dataclass, field
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
from scenarios.actor.mapping import find_tool, to_call, to_reply, write_command

DIALECTS = ("tools", "fenced-shell", "code", "text")

_FENCE = re.compile(r"```([A-Za-z0-9_+-]*)[ \t]*\n(.*?)\n?```", re.S)
_CODE_TAG = re.compile(r"<code>\s*\n?(.*?)\n?\s*</code>", re.S)
_SHELL_LANG = re.compile(r"bash|shell|^sh$|command|console", re.I)
_PY_LANG = re.compile(r"^(?:py|python|python3)$", re.I)
_CALLING = re.compile(r"Calling tools:\s*\n(\[.*\])", re.S)
_FINISH_CMD = re.compile(r"`(echo [A-Z][A-Z0-9_]{5,})`")
_DEF = re.compile(r"def (\w+)\(([^)]*)\)\s*(?:->\s*[^:]+)?:\s*\n\s*(?:\"\"\"|''')(.*?)(?:\"\"\"|''')", re.S)
_FAILED = re.compile(r"<returncode>\s*[1-9]\d*\s*</returncode>|\bexit (?:code|status)[:= ]+[1-9]\d*|"
                     r"^\s*(?:Call id: \S+\s*)?Error:", re.I | re.M)


@dataclass
class Style:
    """How replies are written for one request: the dialect and what its instructions name."""

    dialect: str = "tools"
    fence: str = "bash"
    code_tags: tuple[str, str] = ("<code>", "</code>")
    finish_command: str | None = None
    functions: list[ToolSpec] = field(default_factory=list)
    """Tool functions a code agent lists in its instructions (``def name(...)`` + docstring)."""


def instructions(messages: list[Message]) -> str:
    """The system prompt and the first user message: where harnesses explain their format."""
    system = [m.content for m in messages if m.role == "system"]
    first_user = next((m.content for m in messages if m.role == "user"), "")
    return "\n".join([*system, first_user])


def read_style(messages: list[Message], dialect: str | None) -> Style:
    text = instructions(messages)
    style = Style(dialect=dialect if dialect in DIALECTS else "tools")
    langs = [lang for lang, _ in _FENCE.findall(text) if _SHELL_LANG.search(lang)]
    style.fence = langs[0] if langs else "bash"
    if "<code>" not in text and re.search(r"```py(?:thon)?\b", text):
        style.code_tags = ("Code:\n```py\n", "\n```<end_code>")
    if m := _FINISH_CMD.search(text):
        style.finish_command = m.group(1)
    if style.dialect == "code":
        style.functions = code_functions(text)
    return style


def code_functions(text: str) -> list[ToolSpec]:
    """``def bash(command: str) -> str: \"\"\"Run...\"\"\"`` listings → tool schemas."""
    out: dict[str, ToolSpec] = {}
    for name, params, doc in _DEF.findall(text):
        props = {}
        for p in filter(None, (x.strip() for x in params.split(","))):
            pname = p.split(":")[0].split("=")[0].strip().lstrip("*")
            if pname and pname != "self":
                props[pname] = {"type": "string"}
        out[name] = ToolSpec(name=name, description=" ".join(doc.split())[:300],
                             parameters={"type": "object", "properties": props,
                                         "required": list(props)[:1]})
    return list(out.values())


def normalise(messages: list[Message], style: Style) -> list[Message]:
    """The transcript with text actions as tool calls and the observations after them as tool
    results, so the actor's view works alike for every dialect."""
    out: list[Message] = []
    pending: list[ToolCall] = []
    for m in messages:
        if pending and m.role in ("user", "tool"):
            out += [Message(role="tool", content=m.content, tool_call_id=c.id, name=c.name,
                            is_error=m.is_error or bool(_FAILED.search(m.content))) for c in pending]
            pending = []
            continue
        pending = []
        if m.role == "tool" and not m.is_error and _FAILED.search(m.content):
            m = m.model_copy(update={"is_error": True})
        if m.role == "assistant" and not m.tool_calls and (calls := text_calls(m.content, style)):
            m = m.model_copy(update={"tool_calls": calls})
            pending = calls
        out.append(m)
    return out


def text_calls(text: str, style: Style) -> list[ToolCall]:
    """Tool calls written as text: smolagents' "Calling tools:" list, a code action, or a fenced
    shell block."""
    if m := _CALLING.search(text):
        try:
            listed = ast.literal_eval(m.group(1))
        except (ValueError, SyntaxError):
            listed = []
        calls = []
        for i, item in enumerate(listed if isinstance(listed, list) else []):
            fn = item.get("function", {}) if isinstance(item, dict) else {}
            args = fn.get("arguments")
            if isinstance(args, str) and style.dialect == "code":
                calls += code_calls(args, style)
                continue
            if isinstance(args, str):
                try:
                    args = json.loads(args)
                except ValueError:
                    args = {"input": args}
            calls.append(ToolCall(id=str(item.get("id") or f"text_{i}"), name=str(fn.get("name")),
                                  arguments=args if isinstance(args, dict) else {"input": args}))
        return calls
    if style.dialect == "code":
        blocks = _CODE_TAG.findall(text) or [b for lang, b in _FENCE.findall(text) if _PY_LANG.match(lang)]
        return [c for b in blocks for c in code_calls(b, style)]
    if style.dialect == "fenced-shell":
        blocks = [b for lang, b in _FENCE.findall(text) if _SHELL_LANG.search(lang)]
        return [ToolCall(id=f"text_{i}", name="bash", arguments={"command": b.strip()})
                for i, b in enumerate(blocks)]
    return []


def code_calls(code: str, style: Style) -> list[ToolCall]:
    """Calls of the listed tool functions in a code action, with their arguments by name."""
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    known = {f.name: list(f.parameters.get("properties") or {}) for f in style.functions}
    calls: list[Any] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in known:
            try:
                args = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
                args.update(zip(known[node.func.id], (ast.literal_eval(a) for a in node.args), strict=False))
            except ValueError:
                continue
            calls.append(ToolCall(id=f"code_{len(calls)}", name=node.func.id, arguments=args))
    return calls


def reply(action: Action, tools: list[ToolSpec], style: Style) -> Message:
    """The assistant message performing ``action`` in the harness's dialect."""
    if style.dialect == "tools":
        return to_reply(action, tools, style.finish_command)
    if style.dialect == "code":
        return _code_reply(action, style)
    if style.dialect == "fenced-shell":
        return _fenced_reply(action, style)
    return to_reply(action, [], None)  # text: answers only


def shell_line(action: Action) -> str | None:
    """A shell command doing ``action`` (for harnesses whose only action is a shell)."""
    match action:
        case Run(command=command):
            return command
        case Read(path=path):
            return f"cat {shlex.quote(path)}"
        case Write(path=path, content=content):
            return write_command(path, content)
        case ListDir(path=path):
            return f"ls -la {shlex.quote(path)}"
        case RawCall(name=name, arguments=args):
            return " ".join([name, *(f"--{k}={shlex.quote(str(v))}" for k, v in args.items())])
        case Parallel(actions=actions):
            return "\n".join(c for a in actions if (c := shell_line(a)))
    return None


def _fenced_reply(action: Action, style: Style) -> Message:
    if isinstance(action, Answer) and style.finish_command:
        action = Run(style.finish_command, note=f"THOUGHT: {action.text}")
    if isinstance(action, Answer | Empty | ThoughtOnly):
        return to_reply(action, [], None)
    command = shell_line(action) or "true"
    note = getattr(action, "note", "") or "THOUGHT: next step."
    return Message(role="assistant", content=f"{note}\n\n```{style.fence}\n{command}\n```")


def _code_reply(action: Action, style: Style) -> Message:
    opening, closing = style.code_tags
    if isinstance(action, Empty | ThoughtOnly):
        return to_reply(action, [], None)
    code = code_line(action, style)
    if code is None:
        return to_reply(action, [], None)
    thought = getattr(action, "note", "") or (action.text if isinstance(action, Answer) else "next step")
    return Message(role="assistant", content=f"Thought: {thought}\n{opening}{code}{closing}")


def code_line(action: Action, style: Style) -> str | None:
    """Python calling the agent's tool functions; a shell-shaped function carries commands."""
    if isinstance(action, Answer):
        hit = find_tool("finish", style.functions)
        return f"{hit[0].name}({action.text!r})" if hit else None
    if isinstance(action, Parallel):
        lines = [c for a in action.actions if (c := code_line(a, style))]
        return "\n".join(lines) or None
    if isinstance(action, RawCall):  # an offered function, one of its role, or one it lacks
        call = to_call(action, style.functions)
        assert call is not None
        args = ", ".join(f"{k}={v!r}" for k, v in call.arguments.items())
        return f"print({call.name}({args}))"
    shell = find_tool("shell", style.functions)
    command = shell_line(action)
    if shell is None or command is None:
        return None
    return f"print({shell[0].name}({shell[1]['command']}={command!r}))"
