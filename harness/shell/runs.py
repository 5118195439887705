"""What actually runs: a simple command seen through the programs that run other programs.

``sudo rm``, ``env X=1 rm``, ``timeout 5 rm``, ``xargs rm``, ``find -exec rm {} ;``,
``bash -c "rm ..."``, ``eval "rm ..."``, ``sh`` fed a script on stdin: each runs an inner command
whose meaning is what counts. ``expand`` returns the command and every command it runs, nested
shells parsed again (to a bounded depth, so a pathological line cannot recurse without end).
Wrappers are read through the one table (``wrappers``) loop detection reads them through, and a
shell's script through the one reader (``shell_script``) loop detection uses too.
"""

from __future__ import annotations

import dataclasses

from harness.shell.syntax import SimpleCommand, parse
from harness.shell.wrappers import program, programs, skip_options, word_set, wrapped, xargs_command

_MAX_DEPTH = 4


def shells() -> frozenset[str]:
    return word_set("shells")


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
    if prog in programs()["script_users"] and (script := shell_script(cmd.argv)) is not None:
        return list(parse(script).commands)
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
        words = words[skip_options(words, 0, word_set("parallel_valued")):]
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
        return [dataclasses.replace(c, via=c.via or cmd.via) for c in _shell_runs(cmd)]
    if prog == "eval":
        return list(parse(" ".join(args)).commands)
    return []


def _same_run(cmd: SimpleCommand, argv: list[str]) -> SimpleCommand:
    """The command a wrapper runs: same redirections, input and loop variables as the wrapper."""
    return SimpleCommand(argv, cmd.redirects, cmd.stdin_text, cmd.via, list(cmd.piped_from), [], dict(cmd.loop_words))


def _git_runs(args: list[str]) -> list[SimpleCommand]:
    """Commands git runs for you: ``git submodule foreach CMD``, ``git bisect run CMD``,
    ``git rebase --exec CMD``, ``git filter-branch --tree-filter CMD``."""
    i = skip_options(args, 0, word_set("git_global_valued"))
    sub, rest = (args[i], args[i + 1:]) if i < len(args) else ("", [])
    if sub == "submodule" and rest[:1] == ["foreach"]:
        words = [a for a in rest[1:] if a not in ("--recursive", "-q", "--quiet")]
        return list(parse(" ".join(words)).commands) if words else []
    if sub == "bisect" and rest[:1] == ["run"]:
        return [SimpleCommand(rest[1:])] if rest[1:] else []
    out: list[SimpleCommand] = []
    for j, a in enumerate(rest):
        name, eq, value = a.partition("=")
        if sub in ("rebase", "filter-branch") and name in word_set("git_command_options"):
            out += parse(value if eq else rest[j + 1] if j + 1 < len(rest) else "").commands
    return out


def _command_strings(prog: str, args: list[str]) -> list[SimpleCommand]:
    """``script -qc 'CMD' /dev/null``, ``nix-shell --run 'CMD'``, ``sg grp -c 'CMD'``, ``hyperfine 'CMD'``."""
    opts = set(programs()["command_strings"][prog])
    out: list[SimpleCommand] = []
    for i, a in enumerate(args):
        glued = a.split("=", 1)
        if a in opts or (prog == "script" and _c_cluster(a)):
            out += parse(args[i + 1]).commands if i + 1 < len(args) else []
        elif len(glued) == 2 and glued[0] in opts:
            out += parse(glued[1]).commands
        elif prog == "hyperfine" and not a.startswith("-") and (i == 0 or args[i - 1] not in word_set("hyperfine_valued")):
            out += parse(a).commands
    return out


def _find_exec(args: list[str]) -> list[SimpleCommand]:
    out, i = [], 0
    while i < len(args):
        if args[i] in word_set("find_exec"):
            j = i + 1
            while j < len(args) and args[j] not in (";", "+", "\\;"):
                j += 1
            if args[i + 1:j]:
                out.append(SimpleCommand(args[i + 1:j], [], "", "find"))
            i = j
        i += 1
    return out


def _c_cluster(word: str) -> bool:
    """A short-option cluster that ends with ``-c`` (``-c``, ``-lc``, ``-qc``)."""
    return word.startswith("-") and not word.startswith("--") and word.endswith("c")


def has_c(word: str) -> bool:
    """A shell's short-option cluster that includes ``-c`` (``-c``, ``-lc``, ``-euxc``)."""
    return word.startswith("-") and not word.startswith("--") and "c" in word[1:]


def _shell_options(argv: list[str]) -> tuple[int, bool]:
    """Where a shell's operands start in ``argv`` (past ``-o pipefail``, ``-e``, ``+x`` ...), and
    whether ``-c`` (alone or in a cluster: ``-lc``, ``-euxc``) was among the options."""
    i, found = 1, False
    while i < len(argv) and argv[i][:1] in "-+" and argv[i] not in ("-", "--"):
        found = found or has_c(argv[i])
        i += 2 if argv[i] in ("-o", "+o", "-O", "+O") else 1
    return i, found


def shell_script(argv: list[str]) -> str | None:
    """The command line a shell runs with ``-c`` (``bash -c "make lint"``, ``zsh -l -c``,
    ``bash -o pipefail -ec``, ``busybox sh -c``) or a user switch with ``-c`` (``su - app -c
    'cmd'``, ``runuser -u app -c``), if the line gives one. Loop detection and the guards both
    read a script here."""
    if program(argv) in programs()["script_users"]:
        return next((argv[i + 1] for i, a in enumerate(argv[1:-1], 1) if a == "--command" or _c_cluster(a)), None)
    if program(argv) == "busybox" and argv[1:2] and argv[1] in shells():
        argv = argv[1:]
    if program(argv) not in shells():
        return None
    i, found = _shell_options(argv)
    return argv[i] if found and i < len(argv) else None


def _shell_runs(cmd: SimpleCommand) -> list[SimpleCommand]:
    """What a shell runs: its ``-c`` script, or the script it reads from stdin (``echo ... | sh``,
    a here-document) when no script file is named."""
    script = shell_script(cmd.argv)
    if script is not None:
        return list(parse(script).commands)
    argv = cmd.argv[1:] if program(cmd.argv) == "busybox" else cmd.argv
    i, found = _shell_options(argv)
    return list(parse(cmd.stdin_text).commands) if cmd.stdin_text and not found and i >= len(argv) else []
