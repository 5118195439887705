"""What the shell would make of a word, as far as it can be known before the line runs.

The path guard checks file arguments, but a shell computes many of them: ``"$PWD/../x"``,
``"$(dirname "$PWD")/x"``, ``"${PWD%/*}/x"``, ``"$(cd .. && pwd)/x"``, ``d=..; cat $d/x``.
``expand_word`` evaluates the parts whose value is fixed by the line itself and the current
directory: ``$PWD``/``$OLDPWD``/``$HOME``, variables assigned earlier on the line, the
``${var...}`` operators that cut prefixes and suffixes or give defaults, and command
substitutions made only of ``cd``, ``pwd``, ``dirname``, ``basename``, ``realpath``,
``readlink -f`` and ``echo``. Anything else (another program's output, an unknown variable) makes
the word unresolvable (``None``); ``from_parent`` then says whether the word was built with
parent-directory operations, which a caller may treat as leaving the workspace (fail closed).
No program is run: this is evaluation of a tiny, side-effect-free subset of the shell.
"""

from __future__ import annotations

import fnmatch
import posixpath
import re
from dataclasses import dataclass, field

from harness.shell.syntax import parse

_NAME = re.compile(r"[A-Za-z_]\w*|\d|[@*#?$!-]")
_PARAM = re.compile(r"^([A-Za-z_]\w*|\d+|[@*#?$!-])(.*)$", re.S)
# Parent-directory operations on a value the line cannot fix: a `..` segment, or the parent of
# another program's output (`$(dirname "$(git rev-parse --show-toplevel)")`). The parent of an
# unknown variable (`dirname "$f"` in a loop over relative paths) is not one: it stays relative.
_PARENT = re.compile(r"(?:^|[/\s\"'=(])\.\.(?:$|[/\s\"')])|\bdirname\s+(?:-\S+\s+)*[\"']?(?:\$\(|`)|\bpardir\b")
_MAX_DEPTH = 6
STAND_IN_ROOT = "/__workspace_root__"
"""Where ``$PWD`` points when the workspace root is not known (no real path starts with it):
``$(pwd)/x`` is still ``x``."""
_MAX_VALUE = 4096
"""Longer values are not cut by patterns (pattern removal is quadratic in the value's length)."""


@dataclass
class Scope:
    """Where a word is expanded: the current directory and the variables known so far."""

    cwd: str | None
    """Absolute current directory, or None when it cannot be known (``cd "$X"``)."""
    vars: dict[str, str | None] = field(default_factory=dict)
    """Variables assigned earlier on the line (None: assigned, value unknown)."""
    parent_built: set[str] = field(default_factory=set)
    """Variables whose unknown value was built with parent-directory operations."""
    oldpwd: str | None = None


def expand_word(word: str, scope: Scope, depth: int = 0) -> str | None:
    """The word with quotes removed and expansions evaluated, or None when some part is unknown."""
    if "$" not in word and "`" not in word:
        return word.replace('"', "").replace("'", "")
    out: list[str] = []
    i = 0
    while i < len(word):
        ch, end = word[i], i + 1
        value: str | None = ch
        if ch == "\\" and i + 1 < len(word):
            value, end = word[i + 1], i + 2
        elif ch == "'":
            close = word.find("'", i + 1)
            close = len(word) if close < 0 else close
            value, end = word[i + 1:close], close + 1
        elif ch == '"':
            value = ""
        elif ch == "`" or word.startswith("$(", i):
            end = span_end(word, i)
            inner = word[i + 1:end - 1] if ch == "`" else word[i + 2:end - 1]
            value = None if inner.startswith("(") else run_substitution(inner, scope, depth + 1)  # $((: arithmetic
        elif ch == "$":
            value, end = _parameter(word, i, scope, depth)
        if value is None:
            return None
        out.append(value)
        i = end
    return "".join(out)


def from_parent(word: str, scope: Scope) -> bool:
    """Whether an unresolvable word was built with parent-directory operations (``..``,
    ``dirname``, ``${x%/*}``) or from a variable that was."""
    if _PARENT.search(word):
        return True
    return any(re.search(rf"\$\{{?{re.escape(v)}\b", word) for v in scope.parent_built)


def assign(text: str, scope: Scope) -> None:
    """Record ``NAME=value`` (value expanded now, as the shell does)."""
    name, _, rhs = text.partition("=")
    name = name.rstrip("+")
    if not re.fullmatch(r"[A-Za-z_]\w*", name):
        return
    value = expand_word(rhs, scope)
    scope.vars[name] = value
    if value is None and from_parent(rhs, scope):
        scope.parent_built.add(name)
    else:
        scope.parent_built.discard(name)


def span_end(word: str, start: int) -> int:
    """Index just past the substitution starting at ``start`` (``$(...)`` or a backtick pair)."""
    if word[start] == "`":
        end = word.find("`", start + 1)
        return len(word) if end < 0 else end + 1
    depth, i, quote = 0, start + 1, ""
    while i < len(word):
        ch = word[i]
        if quote:
            quote = "" if ch == quote else quote
        elif ch == "'":
            quote = ch
        elif ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return len(word)


def _parameter(word: str, i: int, scope: Scope, depth: int) -> tuple[str | None, int]:
    """``$NAME`` or ``${...}`` at ``i``: its value (None: unknown) and the index after it."""
    if word.startswith("${", i):
        level, j = 0, i + 1
        while j < len(word):
            level += {"{": 1, "}": -1}.get(word[j], 0)
            if level == 0:
                break
            j += 1
        return _braced(word[i + 2:j], scope, depth), j + 1
    m = _NAME.match(word, i + 1)
    if not m:
        return "$", i + 1
    return _lookup(m.group(0), scope), m.end()


def _lookup(name: str, scope: Scope) -> str | None:
    return {"PWD": scope.cwd, "OLDPWD": scope.oldpwd, "HOME": "~"}.get(name, scope.vars.get(name))


def _braced(expr: str, scope: Scope, depth: int) -> str | None:
    """``${NAME}``, ``${NAME%pat}``, ``${NAME%%pat}``, ``${NAME#pat}``, ``${NAME##pat}``,
    ``${NAME:-word}`` and friends; other operators are unknown."""
    m = _PARAM.match(expr)
    if not m or expr.startswith("#") and len(expr) > 1:
        return None
    name, op = m.groups()
    value = _lookup(name, scope)
    if not op:
        return value
    for prefix in (":-", "-", ":=", "="):
        if op.startswith(prefix):
            return value if value else expand_word(op[len(prefix):], scope, depth + 1)
    if op.startswith((":+", "+")):
        return expand_word(op[2 if op.startswith(":") else 1:], scope, depth + 1) if value else ""
    if value is not None and len(value) > _MAX_VALUE:
        return None
    if op.startswith("/") and value is not None:
        return _substitute(value, op[1:], scope, depth)
    for cut in ("%%", "%", "##", "#"):
        if op.startswith(cut):
            pattern = expand_word(op[len(cut):], scope, depth + 1)
            return None if value is None or pattern is None else _remove(value, pattern, cut)
    return None


def _substitute(value: str, spec: str, scope: Scope, depth: int) -> str | None:
    """``${NAME/pat/rep}`` (``//`` every match, ``/#`` at the start, ``/%`` at the end)."""
    every, anchor = spec.startswith("/"), spec[:1] if spec[:1] in "#%" else ""
    spec = spec[1:] if every or anchor else spec
    raw_pattern, _, raw_rep = spec.partition("/")
    pattern, rep = expand_word(raw_pattern, scope, depth + 1), expand_word(raw_rep, scope, depth + 1)
    if pattern is None or rep is None:
        return None
    if not pattern:
        return value
    body = fnmatch.translate(pattern)
    if not (body.startswith("(?s:") and body.endswith(")\\Z")):
        return None
    rx = re.compile(("^" if anchor == "#" else "") + f"(?s:{body[4:-3]})" + ("$" if anchor == "%" else ""))
    return rx.sub(lambda m: str(rep), value, count=0 if every else 1)


def _remove(value: str, pattern: str, cut: str) -> str:
    """Shell pattern removal: ``%`` shortest suffix, ``%%`` longest, ``#``/``##`` prefixes."""
    n = len(value)
    if cut.startswith("%"):
        order = range(n + 1) if cut == "%%" else range(n, -1, -1)
        return next((value[:k] for k in order if fnmatch.fnmatchcase(value[k:], pattern)), value)
    order = range(n, -1, -1) if cut == "##" else range(n + 1)
    return next((value[k:] for k in order if fnmatch.fnmatchcase(value[:k], pattern)), value)


def run_substitution(text: str, scope: Scope, depth: int = 1) -> str | None:
    """The output of ``$(text)`` when it is made only of commands whose output the line fixes."""
    if depth > _MAX_DEPTH or len(text) > _MAX_VALUE:
        return None
    masked, spans = _mask_substitutions(text)
    parsed = parse(masked)
    if not parsed.parsed:
        return None
    local = Scope(scope.cwd, dict(scope.vars), set(scope.parent_built), scope.oldpwd)
    output: str | None = ""
    for cmd in parsed.commands:
        words = [_unmask(w, spans) for w in cmd.argv]
        for a in cmd.assignments:
            assign(_unmask(a, spans), local)
        if words:
            output = _evaluate(words, local, depth)
            if output is None:
                return None
    return output


def substitutions(text: str) -> list[tuple[int, int]]:
    """``(start, end)`` of each top-level ``$( )`` or backquoted substitution of ``text`` (not
    ``$(( ))`` arithmetic, nor inside single quotes)."""
    out, i, quoted = [], 0, False
    while i < len(text):
        if text[i] == "'":
            quoted = not quoted
        elif not quoted and (text[i] == "`" or text.startswith("$(", i) and not text.startswith("$((", i)):
            out.append((i, span_end(text, i)))
            i = out[-1][1]
            continue
        i += 1
    return out


def _mask_substitutions(text: str) -> tuple[str, list[str]]:
    """Top-level substitutions replaced by placeholders, so parsing the text yields only its
    own commands (a nested one is evaluated when the word holding it is expanded)."""
    spans = substitutions(text)
    masked = text
    for n, (start, end) in reversed(list(enumerate(spans))):
        masked = f"{masked[:start]}__LLSUB{n}__{masked[end:]}"
    return masked, [text[start:end] for start, end in spans]


def _unmask(word: str, spans: list[str]) -> str:
    return re.sub(r"__LLSUB(\d+)__", lambda m: spans[int(m.group(1))], word)


def _evaluate(words: list[str], scope: Scope, depth: int) -> str | None:
    """One command of a substitution: its output, None when it cannot be known."""
    prog, args = posixpath.basename(words[0]), words[1:]
    values = [expand_word(a, scope, depth) for a in args if not a.startswith("-") or a == "-"]
    opts = {a for a in args if a.startswith("-") and a != "-"}
    if any(v is None for v in values):
        return None
    operands: list[str] = values  # type: ignore[assignment]
    if prog == "cd":
        target = operands[0] if operands else "~"
        if scope.cwd is None or target.startswith("~"):
            scope.cwd = None
        else:
            scope.oldpwd, scope.cwd = scope.cwd, posixpath.normpath(posixpath.join(scope.cwd, target))
        return ""
    if prog == "pwd":
        return scope.cwd
    if prog == "dirname" and operands:
        return "\n".join(_dirname(o) for o in operands)
    if prog == "basename" and operands:
        return posixpath.basename(operands[0].rstrip("/") or "/")
    if prog in ("realpath", "grealpath") or prog == "readlink" and opts & {"-f", "-e", "-m", "--canonicalize"}:
        if scope.cwd is None or not operands or operands[0].startswith("~"):
            return None
        return posixpath.normpath(posixpath.join(scope.cwd, operands[0]))
    if prog == "echo":
        return " ".join(operands)
    if prog in (":", "true"):
        return ""
    return None


def _dirname(path: str) -> str:
    stripped = path.rstrip("/")
    head = posixpath.dirname(stripped).rstrip("/")
    return "/" if not stripped else head or ("/" if stripped.startswith("/") else ".")
