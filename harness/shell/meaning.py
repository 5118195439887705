"""A shell command reduced to what it means, for comparing calls (loop detection's key).

The words come from ``syntax`` (quotes removed the way bash removes them). What is left to
canonicalise is how the same program and arguments can be spelled:

- the program's path (``./run.sh``, ``././run.sh``, ``run.sh``; ``/usr/bin/python3`` and
  ``python3``), an interpreter or wrapper in front of it (``sh run.sh``, ``command ./run.sh``),
  the order of flags, a number attached to a short flag (``-n5`` or ``-n 5``). ``--opt v`` and
  ``--opt=v`` stay apart in one call's key (whether ``v`` is the flag's value depends on the
  program); they are compared pairwise instead (``bind``, see ``LoopDetection``): when one call
  spells ``--opt=v``, in the other ``--opt v`` is that flag with the value ``v`` too.
- how a path is spelled (``path_key``): ``./notes/a.txt``, ``notes//a.txt``, ``tmp/../notes/a.txt``,
  ``notes/``, the absolute path under the workspace root, in file-tool arguments and shell
  operands alike. Lexical only (``posixpath.normpath``): ``a/../b`` is ``b`` without asking
  whether ``a`` is a symbolic link; both calls of a loop resolve the same way, and a symlinked
  parent walked back with ``..`` is rare in what a model types. Words that are not paths (spaces,
  quotes, regex or shell metacharacters), URLs, sed expressions (``s/a//``) and a leading ``..``
  are left alone.
- the directory a file is reached from: ``cd tools && ./gen.sh`` runs ``./tools/gen.sh``;
  ``make -C services/api test`` and ``git -C vendor/lib status`` are ``make test`` and ``git
  status`` run there. A ``cd`` (or ``pushd``) to a directory written as a path moves the working
  directory for the commands after it; their relative words are then read from the workspace
  root. A command that names no relative path (``cd api && make``) keeps the directory in its
  key: the same words run somewhere else are another call.
- what passes output through (``passes_through``): a stage after a pipe that passes its input
  unchanged to the output the call returns (``| cat``, ``| tee /dev/null``, a pager: with no
  terminal it prints its input); one that filters, numbers or writes a file (``| head -5``,
  ``| cat -n``, ``| tee out.log``) is kept. And what ``time`` adds to an output
  (``without_time_report``).
- how a file is read (``READ_KEY``): the read tool, ``cat notes.txt``, ``less notes.txt``,
  ``head -n 500 notes.txt``, ``bat -p`` each read the whole file, so each gets the key of the
  read tool's call on that path. A partial read (``head -n 5``, an offset or a line range) keeps
  its own key; a ``head``/``tail`` count that asks for everything (``_WHOLE_COUNT``) is a whole
  read (the detectors count a repeat only when the results are also the same, so a count that
  did cut the file stays apart). Read tools are recognised by the words of their name
  (``read_file``, ``ReadFile``, ``view``), only when a path is their only argument.
"""

from __future__ import annotations

import posixpath
import re
from typing import Any

from harness.shell.code import code_flags, interpreter_valued, is_interpreter
from harness.shell.syntax import SimpleCommand, parse
from harness.shell.words import STAND_IN_ROOT, Scope, assign, expand_word, substitutions
from harness.shell.wrappers import has_c, programs, shell_script, shells, unwrap

# --- paths ---------------------------------------------------------------------------------------
_PATHLIKE = re.compile(r"^[\w.~@%+,:=*?/-]+$")
"""The characters of a path a model types; anything else (spaces, quotes, ``\\``, ``()[]{}^$|``)
means the word is code, a regex or prose, not a path."""
_EXPRESSION = re.compile(r"^(?:s|y|m|tr)/.*/")
"""sed/perl expressions (``s/old/new/``): their slashes are delimiters, not directories."""
_PWD = re.compile(r"^(?:\$PWD|\$\{PWD\})/")
"""``$PWD/a`` is ``a`` (the shell's working directory is the workspace root)."""


def path_key(word: str, root: str | None = None) -> str:
    """``word`` in normal form if it looks like a path (contains ``/``), else unchanged."""
    word = _PWD.sub("./", word)
    if "/" not in word or "://" in word or not _PATHLIKE.match(word) or _EXPRESSION.match(word):
        return word
    if root:
        base = root.rstrip("/")
        if base and (word == base or word.startswith(base + "/")):
            word = "." + word[len(base):]  # absolute under the workspace: workspace-relative
    return posixpath.normpath(word)


# --- programs, flags and operands ----------------------------------------------------------------
_ATTACHED = re.compile(r"^-([A-Za-z]+)(\d+)$")
"""Short flags with a number attached: ``-n5`` is ``-n 5``."""
_SCRIPT_SUFFIX = re.compile(r"(?:/__main__)?\.py$|(?:/index)?\.[cm]?js$")
"""``python app/cli.py``, ``python -m app.cli`` and ``./app/cli.py`` run one file (a package's
``__main__.py`` is what ``python -m pkg`` runs); so do ``node scripts/seed`` and ``node
scripts/seed.js`` (Node's resolution adds ``.js``, or ``/index.js`` for a directory)."""


def program_key(word: str) -> str:
    """The program as the shell finds it: a path normalised (``././run.sh`` -> ``run.sh``), a
    program under a ``bin`` directory by its name (``/usr/bin/git`` is what ``git`` runs), and a
    Python script by its module path (``app/cli.py`` = ``python -m app.cli`` = ``app/cli``)."""
    word = _SCRIPT_SUFFIX.sub("", word) if word.endswith(("py", "js")) else word
    if "/" not in word:
        return word
    path = posixpath.normpath(word)
    if path.startswith("/") and posixpath.basename(posixpath.dirname(path)) in ("bin", "sbin"):
        return posixpath.basename(path)
    return path


def command_argv(argv: list[str]) -> tuple[list[str], str, bool]:
    """``argv`` without the wrappers and interpreters in front of the program that does the work
    (``timeout 30 sh ./run.sh -x`` -> ``./run.sh -x``); ``"xargs>"`` when the program runs through
    ``xargs``; and whether the program is a file named by its path (``./gen.sh``, ``python app.py``)."""
    argv, via = unwrap(list(argv))
    run = _interpreted(argv)
    return run, via, bool(run) and ("/" in run[0] or run is not argv)


def _interpreted(argv: list[str]) -> list[str]:
    """The script an interpreter runs, past the interpreter's own options (``python -u x.py``
    runs ``x.py``); ``python -m pkg.mod`` runs ``pkg/mod.py``. Inline code stays as it is."""
    name = program_key(argv[0]) if argv else ""
    if len(argv) < 2 or not (is_interpreter(name) or name in shells()):
        return argv
    i, valued = 1, interpreter_valued()
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        word = argv[i]
        if word not in valued and (word in code_flags() or (name in shells() and has_c(word))):
            return argv  # inline code: the call is that code, kept as written
        if word == "-m" and i + 1 < len(argv) and argv[0].startswith(("python", "pypy")):
            return [argv[i + 1].replace(".", "/") + ".py", *argv[i + 2:]]
        i += 2 if word in valued else 1
    return argv[i:] if i < len(argv) else argv


def inline_script(argv: list[str]) -> str | None:
    """The command line a shell runs with ``-c`` (``bash -c "make lint"``, ``timeout 9 zsh -l -c``,
    ``su - app -c``), if that is the call (``wrappers.shell_script``, which the guards read too)."""
    return shell_script(command_argv(argv)[0])


def simple_key(
    argv: list[str], redirects: list[tuple[str, str]], root: str | None = None,
    bind: frozenset[str] = frozenset(), cwd: str = "",
) -> list[Any]:
    """``[program, sorted flags, operands in order, sorted redirections]``. A long flag in
    ``bind`` followed by a word takes that word as its value (``--env prod`` = ``--env=prod``).
    ``cwd``: the directory a ``cd`` before it moved to (``cd_target``), which relative paths are
    read from; the program's own ``-C dir`` (``make``, ``git``) moves it the same way."""
    argv, via, is_path = command_argv(argv)
    argv, cwd = chdir_option(argv, cwd, root)
    at = Relative(cwd, root)
    flags: set[str] = set()
    operands: list[str] = []
    words = argv[1:]
    i = 0
    while i < len(words):
        a = words[i]
        i += 1
        if a == "--":  # end of options: the rest are operands, even with a leading dash
            operands.extend(at.path(w) for w in words[i:])
            break
        attached = _ATTACHED.match(a)
        if a in bind and i < len(words) and not words[i].startswith("-"):
            flags.add(f"{a}={path_key(words[i], root)}")
            i += 1
        elif a.startswith("--") or (a.startswith("-") and "=" in a):  # `--tb=short`: flag and value
            name, eq, value = a.partition("=")
            flags.add(f"{name}={path_key(value, root)}" if eq else a)
        elif a.startswith("-") and len(a) > 1 and a[1:].isalpha():
            flags.update(f"-{ch}" for ch in a[1:])
        elif attached:
            flags.update(f"-{ch}" for ch in attached.group(1))
            operands.append(attached.group(2))
        else:
            operands.append(at.path(a))
    # `/ws/bin/x` = `bin/x`; a script named by its path is read from the working directory.
    program = [via + program_key(at.path(argv[0]) if is_path else path_key(argv[0], root))] if argv else []
    key = [program, sorted(flags), operands, sorted((op, at.path(t)) for op, t in redirects)]
    return key if not cwd or at.moved else [*key, {"cwd": cwd}]


_EQUALS_FLAG = re.compile(r"(?<![^\s'\"])(--[A-Za-z0-9][\w-]*)=")


def equals_flags(command: str) -> frozenset[str]:
    """The long flags a command line spells ``--flag=value`` (what ``bind`` takes)."""
    return frozenset(_EQUALS_FLAG.findall(command))


# --- the working directory ----------------------------------------------------------------------
_RELATIVE = re.compile(r"^(?![/~$-])[\w.@%+,:*?/-]+$")
"""A word read relative to the working directory: path characters only, not absolute, not
``~``, not a variable, not an option."""


def cd_target(argv: list[str], cwd: str, root: str | None, stack: list[str] | None = None) -> str | None:
    """The working directory after ``argv`` when it is ``cd DIR``/``pushd DIR`` with ``DIR``
    written as a path, or ``popd`` after a ``pushd`` (``stack``: the directories pushed)
    (``cd -``, ``cd ~``, ``cd $X``: None, the command stays in the key)."""
    if argv == ["popd"] and stack:
        return stack.pop()
    if len(argv) != 2 or argv[0] not in ("cd", "pushd"):
        return None
    if argv[0] == "pushd" and stack is not None:
        stack.append(cwd)
    target = argv[1]
    if target.startswith("/"):
        return _here(path_key(target, root))
    return _here(join(cwd, target)) if _RELATIVE.match(target) else None


def join(cwd: str, word: str) -> str:
    """``word`` read from ``cwd`` (workspace-relative), in normal form."""
    return posixpath.normpath(posixpath.join(cwd, word)) if cwd else posixpath.normpath(word)


def _here(path: str) -> str:
    """A working directory: ``""`` for the workspace root."""
    return "" if path == "." else path


def chdir_option(argv: list[str], cwd: str, root: str | None) -> tuple[list[str], str]:
    """``argv`` without the program's own change of directory (``make -C dir``), and the
    working directory it runs in."""
    options = tuple(programs()["chdir_options"].get(argv[0] if argv else "", ()))
    if not options:
        return argv, cwd
    out = [argv[0]]
    i = 1
    while i < len(argv):
        word = argv[i]
        name, eq, value = word.partition("=")
        if word in options and i + 1 < len(argv):
            cwd, i = _moved(cwd, argv[i + 1], root), i + 2
            continue
        if eq and name in options:
            cwd = _moved(cwd, value, root)
        elif word.startswith("-C") and len(word) > 2 and "-C" in options:
            cwd = _moved(cwd, word[2:], root)
        else:
            out.append(word)
        i += 1
    return out, cwd


def _moved(cwd: str, target: str, root: str | None) -> str:
    target = path_key(target, root)
    return _here(target if target.startswith("/") else join(cwd, target))


class Relative:
    """Words of one command read from its working directory ``cwd`` (workspace-relative; ``""``:
    the root), in normal form (``path_key``). ``moved``: some word was relative, so
    the command's key names its files from the root and needs no record of the directory;
    otherwise the directory stays in the key (``cd api && make`` is not ``make``)."""

    def __init__(self, cwd: str, root: str | None) -> None:
        self.cwd, self.root, self.moved = cwd, root, False

    def path(self, word: str) -> str:
        if self.cwd and _RELATIVE.match(word):
            self.moved = True
            word = join(self.cwd, word)
        return path_key(word, self.root)


class Expander:
    """The words of a line with the parts the line itself fixes evaluated (``words``, the
    path guard's evaluator: ``$(pwd)``, `` `pwd` ``, ``$(realpath .)``, ``${PWD%/}``,
    ``$(cd src && pwd)``, variables assigned earlier on the line), against the workspace root as
    the shell's directory, so ``"$(pwd)"/queue.sh`` is ``./queue.sh``. A word with an unknown
    part stays as written. The commands inside an evaluated substitution are then not commands
    of the line (bashlex lists them after the one that holds them: ``skip``)."""

    def __init__(self, root: str | None) -> None:
        self.root = root or STAND_IN_ROOT
        self.scope = Scope(self.root, {}, set(), None)
        self.used: set[str] = set()
        """Variables of the line that an evaluated word used (their assignment is then in it)."""

    def argv(self, argv: list[str], assignments: list[str], cwd: str) -> tuple[list[str], int]:
        self.scope.cwd = cwd if cwd.startswith("/") else posixpath.join(self.root, cwd) if cwd else self.root
        skip = 0
        for a in assignments:
            assign(a, self.scope)
            if self.scope.vars.get(a.partition("=")[0].rstrip("+")) is not None:
                skip += _nested(a.partition("=")[2])  # `d=$(pwd)`: `pwd` is part of the value
        out = []
        for word in argv:
            refs = set(_REF.findall(word))
            known = {"PWD", "OLDPWD", "HOME"} | {k for k, v in self.scope.vars.items() if v is not None}
            if ("$" in word or "`" in word) and refs <= known:  # no default stands in for an unknown
                value = expand_word(word, self.scope)
                if value is not None and "\n" not in value:
                    skip += _nested(word)
                    self.used |= refs
                    word = value
            out.append(word)
        return out, skip


_REF = re.compile(r"\$\{?#?([A-Za-z_]\w*)")


def _nested(word: str) -> int:
    """How many simple commands the substitutions in ``word`` hold."""
    count = 0
    for start, end in substitutions(word):
        closer = "`" if word[start] == "`" else ")"
        body = word[start + (1 if closer == "`" else 2):end]
        count += len(parse(body[:-1] if body.endswith(closer) else body).commands)
    return count


# --- whole-file reads ----------------------------------------------------------------------------
READ_KEY = "readfile"
"""The name every whole-file read is keyed under."""
_READ_WORDS = frozenset({"read", "view", "cat"})
"""A read tool's name has one of these words ..."""
_NAME_WORDS = frozenset({"read", "view", "cat", "file", "text", "show", "open", "contents", "content", "fs"})
"""... and only these."""
_PATH_ARGS = ("path", "file_path", "filepath", "file", "filename", "target_file", "absolute_path")
_COUNT = re.compile(r"^-?(\d+)$")
_WHOLE_COUNT = 200
"""A ``head``/``tail`` count from which the call asks for the whole file (``head -n 500 notes.txt``,
``tail -n +1``); below it the count is a window (``head -n5`` and ``head -n6`` are two calls)."""


def tool_read_path(words: list[str], args: dict[str, Any]) -> str | None:
    """The path a read tool's call reads whole (``words``: the tool name's words), else None."""
    if not words or not set(words) <= _NAME_WORDS or not set(words) & _READ_WORDS:
        return None
    given = {k: v for k, v in args.items() if v not in (None, "", [], {})}
    if len(given) != 1:
        return None
    (name, value), = given.items()
    return value if name in _PATH_ARGS and isinstance(value, str) else None


def shell_read_path(key: list[Any]) -> str | None:
    """The path a shell line's key (``harness.controls.loop_normalise.commands_key``) reads whole, else None."""
    if len(key) != 1 or not isinstance(key[0], list) or len(key[0]) != 4:
        return None
    program, flags, operands, redirects = key[0]
    if redirects or len(program) != 1:
        return None
    name = program[0]
    whole = programs()["whole_reads"]
    if name in whole and set(flags) <= set(whole[name]) and len(operands) == 1:
        return str(operands[0])
    if name in ("head", "tail") and set(flags) <= {"-n"} and len(operands) == 2 and _whole(name, operands[0]):
        return str(operands[1])  # a count that reaches the end reads it all (results tell)
    return None


def _whole(program: str, count: str) -> bool:
    if program == "tail" and count == "+1":
        return True
    m = _COUNT.match(str(count))
    return m is not None and int(m.group(1)) >= _WHOLE_COUNT


# --- pipe stages that pass output through, and what time adds to it ------------------------------
def passes_through(c: SimpleCommand) -> bool:
    """Whether ``c`` reads a pipe and writes its input to its output unchanged (``programs.yaml``,
    ``pass_through``)."""
    spec = programs()["pass_through"].get(c.argv[0]) if c.argv else None
    if not c.piped_from or c.redirects or c.assignments or spec is None:
        return False
    flags = {w for w in c.argv[1:] if w.startswith("-") and w != "-"}
    operands = {w for w in c.argv[1:] if w not in flags}
    return flags <= set(spec.get("flags", ())) and operands <= set(spec.get("operands", ()))


_TIME_REPORT = re.compile(
    r"(?m)^\n?real[ \t]+(?:\d+m)?[\d.,]+s?\nuser[ \t]+(?:\d+m)?[\d.,]+s?\nsys[ \t]+(?:\d+m)?[\d.,]+s?$\n?"
    r"|^[\d.]+user [\d.]+system [\d:.]+elapsed \d+%CPU \(.*\n[^\n]*pagefaults \d+swaps$\n?"
    r"|^\tCommand being timed: [^\n]*\n(?:\t[^\n]*\n)*?\tExit status: \d+$\n?"
    r"|^.*[ \t][\d.]+s user [\d.]+s system \d+% cpu [\d:.]+ total$\n?"
)
"""What ``time`` adds to a command's output: bash's report (``real/user/sys``, with ``-p``
too), GNU ``/usr/bin/time``'s default and ``-v`` reports, zsh's one-line report."""


def without_time_report(output: str) -> str:
    """``output`` without the timing a ``time`` prefix adds: a measurement of the call, not
    its result, so ``time make`` and ``make`` give one result."""
    return _TIME_REPORT.sub("", output) if ("real" in output or "elapsed" in output or " total" in output
                                            or "Command being timed" in output) else output
