"""Programs that run another command without changing what it does (``loop_shell.program_argv``).

A model retrying a failing command often puts something in front of it: a time limit
(``timeout 30``, then ``timeout 90s``), a priority (``nice -n 10``, ``ionice -c3``), buffering
(``stdbuf -oL``), an environment (``env RUST_LOG=debug``, ``uv run``, ``poetry run``, ``npx``,
``bundle exec``), a user (``sudo -u app``), a measurement (``time``, ``/usr/bin/time -v``), CPU
placement (``taskset``, ``numactl``), a lock (``flock``). What runs is the command after it, and
the wrapper's own arguments vary from one try to the next. Each wrapper is described by how its
command line is built, not by the commands seen: the words it takes before the command
(``WRAPPERS``: a subcommand such as ``run``, options, how many of them take a value, operands
such as ``timeout``'s duration), so any option value and any nesting is skipped the same way.

``xargs`` runs the command on its input: it is kept as a marker (``xargs>flake8``), its own
options are dropped, since ``-0``, ``-r`` or ``-P 4`` change how the input is split or how many run
at once, not what runs.
"""

from __future__ import annotations

import re
from dataclasses import dataclass


@dataclass(frozen=True)
class Wrapper:
    valued: frozenset[str] = frozenset()
    """Options followed by a separate value (``-n 10``, ``--signal KILL``)."""
    operands: int = 0
    """Words before the command that are the wrapper's own (``timeout``'s duration)."""
    sub: tuple[str, ...] = ()
    """The subcommand that makes the program a wrapper (``uv run``, ``pnpm exec``); empty: always."""
    assignments: bool = False
    """``NAME=value`` words before the command are the wrapper's (``env``)."""


def _w(valued: str = "", operands: int = 0, sub: str = "", assignments: bool = False) -> Wrapper:
    return Wrapper(frozenset(valued.split()), operands, tuple(sub.split()), assignments)


_RUNNER = _w("--with --python -p --project --directory --env-file --extra --group --package --from "
             "-n --name --prefix -e --environment --gemfile")
"""Project-environment runners: their options are about which environment, never the command."""

WRAPPERS: dict[str, Wrapper] = {
    # the command as it stands
    **{name: _w() for name in ("command", "builtin", "nohup", "setsid", "chronic", "unbuffer",
                               "caffeinate", "catchsegv", "eatmydata", "proxychains", "proxychains4",
                               "torsocks", "tsocks", "firejail", "nocache")},
    "exec": _w("-a"),
    "time": _w("-f --format -o --output"),
    # limits, priority, buffering, placement
    "timeout": _w("-s --signal -k --kill-after", operands=1),
    "nice": _w("-n --adjustment"),
    "ionice": _w("-c --class -n --classdata -t"),
    "stdbuf": _w("-i -o -e --input --output --error"),
    "taskset": _w("", operands=1),
    "numactl": _w("-N -m -C -p -i -P --cpunodebind --membind --physcpubind --preferred --interleave"),
    "chrt": _w("", operands=1),
    "cpulimit": _w("-l --limit -p --pid -e --exe"),
    "prlimit": _w("-p --pid"),
    "flock": _w("-w --timeout -E --conflict-exit-code", operands=1),
    "systemd-run": _w("-p --property -u --unit -E --setenv --uid --gid --slice -M --machine"),
    # environment and user
    "env": _w("-u --unset -C --chdir", assignments=True),
    "sudo": _w("-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir -r --role "
               "-t --type -U --other-user -T --command-timeout", assignments=True),
    "doas": _w("-u -C"),
    "runuser": _w("-u --user -g --group -G --supp-group"),
    # project environments
    **{name: Wrapper(_RUNNER.valued, sub=("run",)) for name in ("uv", "poetry", "pipenv", "pdm", "rye",
                                                                "hatch", "pipx", "conda", "mamba",
                                                                "micromamba", "pixi")},
    **{name: Wrapper(_RUNNER.valued, sub=("exec",)) for name in ("bundle", "pnpm", "yarn", "opam",
                                                                 "stack", "mise", "asdf", "rbenv")},
    "npm": Wrapper(_RUNNER.valued | {"-c", "--call", "--package", "-w", "--workspace"}, sub=("exec",)),
    "uvx": _RUNNER,
    "npx": Wrapper(_RUNNER.valued | {"--package", "-p", "-c", "--call"}),
    "bunx": _RUNNER,
    "direnv": _w("", operands=1, sub="exec"),
    **{name: _w("", sub="exec") for name in ("pyenv", "nodenv", "goenv", "plenv", "jenv")},
    "scl": _w("", operands=1, sub="enable"),
    # sessions and shims that only provide a display, a bus or fake root
    "xvfb-run": _w("-n --server-num -s --server-args -e --error-file -f --auth-file -p --xauth-protocol "
                   "-w --wait"),
    **{name: _w() for name in ("dbus-run-session", "fakeroot", "tini", "dumb-init")},
}

_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DEPTH = 8


def program_name(word: str) -> str:
    """``/usr/bin/timeout`` and ``timeout`` are one wrapper."""
    return word.rsplit("/", 1)[-1] if word.startswith("/") else word


def unwrap(argv: list[str]) -> tuple[list[str], str]:
    """The command the wrappers in front of ``argv`` run, and ``"xargs>"`` when it runs through
    ``xargs``: ``["timeout", "30", "nice", "-n", "5", "make"]`` -> ``(["make"], "")``. A wrapper
    with no command after it (``env`` alone prints the environment) is the command itself."""
    via = ""
    for _ in range(_DEPTH):
        if not argv:
            break
        name = program_name(argv[0])
        if name == "xargs":
            rest = _after_xargs_options(argv)
            if not rest:
                break
            argv, via = rest, "xargs>"
            continue
        spec = WRAPPERS.get(name)
        rest = _after(argv, spec) if spec else None
        if not rest:
            break
        argv = rest
    return argv, via


def _after(argv: list[str], spec: Wrapper) -> list[str] | None:
    """The words after the wrapper's own, or None when this use of the program does not wrap."""
    i = 1
    for word in spec.sub:
        if i >= len(argv) or argv[i] != word:
            return None
        i += 1
    i = _skip_options(argv, i, spec.valued, spec.assignments)
    i += spec.operands
    return argv[i:] if i < len(argv) else None


def _skip_options(argv: list[str], i: int, valued: frozenset[str], assignments: bool) -> int:
    while i < len(argv):
        word = argv[i]
        if word == "--":
            return i + 1
        if assignments and _ASSIGNMENT.match(word):
            i += 1
        elif word.startswith("-") and len(word) > 1:
            i += 2 if word in valued else 1  # `-n10`, `--signal=KILL`: the value is attached
        else:
            break
    return i


_XARGS_VALUED = frozenset("-n -P -L -s -d -E -a -e --max-args --max-procs --max-lines --max-chars "
                          "--delimiter --arg-file --eof".split())
_XARGS_REPLACE = re.compile(r"^(?:-I|-i|--replace)")


def _after_xargs_options(argv: list[str]) -> list[str] | None:
    """``xargs``'s command; ``-I {}`` is kept with it, since the command's words use the name."""
    i, keep = 1, []
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "--":
        word = argv[i]
        if _XARGS_REPLACE.match(word):
            keep.append(word)
            if word in ("-I", "--replace") and i + 1 < len(argv):
                keep.append(argv[i + 1])
                i += 1
        elif word in _XARGS_VALUED:
            i += 1
        i += 1
    if i < len(argv) and argv[i] == "--":
        i += 1
    return [argv[i], *keep, *argv[i + 1:]] if i < len(argv) else None
