"""What actually runs: a simple command seen through the programs that run other programs.

``sudo rm``, ``env X=1 rm``, ``timeout 5 rm``, ``xargs rm``, ``find -exec rm {} ;``,
``bash -c "rm ..."``, ``eval "rm ..."``, ``sh`` fed a script on stdin: each runs an inner command
whose meaning is what counts. ``expand`` returns the command and every command it runs, nested
shells parsed again (to a bounded depth, so a pathological line cannot recurse without end).
Wrappers are read through the one table (``wrappers``) loop detection reads them through.
"""

from __future__ import annotations

import dataclasses
from functools import cache

from harness.shell.syntax import SimpleCommand, parse
from harness.shell.wrappers import program, programs, skip_options, wrapped, xargs_command

_MAX_DEPTH = 4


@cache
def shells() -> frozenset[str]:
    return frozenset(programs()["shells"])


_FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}


def expand(cmd: SimpleCommand, depth: int = 0) -> list[SimpleCommand]:
    """``cmd`` and every command it runs (wrappers unwrapped, shells and ``eval`` re-parsed)."""
    out = [cmd]
    if depth >= _MAX_DEPTH or not cmd.argv:
        return out
    for inner in _inner(cmd):
        out += expand(inner, depth + 1)
    return out


def _inner(cmd: SimpleCommand) -> list[SimpleCommand]:
    prog, args = program(cmd.argv), cmd.argv[1:]
    if prog in programs()["script_users"] and (script := _user_script(args)) is not None:
        return script
    if (rest := wrapped(cmd.argv)) is not None:
        return [_same_run(cmd, rest)]
    if prog == "git":
        return _git_runs(args)
    if prog == "nix" and args[:1] and args[0] in ("develop", "shell") and "-c" in args:  # nix develop [flake] -c CMD
        rest = args[args.index("-c") + 1:]
        return [_same_run(cmd, rest)] if rest else []
    if prog in programs()["command_strings"]:
        return _command_strings(prog, args)
    if prog == "parallel":  # parallel CMD ::: ARGS: CMD runs once per argument, like xargs
        words = args[:next((i for i, a in enumerate(args) if a.startswith(":::") or a == "::::"), len(args))]
        words = words[skip_options(words, 0, {"-j", "-P", "--jobs", "-S", "--sshlogin", "--joblog", "-d"}):]
        inner = parse(words[0]).commands if len(words) == 1 and " " in words[0] else (SimpleCommand(words),)
        return [SimpleCommand(c.argv, c.redirects, c.stdin_text, "parallel") for c in inner if c.argv]
    if prog == "xargs":
        start, _ = xargs_command(cmd.argv)
        return [SimpleCommand(cmd.argv[start:] or ["echo"], [], "", "xargs")]
    if prog == "find":
        return _find_exec(args)
    if prog == "busybox" and args and args[0] not in shells():  # busybox rm -rf x: the applet runs
        return [_same_run(cmd, args)]
    if prog in shells():
        # find -exec sh -c 'rm "$1"' _ {} ';': still one run per file found
        return [dataclasses.replace(c, via=c.via or cmd.via) for c in _shell_script(cmd, args)]
    if prog == "eval":
        return list(parse(" ".join(args)).commands)
    return []


def _same_run(cmd: SimpleCommand, argv: list[str]) -> SimpleCommand:
    """The command a wrapper runs: same redirections, input and loop variables as the wrapper."""
    return SimpleCommand(argv, cmd.redirects, cmd.stdin_text, cmd.via, list(cmd.piped_from), [], dict(cmd.loop_words))


GIT_GLOBAL_VALUES = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"})
_GIT_FILTERS = {"--tree-filter", "--index-filter", "--msg-filter", "--commit-filter", "--env-filter",
                "--parent-filter", "--tag-name-filter", "--exec", "-x"}


def git_subcommand(args: list[str]) -> tuple[str, list[str]]:
    """git's subcommand after its global options (``git -C dir -c k=v push``), and its words."""
    i = skip_options(args, 0, GIT_GLOBAL_VALUES)
    return (args[i], args[i + 1:]) if i < len(args) else ("", [])


def _git_runs(args: list[str]) -> list[SimpleCommand]:
    """Commands git runs for you: ``git submodule foreach CMD``, ``git bisect run CMD``,
    ``git rebase --exec CMD``, ``git filter-branch --tree-filter CMD``."""
    sub, rest = git_subcommand(args)
    if sub == "submodule" and rest[:1] == ["foreach"]:
        words = [a for a in rest[1:] if a not in ("--recursive", "-q", "--quiet")]
        return list(parse(" ".join(words)).commands) if words else []
    if sub == "bisect" and rest[:1] == ["run"]:
        return [SimpleCommand(rest[1:])] if rest[1:] else []
    out: list[SimpleCommand] = []
    for j, a in enumerate(rest):
        name, eq, value = a.partition("=")
        if sub in ("rebase", "filter-branch") and name in _GIT_FILTERS:
            text = value if eq else rest[j + 1] if j + 1 < len(rest) else ""
            out += parse(text).commands
    return out


def _command_strings(prog: str, args: list[str]) -> list[SimpleCommand]:
    """``script -qc 'CMD' /dev/null``, ``nix-shell --run 'CMD'``, ``sg grp -c 'CMD'``, ``hyperfine 'CMD'``."""
    opts = set(programs()["command_strings"][prog])
    out: list[SimpleCommand] = []
    for i, a in enumerate(args):
        glued = a.split("=", 1)
        if a in opts or (prog == "script" and a.startswith("-") and not a.startswith("--") and a.endswith("c")):
            out += parse(args[i + 1]).commands if i + 1 < len(args) else []
        elif len(glued) == 2 and glued[0] in opts:
            out += parse(glued[1]).commands
        elif prog == "hyperfine" and not a.startswith("-") and (i == 0 or args[i - 1] not in _HYPERFINE_VALUES):
            out += parse(a).commands
    return out


_HYPERFINE_VALUES = {"-w", "--warmup", "-r", "--runs", "-m", "--min-runs", "-M", "--max-runs", "-n", "--command-name",
                     "--export-json", "--export-csv", "--export-markdown", "-u", "--time-unit", "-S", "--shell",
                     "-p", "--prepare", "-c", "--cleanup", "-s", "--setup"}


def _find_exec(args: list[str]) -> list[SimpleCommand]:
    out, i = [], 0
    while i < len(args):
        if args[i] in _FIND_EXEC:
            j = i + 1
            while j < len(args) and args[j] not in (";", "+", "\\;"):
                j += 1
            if args[i + 1:j]:
                out.append(SimpleCommand(args[i + 1:j], [], "", "find"))
            i = j
        i += 1
    return out


def _user_script(args: list[str]) -> list[SimpleCommand] | None:
    """``su - app -c SCRIPT``, ``runuser -u app -c SCRIPT``: the script, if the line gives one."""
    return next((list(parse(args[i + 1]).commands) for i, a in enumerate(args[:-1])
                 if a in ("-c", "--command") or a.startswith("-") and not a.startswith("--") and a.endswith("c")), None)


def _shell_script(cmd: SimpleCommand, args: list[str]) -> list[SimpleCommand]:
    """``bash -c SCRIPT`` (also ``-lc``, ``-ec`` ...) or a shell reading its script from stdin
    (``echo ... | sh``, a here-document)."""
    if program(cmd.argv) == "busybox":
        args = args[1:] if args[:1] and args[0] in shells() else args
    for i, a in enumerate(args):
        if a.startswith("-") and not a.startswith("--") and "c" in a[1:] and i + 1 < len(args):
            return list(parse(args[i + 1]).commands)
        if not a.startswith("-"):
            return []  # a script file: its content is not on the line
    return list(parse(cmd.stdin_text).commands) if cmd.stdin_text else []
