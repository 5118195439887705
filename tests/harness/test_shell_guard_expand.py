"""The pieces under the shell guards: static word expansion (``harness.shell.words``) and in-place
editor scripts (``shell_inplace``), checked directly on their own inputs."""

from __future__ import annotations

import pytest

from harness.security.shell_inplace import keeps_nothing
from harness.shell import parse
from harness.shell.file_args import path_words
from harness.shell.words import Scope, expand_word, from_parent, run_substitution


@pytest.mark.parametrize(("word", "value"), [
    ("$PWD/a", "/w/ws/a"),
    ('"${PWD}"/a', "/w/ws/a"),
    ("${PWD%/*}", "/w"),
    ("${PWD%%/*}", ""),
    ("${PWD#/w/}", "ws"),
    ("${PWD##*/}", "ws"),
    ("${PWD/ws/other}", "/w/other"),
    ("${UNSET:-src}/x", "src/x"),
    ('$(dirname "$PWD")/x', "/w/x"),
    ("`pwd`/../x", "/w/ws/../x"),
    ("$(cd .. && pwd)", "/w"),
    ("$(realpath ../..)", "/"),
    ("$(basename $(pwd))", "ws"),
    ("'$PWD'", "$PWD"),
])
def test_words_the_line_fixes_are_evaluated(word: str, value: str) -> None:
    assert expand_word(word, Scope("/w/ws")) == value


@pytest.mark.parametrize("word", ["$f", "$(git rev-parse --show-toplevel)/x", "$((1+2))", "${#PWD}", "$(cat list)"])
def test_words_that_depend_on_what_runs_are_unknown(word: str) -> None:
    assert expand_word(word, Scope("/w/ws")) is None


def test_parent_operations_on_unknown_values_are_told_apart_from_relative_ones() -> None:
    scope = Scope("/w/ws")
    assert from_parent("$(git rev-parse --show-toplevel)/../x", scope)
    assert from_parent('$(dirname "$(git rev-parse --show-toplevel)")/x', scope)
    assert not from_parent('out/$(dirname "$f")', scope)  # the parent of a relative loop variable
    assert not from_parent("$(git rev-parse --show-toplevel)/src", scope)


def test_a_substitution_runs_its_commands_in_its_own_directory() -> None:
    scope = Scope("/w/ws")
    assert run_substitution("cd src; cd ..; cd ..; pwd", scope) == "/w"
    assert scope.cwd == "/w/ws"  # a subshell's cd does not move the line


def test_assignments_persist_and_apply_to_later_words() -> None:
    words = path_words('top=$(dirname "$PWD"); cd src && cat "$top/x" "$OLDPWD/y"', "/w/ws")
    assert ("src", "/w/x") in words and ("src", "/w/ws/y") in words


def test_and_or_lists_inside_a_substitution_parse() -> None:
    parsed = parse('cat "$(cd .. && pwd)/x" || rm -rf data')
    assert parsed.parsed
    assert [c.argv[0] for c in parsed.commands] == ["cat", "cd", "pwd", "rm"]


@pytest.mark.parametrize(("prog", "args", "empties"), [
    ("sed", ["-i", "d", "f"], True),
    ("sed", ["-i", "-e", "1,$d", "f"], True),
    ("sed", ["-i", "$!d", "f"], True),
    ("sed", ["-i", "1!G;h;$!d", "f"], False),  # reverses the file: lines kept aside
    ("sed", ["-i", "p;d", "f"], False),  # prints each line before deleting it
    ("sed", ["-i", "/x/{d}", "f"], False),
    ("sed", ["-i", "/./{d}", "f"], True),
    ("sed", ["-i.bak", "d", "f"], False),  # a backup keeps the content
    ("sed", ["-ie", "d", "f"], False),  # GNU sed: -ie is -i with backup suffix "e"
    ("sed", ["-i", "d"], False),  # no file: stdin to stdout
    ("sed", ["-i", "-f", "script.sed", "f"], False),
    ("perl", ["-i", "-ne", "print if /x/", "f"], False),
    ("perl", ["-i", "-pe", '$_ = "" if /^#/', "f"], False),
    ("perl", ["-i", "-pe", '$_ = ""', "f"], True),
    ("gawk", ["-i", "inplace", "NR > 1", "f"], False),
    ("gawk", ["-i", "inplace", "{ n++ }", "f"], True),
    ("ex", ["-sc", "%d|x", "f"], True),
    ("vim", ["-c", "%d", "f"], False),  # never written
])
def test_in_place_editors_empty_a_file_only_when_no_line_survives(prog: str, args: list[str], empties: bool) -> None:
    assert keeps_nothing(prog, args) is empties
