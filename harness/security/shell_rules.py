"""Which simple commands destroy data: judged by program, flags and arguments (shell-aware guard).

The rules name what each program does, not how a command line is spelled: ``rm`` with both
recursive and force flags in any spelling (``-rf``, ``-r -f``, ``--recursive --force``, ``-Rf``),
``git`` after any global options (``-C dir``, ``-c k=v``), mass deletions not spelled ``-rf``
(``rm -r dir``, ``rm dir/*``, a loop over ``rm``: ``shell_mass_delete``), any ``find -delete``, anything
deleting what ``find -exec`` or ``xargs`` feed it, a redirection that empties an existing file
without writing to it (or copies, links or ``tee``s an empty source over it), in-place edits
whose script keeps no line (``shell_inplace``), SQL ``DROP``/``TRUNCATE`` given to a database
client, and interpreter one-liners that delete or empty files. Words that are only mentioned (a grep pattern, an echo,
a commit message) are arguments of a harmless program and never match.
"""

from __future__ import annotations

import re

from harness.security.patterns import load_patterns
from harness.security.shell_inplace import inplace_rule
from harness.security.shell_mass_delete import loop_expanded, mass_delete_rule
from harness.security.shell_side_effects import (
    side_effect_rule,
    temp_variables,
    with_temp_variables,
)
from harness.shell import SimpleCommand, expand, parse, program, split_flags
from harness.shell.code import STRING as _STRING
from harness.shell.code import code as _code
from harness.shell.code import is_interpreter
from harness.shell.code_literals import dynamic_calls, mask, moves_out

_SQL_CLIENTS = {"psql", "sqlite3", "sqlite", "mysql", "mariadb", "duckdb", "clickhouse-client",
                "clickhouse", "sqlcmd", "cockroach", "mysqlsh", "usql", "pgcli", "mycli", "litecli"}
_SQL_DROP = re.compile(r"\bdrop\s+(?:table|database|schema|view|index|materialized\s+view)\b", re.I)
_SQL_TRUNCATE = re.compile(r"\btruncate\s+(?:table\s+)?(?!-)[\w.\"`\[]", re.I)
# An argument that IS a destructive SQL statement (not one that mentions it in prose).
_SQL_STATEMENT = re.compile(r"(?:^|;)\s*(?:drop\s+(?:table|database|schema|view|index)\b|truncate\s+(?:table\s+)?[\w.\"`]+\s*(?:;|$))", re.I)
# Programs that print, search or compare text: SQL in their arguments is only mentioned.
_TEXT_PROGRAMS = {"echo", "printf", "grep", "egrep", "fgrep", "rg", "ag", "ack", "git", "sed", "awk", "cat",
                  "less", "more", "head", "tail", "history", "man", "jq", "yq", "diff", "wc", "sort", "uniq",
                  "cut", "tr", "column", "fold", "fmt", "tee", "test", "[", "expr", "printenv", "logger"}
_EVALS = re.compile(r"\b(?:exec|eval|compile|Function|runInThisContext|runInNewContext|instance_eval|class_eval"
                    r"|module_eval|evalq|parse_eval|loadstring|load)\s*\(?\s*['\"`]|\beval\s*\(")
_DB_CODE = re.compile(r"execute|executescript|query|cursor|connect|sql", re.I)
_DEVICE = re.compile(r"^/dev/(?:sd[a-z]|nvme\d|hd[a-z]|vd[a-z]|xvd[a-z]|mmcblk\d|disk\d|md\d|dm-\d|mapper/)")
_HARMLESS_DEV = re.compile(r"^/dev/(?:null|zero|stdout|stderr|stdin|tty|fd/\d+|full)$")
_WIDE_TARGETS = {"/", "/*", "~", "~/", "~/*", ".", "./", "./*", "*", "..", "../", "$HOME", "${HOME}", "$HOME/", "$PWD"}
_QUIET = {":", "true", "false"}
_AWKS = {"awk", "gawk", "mawk", "nawk", "busybox-awk"}
_EMPTY = "/dev/null"
_EMPTY_SOURCE = re.compile(r"^/dev/null$")
_COPIES = {"cp", "mv", "install", "ln", "rsync"}
_INSTALL_VALUE_OPTS = {"-m", "--mode", "-o", "--owner", "-g", "--group", "-S", "--suffix", "-t", "--target-directory"}
_LIST = re.compile(r"\[\s*((?:['\"][^'\"\n]*['\"]\s*,\s*)+['\"][^'\"\n]*['\"])\s*,?\s*\]")
# Code that hands a string to a shell or starts a process (only then is a string a command).
_RUNS_PROCESS = re.compile(r"\b(?:system|popen|subprocess|exec\w*|spawn\w*|child_process|check_output|call|run|"
                           r"Popen|shell_exec|passthru|proc_open|IO\.popen|Open3|Command|Start-Process)\b|`|\bsh\s*\(")
# A file opened for writing from the start: open(p, 'w'), Path(p).open('w'), Perl's open(F, '>', p)
# and open(F, ">p") (not '>>', which appends); harmless when the code then writes to it.
_OPEN_W = re.compile(r"""\bopen(?:Sync)?\s*\([^()]*,\s*(?:mode\s*=\s*)?['"][wW]b?\+?['"]|\.open\s*\(\s*(?:mode\s*=\s*)?['"][wW]b?\+?['"]"""
                     r"""|\bopen\s*\(?\s*(?:my\s+)?[$\w]+\s*,\s*['"]\+?>(?!>)""")
_WRITES = re.compile(r"\.write\w*\s*\(|\bdump\s*\(|\bprint\s*\([^)]*\bfile\s*=|\bcopyfileobj\b|\.to_\w+\s*\("
                     r"|\b(?:print|printf|say)\s*\{?\s*\$\w+|\bprint\s+[A-Z]\w*\s|\bsyswrite\b|\.(?:puts|print)\b|<<")


def judge(command: str, depth: int = 0, disabled: tuple[str, ...] = ()) -> tuple[str | None, bool]:
    """``(rule id or None, parsed)``: the first destructive command on the line, if any (rules
    in ``disabled`` skipped), and whether the line parsed (False: the tolerant tokenizer read it)."""
    parsed = parse(command)
    made_empty: set[str] = set()
    temps: dict[str, str] = {}  # variables the line sets (d=$(mktemp -d) reads as $TMPDIR)
    for cmd in parsed.commands:
        temp_variables(cmd.assignments + (cmd.argv[1:] if program(cmd.argv) in _DECLARE else []), temps)
        for c in expand(cmd):
            loops = {**cmd.loop_words, **c.loop_words}  # a nested shell's loops are its commands' own
            c = loop_expanded(c, loops)
            c = SimpleCommand(with_temp_variables(c.argv, temps), c.redirects, c.stdin_text, c.via, c.piped_from,
                              c.assignments)
            rule = judge_simple(_empty_sources(c, made_empty), depth) or mass_delete_rule(c, loops)
            if rule and rule not in disabled:
                return rule, parsed.parsed
    return None, parsed.parsed


_DECLARE = {"export", "local", "declare", "readonly", "typeset"}


def _empty_sources(cmd: SimpleCommand, made_empty: set[str]) -> SimpleCommand:
    """Files and folders this line creates empty (``touch e``, ``mkdir e``) are empty sources
    later on the line, like ``/dev/null``: ``touch e && mv e data.csv`` empties data.csv and
    ``mkdir e && rsync -a --delete e/ data/`` empties data/. The command comes back with such
    a source spelled ``/dev/null``, so one set of rules judges both."""
    prog, args = program(cmd.argv), cmd.argv[1:]
    operands = [a.rstrip("/") or a for a in args if not a.startswith("-")]
    if prog in ("touch", "mkdir"):  # a folder is "d/" (copying or moving one replaces nothing)
        made_empty.update(o + ("/" if prog == "mkdir" else "") for o in operands)
        return cmd
    if prog not in _COPIES or not made_empty:
        return cmd
    kind = "/" if prog == "rsync" else ""
    argv = [cmd.argv[0]] + [_EMPTY if not a.startswith("-") and (a.rstrip("/") or a) + kind in made_empty else a
                            for a in args]
    return SimpleCommand(argv, cmd.redirects, cmd.stdin_text, cmd.via, cmd.piped_from, cmd.assignments)


def judge_simple(cmd: SimpleCommand, depth: int = 0) -> str | None:
    """The rule a single command breaks, or None."""
    if rule := _redirect_rule(cmd):
        return rule
    prog = program(cmd.argv)
    if not prog:
        return None
    if cmd.via and prog in ("rm", "unlink", "rmdir", "shred", "truncate", "srm", "wipe"):
        return "bulk-delete"
    if prog in _SQL_CLIENTS:
        return _sql_rule(" ".join(cmd.argv[1:]) + "\n" + cmd.stdin_text)
    if rule := inplace_rule(prog, cmd.argv[1:], _editor_stdin(cmd), bool(cmd.via)):
        return rule
    if prog == "tee":
        return _tee(cmd)
    if prog == "dd" and (rule := _dd_empty(cmd)):
        return rule
    if is_interpreter(prog):
        return _code_rule(cmd, depth)
    if prog in _AWKS:  # awk 'BEGIN { system("rm -rf x") }': its strings may run as commands
        text = next((a for a in cmd.argv[1:] if not a.startswith("-")), "")
        return _strings_as_shell(text, depth, mask(text, prog))
    check = _PROGRAMS.get(prog) or (_mkfs if prog.startswith("mkfs") else None)
    if check and (rule := check(cmd.argv[1:])):
        return rule
    if rule := side_effect_rule(prog, cmd.argv[1:]):  # git stash -u, tar --remove-files, mv x "$(mktemp -d)"
        return rule
    if prog not in _TEXT_PROGRAMS:  # ./db.sh 'DROP TABLE users', docker exec db psql -c ...
        return next((r for a in cmd.argv[1:] if _SQL_STATEMENT.search(a) and (r := _sql_rule(a))), None)
    return None


def _rm(args: list[str]) -> str | None:
    flags, operands = split_flags(args)
    recursive = bool(flags & {"r", "R", "--recursive"})
    if not operands:
        return None  # `rm -rf` alone removes nothing (a string a scan searches for, say)
    if recursive and flags & {"f", "--force"}:
        return "rm-rf"
    if recursive and any(o.rstrip("/") + ("/" if o.endswith("/") else "") in _WIDE_TARGETS or o in _WIDE_TARGETS
                         for o in operands):
        return "rm-wide"
    return None


def _find(args: list[str]) -> str | None:
    return "bulk-delete" if "-delete" in args else None


_GIT_VALUE_OPTS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}


def _git(args: list[str]) -> str | None:
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GIT_VALUE_OPTS else 1
    if i >= len(args):
        return None
    sub, rest = args[i], args[i + 1:]
    flags, operands = split_flags(rest)
    if sub == "clean" and flags & {"f", "--force"} and not flags & {"n", "--dry-run"}:
        return "git-clean"
    if sub == "rm" and flags & {"r", "--recursive"} and flags & {"f", "--force"} and "--cached" not in flags:
        return "rm-rf"  # removes the files from the working tree, local changes included
    if sub == "reset" and "--hard" in flags:
        return "git-reset-hard"
    if sub == "push" and (flags & {"f", "--force"} or any(o.startswith("+") for o in operands)):
        return "git-push-force"
    return None


def _truncate(args: list[str]) -> str | None:
    for i, a in enumerate(args):
        size = a[2:] if a.startswith("-s") and len(a) > 2 else a.split("=", 1)[1] if a.startswith("--size=") else (
            args[i + 1] if a in ("-s", "--size") and i + 1 < len(args) else None)
        if size is not None and (size.lstrip("<") in ("0", "0K", "0k") or size.startswith("-")):
            return "truncate-file"
    return None


def _dd(args: list[str]) -> str | None:
    kv = dict(a.split("=", 1) for a in args if "=" in a)
    target, source = kv.get("of", ""), kv.get("if", "")
    if target and _DEVICE.match(target):
        return "dd-to-device"
    if target and not _HARMLESS_DEV.match(target) and source in ("/dev/zero", "/dev/urandom", "/dev/random"):
        return "dd-overwrite"
    return None


def _mv(args: list[str]) -> str | None:
    _, operands = split_flags(args)
    if len(operands) >= 2 and operands[-1] == "/dev/null":
        return "move-to-null"
    return _cp(args)


def _cp(args: list[str]) -> str | None:
    """``cp``/``mv``/``install`` with an empty device as the source: the target is emptied."""
    _, operands = split_flags(args)
    return "truncate-file" if len(operands) >= 2 and _EMPTY_SOURCE.match(operands[0]) and _regular(operands[-1]) else None


def _regular(target: str) -> bool:
    return not target.startswith("/dev/")


def _install(args: list[str]) -> str | None:
    operands = [a for i, a in enumerate(args) if not a.startswith("-") and not (i and args[i - 1] in _INSTALL_VALUE_OPTS)]
    return "truncate-file" if len(operands) >= 2 and _EMPTY_SOURCE.match(operands[0]) and _regular(operands[-1]) else None


def _rsync(args: list[str]) -> str | None:
    """``rsync --delete EMPTY/ dir/``: deletes everything in dir that the empty source lacks."""
    flags, operands = split_flags(args)
    deletes = any(f.startswith("--del") for f in flags)
    return "bulk-delete" if deletes and len(operands) >= 2 and _EMPTY_SOURCE.match(operands[0]) else None


def _fallocate(args: list[str]) -> str | None:
    """Punching, zeroing or collapsing a range destroys that part of the file's content."""
    flags, _ = split_flags(args)
    return "truncate-file" if flags & {"p", "z", "c", "--punch-hole", "--zero-range", "--collapse-range"} else None


def _ln(args: list[str]) -> str | None:
    """``ln -sf /dev/null file``: the file is replaced by a link to nothing."""
    flags, operands = split_flags(args)
    forced = flags & {"f", "--force"}
    return "truncate-file" if forced and len(operands) >= 2 and _EMPTY_SOURCE.match(operands[0]) else None


def _tee(cmd: SimpleCommand) -> str | None:
    """``tee file`` reading nothing (``< /dev/null``, or a pipe from a command that writes
    nothing) empties each file it is given, unless it appends."""
    flags, operands = split_flags(cmd.argv[1:])
    if flags & {"a", "--append"} or not operands:
        return None
    empty_stdin = any(op == "<" and _EMPTY_SOURCE.match(t) for op, t in cmd.redirects)
    if empty_stdin or cmd.piped_from and _writes_nothing(SimpleCommand(cmd.piped_from)):
        return "truncate-file"
    return None


def _dd_empty(cmd: SimpleCommand) -> str | None:
    """``dd`` truncates its output file (unless ``conv=notrunc``) and then copies nothing when
    its input is empty or ``count=0``."""
    kv = dict(a.split("=", 1) for a in cmd.argv[1:] if "=" in a)
    target, source = kv.get("of", ""), kv.get("if", "")
    if not target or target.startswith("/dev/") or "notrunc" in kv.get("conv", "") or kv.get("seek", "0") not in ("0", ""):
        return None
    if not source:
        source = next((t for op, t in cmd.redirects if op == "<"), "")
    return "truncate-file" if _EMPTY_SOURCE.match(source) or kv.get("count") == "0" else None


def _chmod(args: list[str]) -> str | None:
    flags, operands = split_flags(args)
    if flags & {"R", "--recursive"} and operands[:1] and operands[0] in ("777", "0777", "a+rwx", "ugo+rwx"):
        return "chmod-777-recursive-root" if any(o in ("/", "~", "$HOME") or o.startswith(("/", "~/")) and o.count("/") <= 1
                                                  for o in operands[1:]) else None
    return None


def _mkfs(args: list[str]) -> str | None:
    return "mkfs"


_PROGRAMS = {
    "rm": _rm, "find": _find, "git": _git, "truncate": _truncate, "dd": _dd, "mv": _mv, "cp": _cp,
    "install": _install, "ln": _ln, "fallocate": _fallocate, "rsync": _rsync,
    "chmod": _chmod, "shred": lambda a: "shred", "srm": lambda a: "shred", "wipe": lambda a: "shred",
    "mke2fs": _mkfs, "wipefs": _mkfs,
}


def _redirect_rule(cmd: SimpleCommand) -> str | None:
    for op, target in cmd.redirects:
        if op not in (">", ">|", "&>", ">&"):
            continue
        if _DEVICE.match(target):
            return "overwrite-block-device"
        if not target.startswith("/dev/") and _writes_nothing(cmd):
            return "truncate-file"
    return None


def _writes_nothing(cmd: SimpleCommand) -> bool:
    """The command's output is empty or blank, so ``> file`` only empties the file (``: > f``,
    ``> f``, ``true > f``, ``cat /dev/null > f``, ``echo -n > f``, ``echo > f``, ``printf '' > f``)."""
    prog, args = program(cmd.argv), cmd.argv[1:]
    if not cmd.argv or prog in _QUIET:
        return True
    if prog == "cat":
        return all(a == "/dev/null" for a in args) and bool(args)
    if prog == "echo":  # `echo > f`, `echo '' > f`: a blank line replaces the content
        return all(re.fullmatch(r"-[neE]+", a) or not a.strip() for a in args)
    if prog == "printf":
        return not args or re.fullmatch(r"(?:\s|\\[ntr])*", args[0]) is not None and len(args) == 1
    return False


def _editor_stdin(cmd: SimpleCommand) -> str:
    """What an editor reads on stdin: a here-document, a here-string or words piped in."""
    return "\n".join([cmd.stdin_text] + [t for op, t in cmd.redirects if op == "<<<"])


def _sql_rule(text: str) -> str | None:
    if _SQL_DROP.search(text):
        return "drop-table"
    if _SQL_TRUNCATE.search(text):
        return "truncate-table"
    return None


def _code_rule(cmd: SimpleCommand, depth: int) -> str | None:
    code = _code(cmd)
    if not code:
        return None
    said = mask(code, program(cmd.argv)) + "\n" + dynamic_calls(code)  # what it calls, not what its literals say
    if _EVALS.search(said):  # exec('...'), eval "...", new Function('...'): the strings are code too
        said += "\n" + "\n".join(next(g for g in m.groups() if g is not None) for m in _STRING.finditer(code))
    for p in load_patterns("destructive_commands.yaml", "code_rules", "guidance"):
        if p.regex.search(said):
            return p.id
    if _OPEN_W.search(said) and not _WRITES.search(said):
        return "script-truncate"
    if moves_out(said, code):
        return "move-out"
    if _DB_CODE.search(said) and (rule := _sql_rule(code)):
        return rule
    return _strings_as_shell(code, depth, said)


def _strings_as_shell(code: str, depth: int, said: str) -> str | None:
    """String literals of the code run as shell commands (``os.system``, ``execSync``,
    ``subprocess.run([...])``) when the code (``said``: literals masked) starts a process: judge
    them as command lines too. A string ending in a space is a command whose operands the code
    appends (``system("rm -rf " $1)``), so it is judged with one."""
    if depth >= 2 or not _RUNS_PROCESS.search(said):
        return None
    candidates = [next(g for g in m.groups() if g is not None) for m in _STRING.finditer(code)]
    candidates += [" ".join(re.findall(r"['\"]([^'\"\n]*)['\"]", m.group(1))) for m in _LIST.finditer(code)]
    for text in candidates:
        if " " in text.strip():
            rule, _ = judge(text + "FILE" if text[-1:].isspace() else text, depth + 1)
            if rule:
                return rule
    return None
