"""inspect ChatMessage ⇄ harness Message, and tool schemas both ways."""

from __future__ import annotations

from typing import Any

from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageSystem,
    ChatMessageTool,
    ChatMessageUser,
    ContentReasoning,
    ContentText,
)
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolCallError, ToolInfo, ToolParams

from harness.messages import Message, ToolCall
from harness.model import ToolSpec


def _text_and_thoughts(content: Any) -> tuple[str, str | None]:
    if isinstance(content, str):
        return content, None
    texts, thoughts = [], []
    for part in content:
        if isinstance(part, ContentReasoning):
            thoughts.append(part.reasoning)
        elif isinstance(part, ContentText):
            texts.append(part.text)
    return "\n".join(texts), ("\n".join(thoughts) or None)


def from_inspect(m: ChatMessage) -> Message:
    text, thoughts = _text_and_thoughts(m.content)
    if isinstance(m, ChatMessageAssistant):
        calls = [ToolCall(id=c.id, name=c.function, arguments=dict(c.arguments or {}))
                 for c in (m.tool_calls or [])]
        return Message(role="assistant", content=text, tool_calls=calls, thoughts=thoughts)
    if isinstance(m, ChatMessageTool):
        if m.error is not None and not text:
            text = m.error.message
        return Message(role="tool", content=text, tool_call_id=m.tool_call_id,
                       name=m.function, is_error=m.error is not None)
    if isinstance(m, ChatMessageSystem):
        return Message(role="system", content=text)
    return Message(role="user", content=text)


def to_inspect(m: Message) -> ChatMessage:
    if m.role == "system":
        return ChatMessageSystem(content=m.content)
    if m.role == "user":
        return ChatMessageUser(content=m.content, source=None if m.origin is None else "input")
    if m.role == "tool":
        return ChatMessageTool(
            content=m.content, tool_call_id=m.tool_call_id, function=m.name,
            error=ToolCallError("unknown", m.content[:2000]) if m.is_error else None,
        )
    content: str | list[Any] = m.content
    if m.thoughts:
        content = [ContentReasoning(reasoning=m.thoughts)]
        if m.content:
            content.append(ContentText(text=m.content))
    return ChatMessageAssistant(
        content=content,
        tool_calls=[InspectToolCall(id=c.id, function=c.name, arguments=c.arguments)
                    for c in m.tool_calls] or None,
    )


def tool_info(spec: ToolSpec) -> ToolInfo:
    return ToolInfo(name=spec.name, description=spec.description,
                    parameters=ToolParams.model_validate(spec.parameters))


def tool_spec(info: ToolInfo) -> ToolSpec:
    return ToolSpec(name=info.name, description=info.description,
                    parameters=info.parameters.model_dump(exclude_none=True))
