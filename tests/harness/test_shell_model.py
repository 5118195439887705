"""The shell model (``harness/shell``) as the controls share it: one parse per distinct line, a
bound on bashlex that costs no profile hook, and parse results nobody changes.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_shell_model.py
"""

from __future__ import annotations

import copy
import sys

import bashlex

from harness import get_preset
from harness.controls.loop_normalise import call_key, wrapped_keys
from harness.security.commands import CommandGuard
from harness.shell import parse, syntax
from harness.shell.file_args import path_words

_LINES = ["cd api && timeout 60 pytest -q tests/test_login.py", "find . -name '*.log' | xargs rm -f",
          "bash -c 'git status && make lint'", "time make build", "cat ../secret.txt"]


def _read_by_every_control(line: str) -> None:
    args = {"command": line}
    call_key("bash", args, root="/ws")
    wrapped_keys("bash", args, root="/ws")
    CommandGuard(get_preset("looplab").command_guard).check(line)
    path_words(line, "/ws")


def test_a_line_is_parsed_once_however_many_controls_read_it() -> None:
    syntax.parse.cache_clear()
    for line in _LINES:
        _read_by_every_control(line)
    first = syntax.parse.cache_info().misses
    for line in _LINES * 3:  # the same calls again: every reader hits the cache
        _read_by_every_control(line)
    assert syntax.parse.cache_info().misses == first
    # one parse per line, plus the script `bash -c` runs (a line of its own)
    assert first == len(_LINES) + 1


def test_bashlex_is_bounded_without_a_profile_hook() -> None:
    seen = []
    original = bashlex.parse

    def spy(text: str, *a, **k):
        seen.append(sys.getprofile())
        return original(text, *a, **k)

    bashlex.parse = spy
    try:
        syntax.parse.__wrapped__("ls -la src")
        # bashlex 0.18 never returns on this line; the token budget stops it
        stuck = syntax.parse.__wrapped__("x`{xargs >Z`'A&&case x in>|b -c d|c}rm -rf x${6'6\n> f(f^|{[[for i in&&O|[[`&&> f")
    finally:
        bashlex.parse = original
    assert seen and all(hook is None for hook in seen)
    assert not stuck.parsed and stuck.commands  # read by the tolerant tokenizer instead


def test_the_controls_leave_the_shared_parse_unchanged() -> None:
    line = "sudo -u app sh -c 'for f in data/*; do rm \"$f\"; done' && find . -exec rm {} +"
    before = copy.deepcopy(parse(line))
    _read_by_every_control(line)
    assert parse(line) == before
