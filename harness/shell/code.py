"""Interpreters, the code a command line gives them (``python -c CODE``, ``node -e``, a script fed
on stdin), and what that code does as the controls read it.

The interpreters, their code options and the options that take a value are the table of
``programs.yaml``, which loop detection (``meaning``: ``python app.py`` runs ``app.py``) and
the guards (the code of a one-liner, judged by ``harness.security`` rules) share.

Literals (``mask``): a read-only scan (``perl -ne 'print if /rm -rf|rmtree/'``, ``awk '/unlink/'``,
``python3 -c "...re.search(r'shutil.rmtree', l)"``) mentions destructive calls inside a regex or a
string; the command guard's capability checks must see the code only. ``mask`` blanks the
*contents* of string literals and of regex literals (Perl ``/re/``, ``m{re}``, ``qr/re/``,
``s/a/b/``; Ruby ``%r{}``; JavaScript and awk ``/re/``) with underscores, keeping their length and
delimiters, so what remains (``unlink``, ``os.remove(``, ``system(``) is what the program calls.
A literal the checks need as a value stays: an empty one, a short open mode (``'w'``, ``'>'``),
a device path (``'/dev/null'``), and the mode prefix of Perl's two-argument ``open(F, ">path")``.
No parser per language: one small scanner over the quoting rules these languages share is enough
to tell a literal from code, and a mistake only blanks more text.

Computed paths (``computed_paths``, the path guard's view of code beyond its literals): code
reaches a file outside the workspace without spelling ``..`` or an absolute path
(``open(os.path.join(os.path.dirname(os.getcwd()), 'x'))``, ``Path.cwd().parents[1]``,
``os.chdir(os.pardir)``, ``Path.home()``). The working directory with *k* parent operations
applied (``dirname(...)`` around it, ``.parent``/``.parents[n]``/``.rsplit(...)`` after it, also
through a variable assigned it) is ``../..`` (k times), relative to the shell's current directory;
the parent-directory constant (``os.pardir``, ``File::Spec->updir``) is ``..``; the home directory
(``Path.home()``, ``expanduser``, ``os.homedir()``, ``$ENV{HOME}`` ...) is ``~``. They count only
when the code also touches the file system (``print(Path.cwd().parent)`` reads nothing). The
reading is static and textual on purpose: none of the code runs, and a parser per language would
still not follow values through arbitrary code.
"""

from __future__ import annotations

import re
from functools import cache

from harness.shell.syntax import SimpleCommand
from harness.shell.wrappers import programs


@cache
def _interpreters() -> re.Pattern[str]:
    return re.compile(programs()["interpreters"]["pattern"])


def is_interpreter(prog: str) -> bool:
    """Whether ``prog`` (a program name) runs code in some language (``python3``, ``node`` ...)."""
    return bool(_interpreters().match(prog))


@cache
def code_flags() -> frozenset[str]:
    """Options whose value is the code itself (``-c``, ``-e``, ``--eval`` ...)."""
    return frozenset(programs()["interpreters"]["code_flags"])


@cache
def interpreter_valued() -> frozenset[str]:
    """Interpreter options followed by a separate value (``python -W ignore``)."""
    return frozenset(programs()["interpreters"]["valued"])


def code(cmd: SimpleCommand) -> str:
    """The code an interpreter is given on the line (``-c``/``-e`` ...), or on stdin."""
    args = cmd.argv[1:]
    flags = code_flags()
    for i, a in enumerate(args):
        if (a in flags or (a.startswith("-") and not a.startswith("--") and a[-1] in "ce" and len(a) <= 4)) \
                and i + 1 < len(args):
            return args[i + 1]
    if cmd.stdin_text and (not [a for a in args if not a.startswith("-")] or "-" in args):
        return cmd.stdin_text
    return ""


STRING = re.compile(r"""(?<![\w\\])(?:'((?:[^'\\\n]|\\.){1,500})'|"((?:[^"\\\n]|\\.){1,500})"|`([^`\n]{1,500})`)""")
"""A string literal of code (single, double or back quotes), its content in the group that matched."""


def strings(text: str) -> list[str]:
    """The contents of the string literals of ``text``."""
    return [next(g for g in m.groups() if g is not None) for m in STRING.finditer(text)]


# --- literals ------------------------------------------------------------------------------------
_REGEX_LANGS = re.compile(r"^(?:perl|ruby|node(?:js)?|deno|bun|ts-node|tsx|esno|qjs|awk|gawk|mawk|nawk|busybox-awk)$")
# After these (the last token before a '/'), a '/' starts a regex literal, not a division.
_BEFORE_REGEX = re.compile(r"(?:^|[(,=~!&|{};:?\[+\-*%<>^]|\b(?:if|unless|and|or|not|return|split|grep|when|while"
                           r"|until|map|join|print|puts|match|scan|sub|gsub|index))\s*$")
_QUOTE_LIKE = {"perl": re.compile(r"(?<![\w$@%&>-])(?:m|qr|qq|qw|q|s|tr|y)(?=[/{(\[<!|#~@^:\"'])"),
               "ruby": re.compile(r"(?<![\w$@])%[rqQwWi](?=[/{(\[<!|])")}
_COMMENTED = ("python", "pypy", "ruby", "perl", "Rscript", "julia", "elixir", "raku")
"""Languages whose comments start with ``#``."""
_PAIRS = {"{": "}", "(": ")", "[": "]", "<": ">"}
_KEEP = re.compile(r"^(?:[rwabxt+<>]{0,3}|/dev/\S*)$")


def mask(code: str, prog: str) -> str:
    """``code`` with the contents of its string and regex literals blanked (see the module doc)."""
    regexes = bool(_REGEX_LANGS.match(prog))
    quote_like = _QUOTE_LIKE.get(prog)
    out: list[str] = []
    i, n = 0, len(code)
    while i < n:
        ch, end = code[i], i + 1
        piece = ch
        if ch == "#" and prog.startswith(_COMMENTED) and _line_start_or_space(code, i):
            end = n if code.find("\n", i) < 0 else code.find("\n", i)
            piece = "_" * (end - i)  # a comment is not code either
        elif ch in "'\"`":
            close = _closing(code, i + 1, ch)
            piece, end = ch + _blank(code[i + 1:close]) + code[close:close + 1], close + 1
        elif quote_like and (m := quote_like.match(code, i)):
            end = _quote_like_end(code, m.end(), m.group(0))
            piece = code[i:m.end() + 1] + "_" * max(0, end - m.end() - 1)
        elif regexes and ch == "/" and _BEFORE_REGEX.search("".join(out[-40:])[-40:]) and not code.startswith("//", i):
            close = _closing(code, i + 1, "/")
            piece, end = "/" + "_" * (close - i - 1) + code[close:close + 1], close + 1
        out.append(piece)
        i = end
    return "".join(out)


def _line_start_or_space(code: str, i: int) -> bool:
    return i == 0 or code[i - 1] in " \t\n;" and not code[max(0, i - 2):i].endswith("$")


def _closing(code: str, i: int, quote: str) -> int:
    """Index of the closing ``quote`` (backslash escapes skipped; a regex's ``[...]`` class too), or len."""
    in_class = False
    while i < len(code):
        c = code[i]
        if c == "\\":
            i += 2
            continue
        if quote == "/" and c == "[":
            in_class = True
        elif quote == "/" and c == "]":
            in_class = False
        elif c == quote and not in_class:
            return i
        elif c == "\n" and quote != "`":
            return i  # an unclosed literal ends with its line
        i += 1
    return len(code)


def _quote_like_end(code: str, start: int, op: str) -> int:
    """End (exclusive) of Perl's ``m{..}``/``s/a/b/``/``qr(..)`` and Ruby's ``%r{..}``, flags excluded."""
    open_ = code[start]
    close = _PAIRS.get(open_, open_)
    parts = 2 if op in ("s", "tr", "y") else 1
    i = start + 1
    for part in range(parts):
        depth = 0
        while i < len(code):
            c = code[i]
            if c == "\\":
                i += 2
                continue
            if c == open_ and close != open_:
                depth += 1
            elif c == close and depth:
                depth -= 1
            elif c == close:
                break
            i += 1
        i += 1
        if part + 1 < parts and close != open_:  # s{a}{b}: the second part has its own brackets
            while i < len(code) and code[i].isspace():
                i += 1
            i += 1 if i < len(code) and code[i] in _PAIRS else 0
    return min(i, len(code))


def _blank(text: str) -> str:
    if _KEEP.match(text):
        return text
    if m := re.match(r"^\+?[<>]{1,2}", text):  # Perl's open(F, ">path"): the mode stays
        return m.group(0) + "_" * (len(text) - m.end())
    return "_" * len(text)


# Calls made through a name held in a string: getattr(shutil, 'rmtree')(...), fs['rmSync'](...),
# FileUtils.send(:rm_rf, ...) / .public_send("rm_rf", ...): the name is code, so it is put back.
_DYNAMIC = (re.compile(r"""\bgetattr\s*\(\s*([\w.]+)\s*,\s*['"](\w+)['"]"""),
            re.compile(r"""([\w.$]+)\s*\[\s*['"`](\w+)['"`]\s*\]\s*\("""),
            re.compile(r"""([\w.:]+)\.(?:send|public_send|__send__|method)\s*\(?\s*['":](\w+)"""))


def dynamic_calls(code: str) -> str:
    """``obj.name(`` for each call the code makes through a name spelled as a string."""
    return " ".join(f"{m.group(1)}.{m.group(2)}(" for rx in _DYNAMIC for m in rx.finditer(code))


# --- computed paths ------------------------------------------------------------------------------
_Q = r"""['"]"""
# The working directory as a value, in each language's spelling.
_CWD = (r"\bos\.getcwdb?\(\)|\bPath\.cwd\(\)|\bPath\(\s*(?:" + _Q + r"\.?" + _Q + r")?\s*\)\.(?:resolve|absolute)\(\)"
        r"|\bos\.path\.(?:abspath|realpath)\(\s*(?:" + _Q + r"\.?" + _Q + r"|os\.curdir)\s*\)|\bos\.curdir\b"
        r"|\bprocess\.cwd\(\)|\bDeno\.cwd\(\)|\bpath\.resolve\(\s*(?:" + _Q + r"\.?" + _Q + r")?\s*\)"
        r"|\bDir\.(?:pwd|getwd)\b|\bFile\.expand_path\(\s*" + _Q + r"\.?" + _Q + r"\s*\)|\b(?:Cwd::)?(?:get)?cwd\b(?:\(\))?"
        r"|\bgetcwd\(\)|\babs_path\(\s*" + _Q + r"\.?" + _Q + r"\s*\)|__dir__|__DIR__|__dirname|\$ENV\{\s*PWD\s*\}"
        r"|\bPathname\.(?:pwd|getwd)\b|\b(?:process\.env|environ|ENV|env)\s*(?:\.get\(|\.fetch\(|\[|\.)\s*" + _Q + r"?PWD\b")
# Parent operations around the working directory: dirname(...) / os.path.split(...) before it,
# .parent / .parents[n] / .rsplit('/', 1)[0] / .split('/')[:-n] after it (Path(os.getcwd()).parent too).
_DIRNAME = re.compile(r"(?:(?:\b(?:os\.)?path\.|\bFile\.|\bFile::Basename::)?\b(?:dirname|split)\s*\(\s*)+$")
_AFTER = re.compile(r"^(?:\s*\))?(?:\s*\.(?:resolve|absolute|realpath|expand_path)\(\))*(?:((?:\s*\.parent\b(?!s))+)"
                    r"|\s*\.parents\s*\[\s*(\d+)\s*\]|\s*\.(?:rsplit|rpartition)\s*\([^()]*\)\s*\[\s*0\s*\]"
                    r"|\s*\.split\s*\([^()]*\)\s*\[\s*:\s*-\s*(\d+)\s*\])")
_PARDIR = re.compile(r"\bos\.pardir\b|\bpardir\b|File::Spec->updir\b|\bupdir\(\)")
_HOME = re.compile(r"\bPath\.home\(\)|\bexpanduser\b|\bexpand_user\b|\bos\.homedir\(\)|\bhomedir\(\)|\bDir\.home\b"
                   r"|\bFile\.expand_path\(\s*" + _Q + r"~|\$ENV\{\s*HOME\s*\}|\bgetenv\(\s*" + _Q + r"(?:HOME|USERPROFILE)"
                   r"|\b(?:environ|ENV|env)\s*(?:\.get\(|\.fetch\(|\[|\.)\s*" + _Q + r"?(?:HOME|USERPROFILE)\b"
                   r"|\bDeno\.env\.get\(\s*" + _Q + r"HOME|\bhome_dir\(\)|\bFile::HomeDir\b|\$_SERVER\[\s*" + _Q + r"HOME")
# Calls that touch the file system (open, list, copy, move, stat, change directory ...).
_TOUCHES = re.compile(r"\b(?:open\w*|fopen|read\w*|write\w*|listdir|scandir|iterdir|walk|r?glob\w*|copy\w*|move"
                      r"|rename\w*|chdir|children|entries|each_child|foreach|file_get_contents|file_put_contents"
                      r"|exists?\w*|is_?(?:file|dir)|stat\w*|lstat|load|unlink\w*|remove\w*|rmtree|mkdir\w*|makedirs"
                      r"|touch|tarfile|zipfile|make_archive|createReadStream|createWriteStream|sendfile|slurp"
                      r"|cp\w*|rm\w*|mv|symlink\w*|link\w*|access)\b|\bDir\s*\[|<\s*\$?\w*\s*>|-[efdrs]\s+\$?\w")
_ASSIGN = r"(?:\b(?:my|our|local|const|let|var)\s+)?([$@]?[A-Za-z_]\w*)\s*:?=\s*"


def computed_paths(code: str) -> list[str]:
    """Path words (``..``, ``../..``, ``~``) for the places outside the current directory that
    ``code`` computes, when it also touches the file system; ``[]`` otherwise."""
    if not code or not _TOUCHES.search(code):
        return []
    cwd = _CWD
    for name in re.findall(_ASSIGN + r"(?:" + _CWD + r")\s*(?:;|\n|$|,)", code):  # base = os.getcwd()
        cwd += r"|(?<![\w$@])" + re.escape(name) + r"\b(?!\s*=[^=])"
    out = [_parents(code, m) for m in re.finditer(cwd, code)]
    out += [".."] if _PARDIR.search(code) else []
    out += ["~"] if _HOME.search(code) else []
    return list(dict.fromkeys(p for p in out if p))


def _parents(code: str, m: re.Match[str]) -> str:
    """``..`` once per parent operation applied to the working directory at ``m``."""
    before = _DIRNAME.search(code[:m.start()])
    levels = len(re.findall(r"dirname|split", before.group(0))) if before else 0
    after = _AFTER.match(code[m.end():])
    if after and after.group(1):
        levels += after.group(1).count(".parent")
    elif after:
        levels += int(after.group(2)) + 1 if after.group(2) else int(after.group(3) or 1)
    return "/".join([".."] * levels)
