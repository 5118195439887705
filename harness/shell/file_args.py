"""The file arguments of a shell command line (the path guard's shell mode).

The path guard confines file tools to the workspace; a shell tool reaches the same files with
``cat ../secret`` or through a symlink. ``path_words`` parses the line (``syntax``), follows
``cd``, unwraps wrappers and nested shells (``wrappers.expand``) and returns every word that can
name a file: operands, ``--opt=value`` values, redirection targets, and path-like string
literals of interpreter one-liners (``open('../x')``). Words the shell computes are evaluated
where the line fixes them (``"$(dirname "$PWD")/x"``, ``${PWD%/*}``, ``d=..; cat $d/x``: see
``words``); one it cannot evaluate but builds with parent-directory operations counts as
leaving the workspace. The guard then resolves each word the way it resolves file-tool paths
(symlinks followed, inside the workspace). Words that cannot name a local file (URLs, text with
spaces, unknown variables) are left out; so are the arguments of programs that only print their
arguments (``echo "see ../docs"``).
"""

from __future__ import annotations

import posixpath
import re
from functools import cache, lru_cache
from typing import Any
from urllib.parse import unquote

from harness.shell.code import STRING, computed_paths, is_interpreter
from harness.shell.code import code as interpreter_code
from harness.shell.syntax import SimpleCommand, parse
from harness.shell.words import STAND_IN_ROOT, Scope, assign, expand_word, from_parent
from harness.shell.wrappers import expand, program, programs, shells, word_set

_GLOB = re.compile(r"[*?\[]")
_HOME = re.compile(r"^(?:~|\$HOME\b|\$\{HOME\})")


ARGUMENT, REDIRECTION, COMPUTED, CODE = "shell-file-argument", "shell-redirection", "shell-computed-path", "code-path"
"""How a word came to name a file: the path rules of ``harness/rules/paths.yaml``."""


def path_words(command: str, root: str = "") -> list[tuple[str, str]]:
    """``(cwd, word)`` pairs: each word that may name a file, with the directory (relative to the
    workspace root, ``cd`` followed) it is relative to; ``~``/``$HOME`` kept as ``~``. ``root``
    (the root as the shell sees it) lets ``$PWD``, ``$(pwd)`` and their ``dirname`` be evaluated
    (such words come back absolute); a word built with parent-directory operations the line cannot
    fix comes back as ``..`` (fail closed)."""
    return [(cwd, word) for cwd, word, _ in file_words(command, root)]


@lru_cache(maxsize=1024)
def file_words(command: str, root: str = "") -> tuple[tuple[str, str, str], ...]:
    """``path_words`` with how each word names a file: an operand or option value
    (``ARGUMENT``), a redirection the shell opens (``REDIRECTION``), a word the shell computes
    (``COMPUTED``: ``$PWD/..``, ``$(dirname ..)``, a variable), a path in an interpreter's code
    (``CODE``). Cached: the words of a line depend on the line and the root only."""
    out: dict[tuple[str, str], str] = {}
    cwd = "."
    base = root.rstrip("/") or STAND_IN_ROOT
    scope = Scope(base)

    def add(raw: str, kind: str) -> None:
        word = _resolve(raw, scope)
        computed = kind != CODE and ("$" in raw or "`" in raw) and not (_HOME.match(raw) and "$(" not in raw)
        out.setdefault((cwd, word), COMPUTED if computed else kind)

    for cmd in parse(command).commands:
        if not cmd.argv:
            for a in cmd.assignments:
                assign(a, scope)
            # No program, yet the shell itself opens the redirections' files: `$(< f)`, a bare
            # `< f` or `> f`. They are file arguments like any other.
            for w in _redirect_words(cmd):
                add(w, REDIRECTION)
            continue
        if program(cmd.argv) in word_set("declares"):
            for a in cmd.argv[1:]:
                if "=" in a and not a.startswith("-"):
                    assign(a, scope)
        if program(cmd.argv) in ("cd", "pushd") and len(cmd.argv) <= 3:
            raw = next((a for a in cmd.argv[1:] if not a.startswith("-")), "~")
            target = _resolve(raw, scope)
            add(raw, ARGUMENT)
            scope.oldpwd = scope.cwd
            if not target:  # cd "$UNKNOWN", cd -: files are then relative to an unknown place
                cwd, scope.cwd = "$" + raw.lstrip("$"), None
                continue
            cwd = target if target.startswith(("/", "~")) else posixpath.normpath(posixpath.join(cwd, target))
            scope.cwd = None if target.startswith("~") else posixpath.normpath(posixpath.join(base, cwd))
            continue
        for c in expand(cmd):
            for w, kind in _words(c):
                add(w, kind)
    return tuple((_unstand(c), _unstand(w), kind) for (c, w), kind in out.items() if w)


def _resolve(word: str, scope: Scope) -> str:
    """The path a raw word names after expansion (``""``: none that can be known)."""
    if "$" not in word and "`" not in word or _HOME.match(word) and "$(" not in word and "`" not in word:
        return _pathish(word)
    value = expand_word(word, scope)
    if value is None:
        return ".." if from_parent(word, scope) else _pathish(word)
    return _pathish(value, expanded=True)


def _unstand(path: str) -> str:
    if path == STAND_IN_ROOT or path.startswith(STAND_IN_ROOT + "/"):
        return posixpath.relpath(path, STAND_IN_ROOT)
    return path


def _redirect_words(cmd: SimpleCommand) -> list[str]:
    """The files a command's redirections open (on any command, builtins such as ``read`` and
    ``mapfile`` included): not fd duplications (``<&3``), nor here-strings, whose word is text
    the command reads, not a file (a ``$(< f)`` inside one is a command of its own)."""
    return [t for op, t in cmd.redirects
            if op != "<<<" and not (op in (">&", "<&") and (t.isdigit() or t == "-"))]


def _words(cmd: SimpleCommand) -> list[tuple[str, str]]:
    """The words of one command that may name files, each with how it names one."""
    words = [(w, REDIRECTION) for w in _redirect_words(cmd)]
    prog = program(cmd.argv)
    if prog in _table()["text_only"]:
        return words
    if is_interpreter(prog):
        code = interpreter_code(cmd)
        words += [(w, CODE) for m in STRING.finditer(code) if not _separator(code, m)
                  and not _REGEX_LIKE.search(w := next(g for g in m.groups() if g is not None))]
        words = [(w, k) for w, k in words if "/" in w or w.startswith("..")] + [(w, CODE) for w in computed_paths(code)]
        if code:
            return words
    params = _parameters_from(cmd.argv)
    scripts = _script_operands(prog, cmd.argv)
    for i, a in enumerate(cmd.argv[1:], 1):
        if i in scripts:
            continue  # sed -n '/x/p', grep '/api/v1' src, jq '.a' f: a pattern or program, not a file
        option, _, a = a.partition("=") if a.startswith("-") else (cmd.argv[i - 1], "", a)
        if params and i >= params and a.startswith("/") and option not in _table()["runner_file_options"]:
            continue  # an absolute parameter of the workspace's own code (see _parameters_from)
        words.append((a, ARGUMENT))
    return words


@cache
def _table() -> dict[str, Any]:
    """The path guard's reading of programs (``programs.yaml``, ``file_arguments``), as sets."""
    t = programs()["file_arguments"]
    out: dict[str, Any] = {k: frozenset(v) for k, v in t.items() if isinstance(v, list)}
    scripted = {name: tuple(frozenset(spec.get(k, ())) for k in ("pattern", "from_file", "one", "two"))
                for name, spec in t["pattern_operands"].items()}
    scripted.update({alias: scripted[name] for alias, name in t["pattern_operand_aliases"].items()})
    out["pattern_operands"] = scripted
    return out


def _parameters_from(argv: list[str]) -> int:
    """Index of the first parameter of the workspace's own code; 0 when the program is not one.

    ``./finish_job.sh /var/lib/jobs/42``, ``python3 src/job.py --out /srv/x``: what the script does
    with a parameter is in its text, not on the line, and an absolute one is as often a name (a
    target the script manages, a remote path) as a file it opens; checking it would deny faithful
    calls without confining anything. Parameters that climb out (``../secret``) or name the home
    directory are still checked, as are the redirections, the script itself, and every operand of
    any other program (``cat``, ``tar``, an unknown system program: fail closed)."""
    if _workspace_file(argv[0], need_slash=True):
        return 1
    prog = program(argv)
    if prog in _table()["target_runners"]:  # make deploy /srv/app: targets and parameters of the project's own recipes
        return 1
    if prog in _table()["script_runners"] and len(argv) > 2 and argv[1] in ("run", "run-script", "start", "test"):
        return 3 if argv[1] in ("run", "run-script") else 2  # npm run export -- /var/lib/x
    if prog not in shells() and not is_interpreter(prog):
        return 0
    i = 1
    while i < len(argv) and argv[i].startswith("-") and argv[i] != "-":
        if argv[i] in _table()["code_or_module"]:  # a module (python -m json.tool FILE) or code: not a script
            return 0
        i += 2 if argv[i] in _table()["script_valued"] else 1
    return i + 1 if i < len(argv) and _workspace_file(argv[i], need_slash=False) else 0


def _workspace_file(word: str, need_slash: bool) -> bool:
    """A relative path that stays below the current directory (``./x.sh``, ``src/job.py``)."""
    if not word or word.startswith(("/", "~", "$", "-")) or "`" in word or (need_slash and "/" not in word):
        return False
    return ".." not in word.split("/")


def _script_operands(prog: str, argv: list[str]) -> set[int]:
    """Indices in ``argv`` of the pattern or program a text tool is given (``-e`` values, or its
    first operand when no ``-e``/``-f`` gives one): text it matches or runs, never a file it opens."""
    scripted = _table()["pattern_operands"]
    if prog not in scripted or prog == "rg" and "--files" in argv:  # rg --files DIR: no pattern
        return set()
    inline, from_file, one, two = scripted[prog]
    out, given, first, i = set(), False, None, 1
    while i < len(argv):
        a = argv[i]
        if a == "--":
            first = i + 1 if first is None and i + 1 < len(argv) else first
            break
        if a in inline or a in from_file:
            out.update({i + 1} if a in inline else set())
            given, i = True, i + 2
            continue
        if a.split("=", 1)[0] in inline | from_file and "=" in a:
            given = True
        elif a in one or a in two:
            i += 1 + (a in two)
        elif not a.startswith("-") or a == "-":
            first = i if first is None else first
        i += 1
    return out if given or first is None else out | {first}


_REGEX_LIKE = re.compile(r"[|\\]|\.[*+]|\[\^|\(\?")
"""A string literal of code that is a regular expression (``"/unlink\\(|rmdir/"``), not a path."""
_SEPARATOR_USE = re.compile(r"(?:\.(?:r?split|r?partition|[lr]?strip|startswith|endswith|replace|join|r?find|r?index|count"
                            r"|split_at|includes|indexOf|lastIndexOf|chomp|delete_suffix|delete_prefix|start_with\?|end_with\?)"
                            r"\s*\(\s*|\bsplit\s*\(?\s*|[+.~]\s*)$")


def _separator(code: str, m: re.Match[str]) -> bool:
    """A ``'/'`` literal used as the separator (``'/'.join(...)``, ``s.split('/')``, ``a + '/' + b``),
    not as the root directory: it names no file."""
    if m.group(0)[1:-1].strip("/"):
        return False
    return bool(_SEPARATOR_USE.search(code[:m.start()])) or bool(re.match(r"\s*(?:\.join\b|\+)", code[m.end():]))


def _pathish(word: str, expanded: bool = False) -> str:
    """The part of ``word`` that names a file, or ``""`` when it cannot name a local one
    (``expanded``: the shell's expansions were evaluated, so spaces may belong to the path)."""
    if word[:5].lower() == "file:":  # file:///etc/passwd, file://localhost/x: a URL that names a local file
        word = unquote(re.sub(r"^file:(?://(?:localhost)?(?=/))?", "", word, flags=re.I).split("?")[0].split("#")[0])
    if not word or (not expanded and any(ch.isspace() for ch in word)) or "://" in word or "$(" in word or "`" in word:
        return ""
    if word.startswith("$") and not _HOME.match(word):
        return ""
    if "$" in word.split("/", 1)[-1] and not _HOME.match(word):
        word = word.split("$", 1)[0]  # dir/$NAME: the literal directory part
    if _GLOB.search(word):
        word = posixpath.dirname(word[:_GLOB.search(word).start()])  # type: ignore[union-attr]
    if _HOME.match(word):
        word = "~" + word[_HOME.match(word).end():]  # type: ignore[union-attr]
    return word if word not in ("", "{}", "-") else ""
