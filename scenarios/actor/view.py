"""``ActorView``: what the actor sees on one model call, with the questions policies ask of it.

Policies derive all their state from the transcript, the way a model does: a harness that edits
the history (compaction, interventions) changes what the actor does next. Whether the harness
stepped in is read from what it did, never from its words (``intervened``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from harness.messages import Message, ToolCall
from harness.model import ToolSpec
from scenarios.actor.mapping import ROLE_NAMES, find_tool


@dataclass(frozen=True)
class Exchange:
    call: ToolCall
    result: str
    is_error: bool


@dataclass
class ActorView:
    messages: list[Message]
    tools: list[ToolSpec]
    role: str = "primary"
    """Which model the harness called (``primary`` or a fallback's role)."""
    call_index: int = 1
    """1-based index of this call for this role within the sample."""
    prompt: str | None = None
    """The scenario's task text, when known: the one user message the actor trusts."""
    _exchanges: list[Exchange] | None = field(default=None, repr=False)

    @property
    def tool_names(self) -> list[str]:
        """Names offered, plus the role names scenarios use (``bash``, ``agent``) when a tool of
        that shape is offered under another name."""
        names = [t.name for t in self.tools]
        for alias, role in ROLE_NAMES.items():
            if alias not in names and find_tool(role, self.tools) is not None:
                names.append(alias)
        return names

    def exchanges(self) -> list[Exchange]:
        """Tool calls and their results, in order (calls without a result are left out)."""
        if self._exchanges is None:
            results = {m.tool_call_id: m for m in self.messages if m.role == "tool"}
            out = []
            for m in self.messages:
                for c in m.tool_calls if m.role == "assistant" else []:
                    r = results.get(c.id)
                    if r is not None:
                        out.append(Exchange(c, r.content, r.is_error))
            self._exchanges = out
        return self._exchanges

    def last_exchange(self) -> Exchange | None:
        ex = self.exchanges()
        return ex[-1] if ex else None

    def task_index(self) -> int:
        """Index of the task message: the scenario prompt if present, else the last user message
        before the first reply (harnesses may put session state or bootstrap text before it)."""
        users = [i for i, m in enumerate(self.messages) if m.role == "user"]
        if self.prompt is not None:
            exact = [i for i in users if self.messages[i].content.strip() == self.prompt.strip()]
            if exact:
                return exact[0]
        first_reply = next((i for i, m in enumerate(self.messages) if m.role == "assistant"),
                           len(self.messages))
        before = [i for i in users if i < first_reply]
        return before[-1] if before else (users[0] if users else -1)

    def feedback_texts(self) -> list[str]:
        """Everything the harness or tools said back: tool results and user messages other than
        the task itself."""
        task = self.task_index()
        return [
            m.content for i, m in enumerate(self.messages)
            if m.role == "tool" or (m.role == "user" and i != task)
        ]

    def saw(self, pattern: str) -> bool:
        """Does any tool result or later user message match ``pattern`` (a regex)?"""
        rx = re.compile(pattern)
        return any(rx.search(t) for t in self.feedback_texts())

    def intervened(self, varying: int = 0, alike: bool = False) -> bool:
        """Did the harness step in, in whatever words or language? What it did, not how it
        put it, is read:

        - a user or system message after the model's first reply that is not the task (a
          nudge, a warning, a refusal sent as a message);
        - a result a tool would not have produced: a call made before whose result now differs
          from its first one (in its number of lines, or beyond ``varying`` lines changed in
          place: a status a poll prints may move) or whose error flag flipped (a refusal, an
          error the harness raised instead of running it);
        - with ``alike`` (the model's calls are spellings of one call, so the tool would print
          the same each time): a call made for the first time whose result has another shape
          (number of lines) than the run's first result. Without it, distinct calls print
          distinct things (a two-line file after a one-line script, a window past a log's end)
          and their shapes say nothing about the harness.

        A tool's own error, the same each time, is not an intervention, whatever it says."""
        return self.new_messages() or self.first_stepped_in(varying, alike) is not None

    def new_messages(self) -> bool:
        """A user or system message after the model's first reply, other than the task."""
        first_reply = next((i for i, m in enumerate(self.messages) if m.role == "assistant"), None)
        if first_reply is None:
            return False
        task = self.task_index()
        return any(m.role in ("user", "system") and i != task and m.content.strip()
                   for i, m in enumerate(self.messages) if i > first_reply)

    def first_stepped_in(self, varying: int = 0, alike: bool = False) -> int | None:
        """Index (in ``exchanges()``) of the first result a tool would not have produced
        (``intervened`` says what counts)."""
        exchanges = self.exchanges()
        if not exchanges:
            return None
        shape = len(_lines(exchanges[0].result))
        first: dict[str, Exchange] = {}
        for i, e in enumerate(exchanges):
            key = _key(e.call)
            before = first.setdefault(key, e)
            if before is e:
                if alike and i > 0 and len(_lines(e.result)) != shape:
                    return i
            elif (e.is_error != before.is_error or len(_lines(e.result)) != len(_lines(before.result))
                  or _changed(before.result, e.result) > varying):
                return i
        return None

    def runs_of(self, command: str) -> int:
        """How many executed calls ran ``command`` (whatever tool carried it)."""
        return sum(1 for e in self.exchanges() if command_of(e.call) == command)

    def has_read(self, path: str) -> bool:
        """Has ``path`` been read (by a read tool, an editor view or ``cat``)?"""
        for e in self.exchanges():
            if e.call.arguments.get("path") == path and e.call.name != "write_file":
                if e.call.arguments.get("command", "view") == "view":
                    return True
            if command_of(e.call) in (f"cat {path}", f"cat '{path}'"):
                return True
        return False

    def task(self) -> str:
        i = self.task_index()
        return self.messages[i].content if i >= 0 else ""


def command_of(call: ToolCall) -> str | None:
    """The shell command a call carries, for any shell-like tool."""
    for key in ("command", "cmd", "script", "shell_command"):
        value = call.arguments.get(key)
        if isinstance(value, str):
            return value.strip()
    return None


def _key(call: ToolCall) -> str:
    return f"{call.name}\0{sorted((k, str(v)) for k, v in call.arguments.items())}"


_VOLATILE = re.compile(r"[0-9a-fA-F]*\d[0-9a-fA-F]*")
"""Numbers and hex-like runs (call ids, timings, counters in a harness's framing)."""


def _lines(text: str) -> list[str]:
    return [_VOLATILE.sub("#", line.strip()) for line in text.splitlines() if line.strip()]


def _changed(a: str, b: str) -> int:
    """Lines that differ between two results (added, removed or replaced), in any order: a
    terminal interleaves a command's stdout and stderr as they come (Codex CLI's PTY printed the
    same two lines of the same script in either order), which no harness did."""
    before, after = Counter(_lines(a)), Counter(_lines(b))
    return max(sum((before - after).values()), sum((after - before).values()))
