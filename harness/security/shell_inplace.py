"""In-place editors that empty the files they edit (``sed -i``, ``perl -i``, ``ruby -i``, ``vim``/``ex``).

An in-place edit rewrites a file with the editor's output; when the script keeps no line, the
file is emptied as surely as by ``: > file``. The script is read, not pattern-matched as text:
``sed`` scripts are split into commands with their addresses (GNU sed's grammar), and a command
that deletes (``d``, ``D``, ``c``, ``Q``) or blanks (``s/.*//``) lines counts only when its
address covers every line, or all but the first or last (``1,$``, ``2,$``, ``$!``, a regex that
matches any text such as ``/^/`` or ``/./``). ``-n`` with no command that prints keeps nothing.
So ``sed -i '/DEBUG/d'``, ``sed -i 1d``, ``sed -n -i '/x/p'`` and ``sed -i '/x/!d'`` (filters)
are ordinary edits, and an edit that keeps a backup (``-i.bak``) destroys nothing.
"""

from __future__ import annotations

import posixpath
import re

_PROBE = ["id,name,email", "1,Ada,ada@example.com", "  indented text", "# a comment", "x", "12345",
          "DEBUG something happened", "last line of the file"]
"""Lines of ordinary text: a regex address that matches all of them matches any line."""
_PRINTS = set("pPl=airRwW")
"""Commands that output text of their own (``c`` replaces the line's text: it destroys it)."""
_ADDR = re.compile(r"\s*(?:(?P<a1>\d+(?:~\d+)?|\$|/(?:[^/\\]|\\.)*/I?M?|\\(?P<d>.)(?:(?!(?P=d)).)*(?P=d))"
                   r"(?:\s*,\s*(?P<a2>\d+|\$|[+~]\d+|/(?:[^/\\]|\\.)*/I?M?))?)?\s*(?P<neg>!)?\s*")


def keeps_nothing(prog: str, args: list[str], stdin: str = "", fed: bool = False) -> bool:
    """Whether this in-place edit keeps no line of the file it rewrites.
    ``stdin``: the editor script the line feeds it (here-document, here-string, ``printf |``);
    ``fed``: ``xargs``/``find -exec`` add the file operands."""
    if prog in ("sed", "gsed"):
        return _sed(args, fed)
    if prog in ("perl", "ruby"):
        return _perl_like(args, fed)
    if prog in ("vim", "vi", "nvim", "ex", "view", "ed", "red"):
        return _ex_like(args, stdin, fed)
    if prog in ("awk", "gawk"):
        return _awk(args, fed)
    return False


def _sed(args: list[str], fed: bool) -> bool:
    scripts, files, inplace, quiet, extended, i = [], [], False, False, False, 0
    while i < len(args):
        a = args[i]
        name, eq, value = a.partition("=")
        if a in ("-e", "--expression") and i + 1 < len(args):
            scripts.append(args[i + 1])
            i += 1
        elif name == "--expression" and eq:
            scripts.append(value)
        elif name == "--in-place":
            if value:
                return False  # a backup is kept
            inplace = True
        elif a in ("-n", "--quiet", "--silent"):
            quiet = True
        elif a in ("-E", "-r", "--regexp-extended"):
            extended = True
        elif a in ("-f", "--file"):
            return False  # the script is in a file this line does not show
        elif a.startswith("-") and not a.startswith("--") and len(a) > 1:
            letters, in_place, suffix = a[1:].partition("i")
            if suffix:
                return False  # -i.bak, -ibak, -ie: a backup is kept
            inplace |= bool(in_place)
            quiet |= "n" in letters
            extended |= bool(set(letters) & {"E", "r"})
            if letters.endswith("e") and i + 1 < len(args):
                scripts.append(args[i + 1])
                i += 1
        elif not a.startswith("-"):
            files.append(a)
        i += 1
    if not inplace:
        return False
    if not scripts and files:
        scripts.append(files.pop(0))
    if not files and not fed:
        return False
    return _keeps_nothing("\n".join(scripts), quiet, extended)


def _commands(script: str, extended: bool) -> list[tuple[re.Match[str], str, str, bool]]:
    """``(address match, command letter, rest, inside)`` for each command of a sed script;
    ``inside`` is False when an enclosing ``{ }`` block's address does not cover every line."""
    out: list[tuple[re.Match[str], str, str, bool]] = []
    blocks: list[bool] = []
    i = 0
    while i < len(script):
        if script[i] in " \t\n;":
            i += 1
            continue
        if script[i] == "}":
            blocks = blocks[:-1]
            i += 1
            continue
        m = _ADDR.match(script, i)
        assert m is not None  # every part of the address pattern is optional
        j = m.end()
        if j >= len(script):
            break
        if script[j] == "{":
            blocks.append(_coverage(m, extended) != "")
            i = j + 1
            continue
        end = _command_end(script, j)
        out.append((m, script[j], script[j + 1:end], all(blocks)))
        i = end
    return out


def _command_end(script: str, j: int) -> int:
    letter = script[j]
    if letter in "aic":  # text to the end of the line
        nl = script.find("\n", j)
        return len(script) if nl < 0 else nl
    k = j + 1
    if letter in "sy" and j + 1 < len(script):
        delim, k, parts = script[j + 1], j + 2, 0
        while k < len(script) and parts < 2:
            if script[k] == "\\":
                k += 1
            elif script[k] == delim:
                parts += 1
            k += 1
    while k < len(script) and script[k] not in ";\n}":
        k += 1
    return k


def _keeps_nothing(script: str, quiet: bool, extended: bool) -> bool:
    """No line survives: ``-n`` and nothing printed, or a command that deletes or blanks lines
    on an address covering them all, with nothing printed before. Deleting all but one line
    counts only when the script keeps no lines aside (``1!G;h;$!d`` reverses the file)."""
    commands = _commands(script, extended)
    letters = {letter for _, letter, _, _ in commands}
    prints = any(letter in _PRINTS or letter == "s" and set("".join(_s_parts(rest)[2:3])) & set("pwe")
                 for _, letter, rest, _ in commands)
    if quiet or prints:
        return not prints
    aside = bool(letters & set("hHgGxNn"))
    for m, letter, rest, inside in commands:
        cover = _coverage(m, extended) if inside else ""
        destroys = letter in "dcQ" or letter == "D" and "N" not in letters or letter == "s" and _blanks(rest, extended)
        if destroys and (cover == "all" or cover == "most" and not aside):
            return True
    return False


def _s_parts(rest: str) -> list[str]:
    return re.split(rf"(?<!\\){re.escape(rest[0])}", rest[1:]) if rest else []


def _coverage(m: re.Match[str], extended: bool) -> str:
    """``"all"`` when an address selects every line, ``"most"`` for all but the first or the
    last, ``""`` otherwise."""
    a1, a2, neg = m.group("a1"), m.group("a2"), bool(m.group("neg"))
    if not a1:
        return "" if neg else "all"
    if neg:  # `$!d`, `1!d`: all but one line
        return "most" if not a2 and a1 in ("$", "1") else ""
    if a2:
        if a2 != "$":
            return ""
        return "all" if a1 in ("0", "1") or _universal(a1, extended) else "most" if a1 == "2" else ""
    if "~" in a1:
        first, step = a1.split("~")
        return "all" if step == "1" and first in ("0", "1") else ""
    return "all" if _universal(a1, extended) else ""


def _universal(address: str, extended: bool) -> bool:
    """A regex address that matches every line of ordinary text."""
    if address.startswith("/"):
        body = address[1:address.rindex("/")]
    elif address.startswith("\\") and len(address) > 2:
        body = address[2:address.rindex(address[1])]
    else:
        return False
    rx = _python_regex(body, extended)
    return rx is not None and all(rx.search(line) for line in _PROBE)


def _blanks(rest: str, extended: bool) -> bool:
    """``s/REGEX/REPL/``: the regex takes every line's whole text and the replacement is blank."""
    parts = _s_parts(rest)
    if len(parts) < 2 or parts[1].strip():
        return False
    rx = _python_regex(parts[0], extended)
    return rx is not None and all(not rx.sub("", line, count=1).strip() for line in _PROBE)


def _python_regex(body: str, extended: bool) -> re.Pattern[str] | None:
    """A sed regex (basic or extended) as a Python regex; None when it cannot be read."""
    if not extended:  # BRE: \( \) \{ \} \+ \? \| are the operators; bare ones are literal
        body = re.sub(r"\\([(){}+?|])|([(){}+?|])", lambda m: m.group(1) or "\\" + m.group(2), body)
    body = body.replace("[[:space:]]", r"\s").replace("[[:alnum:]]", "[A-Za-z0-9]")
    try:
        return re.compile(body)
    except re.error:
        return None


def _perl_like(args: list[str], fed: bool) -> bool:
    """``perl -i -ne CODE FILE`` / ``perl -pi -e CODE FILE`` (ruby alike) with no backup."""
    inplace = loop = ""
    code, files, i = None, [], 0
    while i < len(args):
        a = args[i]
        if a.startswith("-") and not a.startswith("--") and len(a) > 1 and code is None or a in ("-e", "-E"):
            letters, in_place, suffix = a[1:].partition("i")
            if suffix:
                return False  # -i.bak (and -pie: backup suffix "e") keeps a backup
            inplace = inplace or in_place
            loop += "".join(ch for ch in letters if ch in "np")
            if letters.endswith(("e", "E")) and i + 1 < len(args):
                code = (code + "\n" if code else "") + args[i + 1]
                i += 1
        elif not a.startswith("-"):
            files.append(a)
        i += 1
    if not inplace or code is None or not (files or fed):
        return False
    if "p" in loop:  # prints each line unless the code blanks it
        blank = re.search(r"\$_\s*=\s*(?:\"\"|''|q[qw]?\s*[({\[/]\s*[)}\]/]|undef\b)|\bundef\s*\(?\s*\$_|\$_\s*=\s*\(\)", code)
        conditional = re.search(r"\b(?:if|unless)\b|&&|\|\||\?", code)
        return bool(blank) and not conditional
    return "n" in loop and not re.search(r"\b(?:print|printf|say|puts|syswrite|write)\b|\$stdout|\bp\b", code)


_WHOLE = re.compile(r"^\s*:?\s*(?:%|,|1\s*,\s*\$|0\s*,\s*\$|g!?/(?:\^|\.\*|\$|\^\.\*|\^\.\*\$|\.)?/)\s*"
                    r"d(?:e(?:l(?:ete?)?)?)?!?\s*$")
_WRITE = re.compile(r"^\s*:?\s*(?:w|wq|x|write|exit|xit|update|wqa|xa)!?\s*$")


def _ex_like(args: list[str], stdin: str, fed: bool) -> bool:
    """``vim -c '%d' -c wq FILE``, ``ex -sc 'g/^/d|x' FILE``, ``ed FILE`` fed ``,d`` and ``w``:
    a delete of the whole buffer followed by a write."""
    commands, files, i = [], [], 0
    while i < len(args):
        a = args[i]
        if (a in ("-c", "--cmd") or a.startswith("-") and a.endswith("c") and len(a) <= 4) and i + 1 < len(args):
            commands += args[i + 1].split("|")
            i += 1
        elif a.startswith("+") and len(a) > 1:
            commands += a[1:].split("|")
        elif not a.startswith("-"):
            files.append(a)
        i += 1
    script = stdin.replace("\\$", "$").replace("\\n", "\n")
    commands += [c for line in script.splitlines() for c in line.split("|")]
    if not files and not fed:
        return False
    wipes = [n for n, c in enumerate(commands) if _WHOLE.match(c)]
    writes = [n for n, c in enumerate(commands) if _WRITE.match(c)]
    return bool(wipes) and bool(writes) and max(writes) > min(wipes)


_AWK_INPLACE = {"inplace", "inplace.awk", "--include=inplace", "-iinplace"}


def _awk(args: list[str], fed: bool) -> bool:
    """``gawk -i inplace PROGRAM FILE`` whose program prints nothing: every rule has an action
    and no action prints (``{}``, ``{ n++ }``, ``BEGIN {...}``)."""
    inplace, program, files, i = False, None, [], 0
    while i < len(args):
        a = args[i]
        if a in ("-i", "--include") and i + 1 < len(args):
            inplace |= posixpath.basename(args[i + 1]) in _AWK_INPLACE
            i += 1
        elif a in _AWK_INPLACE:
            inplace = True
        elif a in ("-f", "--file"):
            return False  # the program is in a file this line does not show
        elif a in ("-v", "-F") and i + 1 < len(args):
            i += 1
        elif not a.startswith("-") and program is None:
            program = a
        elif not a.startswith("-"):
            files.append(a)
        i += 1
    if not inplace or program is None or not (files or fed):
        return False
    if re.search(r"\b(?:print|printf|system|getline)\b|>", program):
        return False
    return _every_rule_has_an_action(program)


def _every_rule_has_an_action(program: str) -> bool:
    """Top-level text outside ``{ }`` is patterns; a pattern not followed by an action prints."""
    depth, pending = 0, ""
    for ch in re.sub(r'"(?:[^"\\]|\\.)*"', '""', program):
        if ch == "{":
            depth += 1
            pending = "" if depth == 1 else pending
        elif ch == "}":
            depth -= 1
        elif depth == 0:
            if ch in ";\n" and pending.strip():
                return False
            pending = "" if ch in ";\n" else pending + ch
    return not pending.strip()
