"""What actually runs: a simple command seen through the programs that run other programs.

``sudo rm``, ``env X=1 rm``, ``timeout 5 rm``, ``xargs rm``, ``find -exec rm {} ;``,
``bash -c "rm ..."``, ``eval "rm ..."``, ``sh`` fed a script on stdin: each runs an inner command
whose meaning is what counts. ``expand`` returns the command and every command it runs, nested
shells parsed again (to a bounded depth, so a pathological line cannot recurse without end).
"""

from __future__ import annotations

import posixpath

from harness.security.shell_parse import SimpleCommand, parse

SHELLS = {"bash", "sh", "zsh", "dash", "ksh", "ash", "mksh", "fish", "busybox"}
_MAX_DEPTH = 4

# Wrappers: program -> options that take a value (the next word), when not glued to it.
_WRAPPERS: dict[str, set[str]] = {
    "sudo": {"-u", "-g", "-h", "-p", "-C", "-D", "-r", "-t", "-U"},
    "doas": {"-u", "-C"},
    "env": {"-u", "-C", "-S", "--unset", "--chdir"},
    "nice": {"-n", "--adjustment"},
    "ionice": {"-c", "-n", "-p", "--class", "--classdata"},
    "nohup": set(), "time": {"-f", "-o"}, "builtin": set(), "exec": {"-a"}, "setsid": set(),
    "stdbuf": {"-i", "-o", "-e"}, "unbuffer": set(), "chronic": set(), "caffeinate": set(),
    "timeout": {"-s", "-k", "--signal", "--kill-after"},
    "watch": {"-n", "-d", "--interval"},
    "command": set(), "flock": {"-w", "-E"}, "chrt": set(), "taskset": set(), "strace": {"-o", "-e", "-p"},
}
# Programs whose operand (after their own options) is a duration or similar before the command.
_LEADING_OPERANDS = {"timeout": 1, "flock": 1, "chrt": 1, "taskset": 1}
_XARGS_VALUE_OPTS = {"-I", "-i", "-n", "-P", "-L", "-l", "-d", "-E", "-e", "-s", "-a", "--max-args",
                     "--max-procs", "--delimiter", "--arg-file", "--replace", "--max-lines"}
_FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}


def program(argv: list[str]) -> str:
    """The program's name as the guards compare it: no directory, no leading backslash."""
    return posixpath.basename(argv[0].lstrip("\\")) if argv else ""


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
    if prog in _WRAPPERS:
        if prog == "command" and args[:1] and args[0] in ("-v", "-V"):
            return []
        rest = _after_options(args, _WRAPPERS[prog], prog == "env", _LEADING_OPERANDS.get(prog, 0))
        return [SimpleCommand(rest, cmd.redirects, cmd.stdin_text, cmd.via, list(cmd.piped_from))] if rest else []
    if prog == "xargs":
        rest = _after_options(args, _XARGS_VALUE_OPTS, False, 0)
        return [SimpleCommand(rest or ["echo"], [], "", "xargs")]
    if prog == "find":
        return _find_exec(args)
    if prog == "busybox" and args and args[0] not in SHELLS:  # busybox rm -rf x: the applet runs
        return [SimpleCommand(args, cmd.redirects, cmd.stdin_text, cmd.via, list(cmd.piped_from))]
    if prog in SHELLS or prog == "su":
        inner = _shell_script(cmd, args)
        for c in inner:  # find -exec sh -c 'rm "$1"' _ {} ';': still one run per file found
            c.via = c.via or cmd.via
        return inner
    if prog == "eval":
        return parse(" ".join(args)).commands
    return []


def _after_options(args: list[str], value_opts: set[str], assignments: bool, operands: int) -> list[str]:
    i = 0
    while i < len(args):
        a = args[i]
        if a == "--":
            i += 1
            break
        if assignments and "=" in a and not a.startswith("-"):
            i += 1
        elif a.startswith("-") and len(a) > 1:
            i += 2 if a in value_opts else 1
        else:
            break
    return args[i + operands:]


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


def _shell_script(cmd: SimpleCommand, args: list[str]) -> list[SimpleCommand]:
    """``bash -c SCRIPT`` (also ``-lc``, ``-ec`` ...), ``su -c SCRIPT``, or a shell reading its
    script from stdin (``echo ... | sh``, a here-document)."""
    if program(cmd.argv) == "busybox":
        args = args[1:] if args[:1] and args[0] in SHELLS else args
    for i, a in enumerate(args):
        if a.startswith("-") and not a.startswith("--") and "c" in a[1:] and i + 1 < len(args):
            return parse(args[i + 1]).commands
        if not a.startswith("-"):
            return []  # a script file: its content is not on the line
    return parse(cmd.stdin_text).commands if cmd.stdin_text else []
