"""Paths an interpreter one-liner computes (``python -c``, ``node -e``, ``ruby -e``, ``perl -e``,
``php -r``, a script on stdin): the path guard's view of code, beyond its string literals.

Code reaches a file outside the workspace without ever spelling ``..`` or an absolute path:
``open(os.path.join(os.path.dirname(os.getcwd()), 'x'))``, ``Path.cwd().parents[1]``,
``fs.readdirSync(path.dirname(process.cwd()))``, ``os.chdir(os.pardir)``, ``Path.home()``,
``os.homedir()``. ``computed_paths`` reads the path-producing expressions common to these
languages and says where they point, as a path word the guard resolves like any other:

- the working directory with *k* parent operations applied (``dirname(...)`` around it,
  ``.parent``/``.parents[n]``/``.rsplit(...)`` after it, also through a variable assigned the
  working directory earlier in the code) is ``../..`` (k times), relative to the shell's
  current directory, so ``cd src && python3 -c "...dirname(os.getcwd())..."`` stays inside;
- the parent-directory constant (``os.pardir``, ``File::Spec->updir``) is ``..``;
- the home directory (``Path.home()``, ``expanduser``, ``os.homedir()``, ``$ENV{HOME}``,
  ``os.environ['HOME']`` ...) is ``~``.

These count only when the code also touches the file system (opens, lists, copies, changes
directory ...): ``print(Path.cwd().parent)`` prints a name and reads nothing. The reading is
static and textual on purpose: the languages differ, none of the code runs, and a parser per
language would still not follow values through arbitrary code; the forms below are the ones
each language's standard library offers for these three places.
"""

from __future__ import annotations

import re

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
