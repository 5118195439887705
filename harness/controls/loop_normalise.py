"""Calls and outputs compared by meaning, not bytes (loop detection's ``normalise_calls`` and
``mask_volatile_output``).

A model stuck in a loop rarely retypes a call byte for byte: it adds a space, swaps ``-r -n``
for ``-nr``, reorders JSON keys or changes a tool name's case. And a poll that makes no progress
rarely returns the same bytes: a timestamp, an elapsed time, a PID or a request id changes every
time. ``call_key`` and ``mask_volatile`` take those differences out before the detectors compare.
"""

from __future__ import annotations

import json
import re
from typing import Any

from harness.security.shell_parse import parse

# Tokens that change on every call without saying anything about progress. Order matters: the
# longer shapes (ISO timestamps, RFC 2822 dates) go before their parts (times, numbers).
_VOLATILE = [
    ("<ts>", r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b"),
    ("<date>", r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun),? \d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\w* \d{4}\b"),
    ("<date>", r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{2,4}\b"),
    ("<time>", r"\b\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?\b|\b\d{1,2}:\d{2}\b(?=\s*(?:[AaPp][Mm]|UTC|GMT|Z|\]|$))"),
    ("<uuid>", r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
    ("<addr>", r"\b0x[0-9a-fA-F]{4,}\b"),
    ("<epoch>", r"\b1[5-9]\d{8}(?:\d{3})?(?:\.\d+)?\b"),
    ("<dur>", r"\b\d+(?:\.\d+)?\s?(?:ns|us|µs|ms|s|sec|secs|seconds?|m|mins?|minutes?|h|hrs?|hours?)\b"),
    ("<pid>", r"(?i)\b(?:pid|process|ppid|tid|thread)\b[\s:=#]*\d+"),
    ("<count>", r"(?i)\b(?:attempt|retry|retries|try|poll|polls|iteration|iter|heartbeat|tick|seq|sequence|"
                r"request|req|check|round|loop|ping)\b[\s:=#]*#?\d+|#\d+\b"),
]
_VOLATILE_RX = [(token, re.compile(rx)) for token, rx in _VOLATILE]
_SPACE = re.compile(r"[ \t]+")


def mask_volatile(text: str) -> str:
    """``text`` with timestamps, dates, durations, PIDs, addresses, UUIDs, epoch times and
    labelled counters replaced by placeholders; substantive content (progress such as ``4/10``
    or ``40%``, states, file names) is kept, so a poll that progresses still differs."""
    for token, rx in _VOLATILE_RX:
        text = rx.sub(token, text)
    return _SPACE.sub(" ", text).strip()


def call_key(name: str, args: dict[str, Any], shell_args: tuple[str, ...] = ("command", "cmd")) -> dict[str, Any]:
    """What identifies a call: the tool name in lower case, string arguments with whitespace
    collapsed, shell command lines with flag order taken out (``shell_key``)."""
    return {"name": name.strip().lower(), "args": {k: _value(v, k in shell_args) for k, v in args.items()}}


def _value(v: Any, shell: bool) -> Any:
    if isinstance(v, str):
        return shell_key(v) if shell else " ".join(v.split())
    if isinstance(v, dict):
        return {k: _value(x, False) for k, x in v.items()}
    if isinstance(v, list):
        return [_value(x, False) for x in v]
    return v


def shell_key(command: str) -> str:
    """A command line with the same meaning gives the same key: for each simple command, the
    program, its operands in order, and its flags as a set (``-rn``, ``-r -n`` and ``-n -r`` are
    one). Unparseable lines are compared with whitespace collapsed."""
    parsed = parse(command)
    if not parsed.parsed:
        return " ".join(command.split())
    return json.dumps([_simple_key(c.argv, c.redirects) for c in parsed.commands])


def _simple_key(argv: list[str], redirects: list[tuple[str, str]]) -> list[Any]:
    flags: set[str] = set()
    operands: list[str] = []
    for a in argv[1:]:
        if a.startswith("--") or (a.startswith("-") and "=" in a):
            flags.add(a)
        elif a.startswith("-") and len(a) > 1 and a[1:].isalpha():
            flags.update(f"-{ch}" for ch in a[1:])
        else:
            operands.append(a)
    return [argv[:1], sorted(flags), operands, sorted(redirects)]


def without_echo(output: str, args: dict[str, Any]) -> str:
    """``output`` with the call's own string arguments taken out where it repeats them (the
    untrusted-output wrapper names its source, ``[... FROM bash: ./queue.sh --all]``): two
    spellings of one call must not look like two different results."""
    values = {form for v in args.values() if isinstance(v, str) and len(v.strip()) >= 3
              for form in (v, v.strip(), " ".join(v.split()))}  # as given, or as a header prints it
    for value in sorted(values, key=len, reverse=True):
        output = output.replace(value, "<call>")
    return output
