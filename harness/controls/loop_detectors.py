"""The loop detectors (seed 004 ``ToolLoopDetector``, seeds 000 and 001): pure functions.

Each detector looks at the recent call window (the current call last) and returns a ``Finding``
or ``None``. They know nothing of the loop or of messages, so each is tested on its own; the
``LoopDetection`` control records calls, picks the most severe finding and intervenes.

Source: seed 004 ``ToolLoopDetector.check``; seed 000 "2 identical failing calls within a 4-call window"; seed 001 "doom loop detection".
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from harness.config import LoopDetectionConfig
from harness.controls.loop_names import same_tool
from harness.prompts import load_texts

Level = Literal["warning", "critical"]


def stable_hash(obj: Any) -> str:
    """Deterministic hash regardless of dict key order."""
    return hashlib.sha256(json.dumps(obj, sort_keys=True, default=str).encode()).hexdigest()[:16]


def texts() -> dict[str, str]:
    """The intervention texts (``harness/prompts/loop_detection.yaml``)."""
    return load_texts("loop_detection.yaml")


@dataclass(frozen=True)
class CallRecord:
    tool: str
    args_hash: str
    """Hash of ``{name, args}``: equal hashes mean an identical call."""
    result_hash: str = ""
    """Hash of the output as the detectors compare it; read it through ``result()``, which
    computes it on first use when ``output`` is given."""
    failed: bool = False
    unknown: bool = False
    """The tool does not exist (the executor's ``Unknown tool`` answer)."""
    poll: bool = False
    """The call is a known status poll (see ``PollMatcher``)."""
    tool_key: str = ""
    """The tool name as compared (lower case with ``normalise_calls``); empty: ``tool``."""
    tool_keys: tuple[str, ...] = ()
    """With ``normalise_calls``: the name's words and those of its namespace suffixes
    (``loop_names.name_keys``), so ``functions.run_tests`` and ``run-tests`` are one tool."""

    eq_flags: frozenset[str] = frozenset()
    """With ``normalise_calls``: long flags the call spells ``--flag=value`` (compared pairwise
    with ``--flag value`` in another call, ``LoopDetection._pairwise``)."""
    wrapped: frozenset[str] = frozenset()
    """With ``normalise_calls``: hashes of the calls this one is with a wrapper in front
    (``loop_normalise.wrapped_keys``), compared pairwise (``LoopDetection._pairwise``)."""
    source: tuple[str, Any] | None = field(default=None, compare=False, repr=False)
    """The call's name and arguments, to key it again when compared pairwise."""
    output: Callable[[], str] | None = field(default=None, compare=False, repr=False)
    """Computes ``result_hash`` when it is first needed. An output is only ever compared with
    the output of another call with the same arguments, so most outputs (every call made once)
    are never masked and hashed at all."""

    @property
    def key(self) -> str:
        return self.tool_key or self.tool

    def result(self) -> str:
        """``result_hash``, computed by ``output`` on first use."""
        if self.output is not None and not self.result_hash:
            object.__setattr__(self, "result_hash", self.output())  # a cache: frozen otherwise
        return self.result_hash

    def same_result(self, other: CallRecord) -> bool:
        """Whether the two calls returned the same output (a record is its own match, at no cost)."""
        return self is other or self.result() == other.result()


@dataclass(frozen=True)
class Finding:
    level: Level
    detector: str
    message: str
    count: int


class PollMatcher:
    """Decides whether a call is a known poll: by tool name, by tool name plus a regex over the
    canonical JSON of its arguments, or by a regex over a ``command`` argument (bash)."""

    def __init__(self, config: LoopDetectionConfig) -> None:
        self.names: set[str] = set()
        self.arg_patterns: list[tuple[str, re.Pattern[str]]] = []
        for entry in config.poll_tools:
            name, sep, pattern = entry.partition(":")
            if sep:
                self.arg_patterns.append((name, re.compile(pattern)))
            else:
                self.names.add(name)
        pat = config.poll_command_pattern
        self.command = re.compile(pat) if pat else None

    def __call__(self, tool: str, args: dict[str, Any]) -> bool:
        if tool in self.names:
            return True
        if any(tool == name and p.search(json.dumps(args, sort_keys=True, default=str))
               for name, p in self.arg_patterns):
            return True
        command = args.get("command")
        return bool(self.command and isinstance(command, str) and self.command.search(command))


def identical_repeat(window: list[CallRecord], cfg: LoopDetectionConfig) -> Finding | None:
    cur = window[-1]
    if cfg.known_poll and cur.poll:
        return None  # polls are judged by their results (known_poll), not by their arguments
    count = sum(1 for r in window if r.args_hash == cur.args_hash
                and (not cfg.identical_repeat_same_output or r.same_result(cur)))
    if count >= cfg.critical_threshold:
        return Finding("critical", "identical_repeat",
                       texts()["identical_critical"].format(tool=cur.tool, count=count), count)
    if count >= cfg.warning_threshold:
        return Finding("warning", "identical_repeat",
                       texts()["identical_warning"].format(tool=cur.tool, count=count), count)
    return None


def failing_repeat(window: list[CallRecord], cfg: LoopDetectionConfig) -> Finding | None:
    """Seed 000: the same call failing ``threshold`` times within the last ``window`` calls."""
    cur = window[-1]
    if not cur.failed:
        return None
    recent = window[-cfg.failing_repeat_window:]
    count = sum(1 for r in recent if r.failed and r.args_hash == cur.args_hash
                and (not cfg.failing_repeat_same_output or r.same_result(cur)))
    if count < cfg.failing_repeat_threshold:
        return None
    msg = texts()["failing_repeat"].format(tool=cur.tool, count=count,
                                           window=cfg.failing_repeat_window)
    return Finding("critical", "failing_repeat", msg, count)


def ping_pong(window: list[CallRecord], cfg: LoopDetectionConfig) -> Finding | None:
    """A-B-A-B: count the trailing alternation of the last two distinct calls."""
    if len(window) < 2:
        return None
    cur, prev = window[-1], window[-2]
    if cur.args_hash == prev.args_hash or (cfg.known_poll and (cur.poll or prev.poll)):
        return None
    count, expected = 0, cur.args_hash
    for r in reversed(window):
        if r.args_hash != expected:
            break
        count += 1
        expected = prev.args_hash if expected == cur.args_hash else cur.args_hash
    if count < cfg.ping_pong_threshold:
        return None
    msg = texts()["ping_pong"].format(count=count, a=prev.tool, b=cur.tool)
    return Finding("critical", "ping_pong", msg, count)


def known_poll(window: list[CallRecord], cfg: LoopDetectionConfig) -> Finding | None:
    """The last occurrences of this exact poll (other calls in between ignored) all returned the
    same result. A changed result breaks the streak, so progressing polls are never flagged."""
    cur = window[-1]
    if not cur.poll:
        return None
    count = 0
    for r in reversed(window):
        if r.args_hash != cur.args_hash:
            continue
        if not r.same_result(cur):
            break
        count += 1
    if count < cfg.poll_threshold:
        return None
    return Finding("critical", "known_poll",
                   texts()["known_poll"].format(tool=cur.tool, count=count), count)


def cycle(window: list[CallRecord], cfg: LoopDetectionConfig) -> Finding | None:
    """A-B-C-A-B-C (up to ``cycle_max_length`` distinct calls): the window ends with the same
    sequence of calls ``cycle_repeats`` times over (with the same results, when
    ``identical_repeat_same_output`` is on). Length 2 is left to ``ping_pong``."""
    for length in range(3, cfg.cycle_max_length + 1):
        need = length * cfg.cycle_repeats
        if len(window) < need:
            break
        tail = window[-need:]
        if cfg.known_poll and not cfg.identical_repeat_same_output and any(r.poll for r in tail):
            continue  # polls are judged by their results; without results compared, leave them be
        if len({r.args_hash for r in tail[:length]}) < 2:
            continue  # one call repeated: identical_repeat's case
        if all(_same_call(tail[i], tail[i - length], cfg) for i in range(length, need)):
            tools = " -> ".join(r.tool for r in tail[:length])
            msg = texts()["cycle"].format(count=need, length=length, tools=tools)
            return Finding("critical", "cycle", msg, need)
    return None


def _same_call(a: CallRecord, b: CallRecord, cfg: LoopDetectionConfig) -> bool:
    return a.args_hash == b.args_hash and (not cfg.identical_repeat_same_output or a.same_result(b))


def unknown_tool(
    window: list[CallRecord], cfg: LoopDetectionConfig, available: list[str]
) -> Finding | None:
    cur = window[-1]
    if not cur.unknown:
        return None
    count = sum(1 for r in window if r.unknown and _same_name(r, cur))
    if count < cfg.unknown_tool_threshold:
        return unknown_tools_in_a_row(window, cfg, available) if cfg.unknown_tool_any_name else None
    msg = texts()["unknown_tool"].format(tool=cur.tool, count=count,
                                         available=", ".join(available) or "(none)")
    return Finding("critical", "unknown_tool", msg, count)


def unknown_tools_in_a_row(
    window: list[CallRecord], cfg: LoopDetectionConfig, available: list[str]
) -> Finding | None:
    """Calls in a row to tools that do not exist, whatever their names: a model that renames a
    missing tool by synonyms (``run_tests``, ``execute_tests``, ``test_runner``) makes the same
    failure, "unknown tool", each time; no list of synonyms can keep up with its vocabulary.
    Only a streak counts (any call to a real tool ends it), so a model that tries a name or two
    and then uses a real tool is left alone; a warning first (it names the real tools, which is
    what such a model needs), a critical only at ``critical_threshold``."""
    streak: list[CallRecord] = []
    for r in reversed(window):
        if not r.unknown:
            break
        streak.append(r)
    count = len(streak)
    if count < cfg.unknown_tool_threshold:
        return None
    names = ", ".join(dict.fromkeys(r.tool.strip() for r in reversed(streak)))
    msg = texts()["unknown_tools_in_a_row"].format(tool=window[-1].tool, count=count, tools=names,
                                                   available=", ".join(available) or "(none)")
    level: Level = "critical" if count >= cfg.critical_threshold else "warning"
    return Finding(level, "unknown_tool", msg, count)


def _same_name(a: CallRecord, b: CallRecord) -> bool:
    if a.tool_keys and b.tool_keys:
        return same_tool(a.tool_keys, b.tool_keys)
    return a.key == b.key


Detector = Callable[[list[CallRecord], LoopDetectionConfig], "Finding | None"]


def detect(
    window: list[CallRecord], cfg: LoopDetectionConfig, available: list[str]
) -> Finding | None:
    """Run the switched-on detectors; the first critical wins (most specific first), else the
    first warning."""
    detectors: list[tuple[bool, Detector]] = [
        (cfg.unknown_tool, lambda w, c: unknown_tool(w, c, available)),
        (cfg.known_poll, known_poll),
        (cfg.failing_repeat, failing_repeat),
        (cfg.ping_pong, ping_pong),
        (cfg.cycle_max_length > 2, cycle),
        (cfg.identical_repeat, identical_repeat),
    ]
    findings = [f for on, d in detectors if on and (f := d(window, cfg)) is not None]
    for level in ("critical", "warning"):
        for f in findings:
            if f.level == level:
                return f
    return None
