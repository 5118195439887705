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
    # Sandboxes, tracers and privilege or namespace tools run the command given after their options.
    "fakeroot": {"-l", "-s", "-i"}, "firejail": set(), "proot": {"-r", "-b", "-w"}, "unshare": set(),
    "setpriv": set(), "nsenter": {"-t", "--target"}, "runuser": {"-u", "-g", "-G"}, "valgrind": set(),
    "ltrace": {"-o", "-e", "-p"}, "catchsegv": set(), "xvfb-run": {"-n", "-s", "-f", "-e", "-p"},
    "dbus-run-session": set(), "systemd-run": {"-p", "-u", "--unit", "--property"}, "cgexec": {"-g"},
    "torsocks": set(), "proxychains": {"-f"}, "proxychains4": {"-f"}, "tini": set(), "dumb-init": set(),
    "gosu": set(), "su-exec": set(), "chroot": set(), "direnv": set(), "prlimit": set(), "numactl": set(),
}
# Programs whose operand (after their own options) is a duration or similar before the command.
_LEADING_OPERANDS = {"timeout": 1, "flock": 1, "chrt": 1, "taskset": 1, "gosu": 1, "su-exec": 1, "chroot": 1,
                     "direnv": 2}  # direnv exec DIR CMD
_XARGS_VALUE_OPTS = {"-I", "-i", "-n", "-P", "-L", "-l", "-d", "-E", "-e", "-s", "-a", "--max-args",
                     "--max-procs", "--delimiter", "--arg-file", "--replace", "--max-lines"}
_FIND_EXEC = {"-exec", "-execdir", "-ok", "-okdir"}
# Project and package runners: `uv run CMD`, `poetry run CMD`, `conda run -n env CMD`, `npm exec --
# CMD`, `npx PKG ARGS` (the package's program runs), `dotenvx run -- CMD` ...
_RUNNERS: dict[str, set[str]] = {
    "uv": {"run"}, "poetry": {"run"}, "pipenv": {"run"}, "pdm": {"run"}, "hatch": {"run"}, "rye": {"run"},
    "pixi": {"run"}, "conda": {"run"}, "mamba": {"run"}, "micromamba": {"run"}, "npm": {"exec", "x"},
    "pnpm": {"exec", "dlx"}, "yarn": {"exec", "dlx"}, "bun": {"x"}, "pipx": {"run"}, "dotenvx": {"run"},
    "op": {"run"}, "doppler": {"run"}, "infisical": {"run"}, "devbox": {"run"}, "nix": {"develop", "shell"},
}
_DIRECT_RUNNERS = {"npx", "bunx", "uvx", "pnpx"}
_RUNNER_VALUE_OPTS = {"-n", "--name", "-p", "--prefix", "--with", "--from", "--package", "-e", "--env", "--env-file",
                      "--python", "--cwd", "--directory", "--project", "--group", "--extra", "-w", "--workspace",
                      "--filter", "-F", "--config", "--spec", "--index-url", "-f"}
# Programs that take a whole command line as one word (or several), and the options that carry it.
_COMMAND_STRINGS = {"script": {"-c", "--command"}, "nix-shell": {"--run", "--command"}, "sg": {"-c"},
                    "hyperfine": {"-p", "--prepare", "-c", "--cleanup", "-s", "--setup"}}


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
        return [_same_run(cmd, rest)] if rest else []
    if prog == "git":
        return _git_runs(args)
    if prog in _RUNNERS or prog in _DIRECT_RUNNERS:
        return _runner(prog, args, cmd)
    if prog in _COMMAND_STRINGS:
        return _command_strings(prog, args)
    if prog == "parallel":  # parallel CMD ::: ARGS: CMD runs once per argument, like xargs
        words = args[:next((i for i, a in enumerate(args) if a.startswith(":::") or a == "::::"), len(args))]
        words = _after_options(words, {"-j", "-P", "--jobs", "-S", "--sshlogin", "--joblog", "-d"}, False, 0)
        inner = parse(words[0]).commands if len(words) == 1 and " " in words[0] else [SimpleCommand(words)]
        return [SimpleCommand(c.argv, c.redirects, c.stdin_text, "parallel") for c in inner if c.argv]
    if prog == "xargs":
        rest = _after_options(args, _XARGS_VALUE_OPTS, False, 0)
        return [SimpleCommand(rest or ["echo"], [], "", "xargs")]
    if prog == "find":
        return _find_exec(args)
    if prog == "busybox" and args and args[0] not in SHELLS:  # busybox rm -rf x: the applet runs
        return [_same_run(cmd, args)]
    if prog in SHELLS or prog == "su":
        inner = _shell_script(cmd, args)
        for c in inner:  # find -exec sh -c 'rm "$1"' _ {} ';': still one run per file found
            c.via = c.via or cmd.via
        return inner
    if prog == "eval":
        return parse(" ".join(args)).commands
    return []


def _same_run(cmd: SimpleCommand, argv: list[str]) -> SimpleCommand:
    """The command a wrapper runs: same redirections, input and loop variables as the wrapper."""
    return SimpleCommand(argv, cmd.redirects, cmd.stdin_text, cmd.via, list(cmd.piped_from), [], dict(cmd.loop_words))


_GIT_GLOBAL_VALUES = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
_GIT_FILTERS = {"--tree-filter", "--index-filter", "--msg-filter", "--commit-filter", "--env-filter",
                "--parent-filter", "--tag-name-filter", "--exec", "-x"}


def _git_runs(args: list[str]) -> list[SimpleCommand]:
    """Commands git runs for you: ``git submodule foreach CMD``, ``git bisect run CMD``,
    ``git rebase --exec CMD``, ``git filter-branch --tree-filter CMD``."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GIT_GLOBAL_VALUES else 1
    sub, rest = (args[i], args[i + 1:]) if i < len(args) else ("", [])
    if sub == "submodule" and rest[:1] == ["foreach"]:
        words = [a for a in rest[1:] if a not in ("--recursive", "-q", "--quiet")]
        return parse(" ".join(words)).commands if words else []
    if sub == "bisect" and rest[:1] == ["run"]:
        return [SimpleCommand(rest[1:])] if rest[1:] else []
    out = []
    for j, a in enumerate(rest):
        name, eq, value = a.partition("=")
        if sub in ("rebase", "filter-branch") and name in _GIT_FILTERS:
            text = value if eq else rest[j + 1] if j + 1 < len(rest) else ""
            out += parse(text).commands
    return out


def _runner(prog: str, args: list[str], cmd: SimpleCommand) -> list[SimpleCommand]:
    """``uv run CMD``, ``npx PKG ARGS``: the command after the runner's subcommand and options."""
    if prog not in _DIRECT_RUNNERS:
        i = 0
        while i < len(args) and args[i].startswith("-"):
            i += 2 if args[i] in _RUNNER_VALUE_OPTS else 1
        if i >= len(args) or args[i] not in _RUNNERS[prog]:
            return []
        args = args[i + 1:]
    if prog == "nix" and "-c" in args:  # nix develop [flake] -c CMD
        args = args[args.index("-c") + 1:]
    rest = _after_options(args, _RUNNER_VALUE_OPTS, False, 0)
    return [_same_run(cmd, rest)] if rest else []


def _command_strings(prog: str, args: list[str]) -> list[SimpleCommand]:
    """``script -qc 'CMD' /dev/null``, ``nix-shell --run 'CMD'``, ``sg grp -c 'CMD'``, ``hyperfine 'CMD'``."""
    opts, out = _COMMAND_STRINGS[prog], []
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
