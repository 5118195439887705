"""Interpreter one-liners judged by their code, not by the text their literals hold.

A read-only scan (``perl -ne 'print if /rm -rf|rmtree/'``, ``ruby -ne 'puts $_ if
$_ =~ /File.delete/'``, ``awk '/unlink/'``, ``python3 -c "...re.search(r'shutil.rmtree', l)"``)
mentions destructive calls inside a regex or a string; the capability checks of the command
guard (its ``code`` entries, open-for-writing, starts-a-process) must see the code only. ``mask``
blanks the *contents* of string literals and of regex literals (Perl ``/re/``, ``m{re}``,
``qr/re/``, ``s/a/b/``; Ruby ``%r{}``; JavaScript and awk ``/re/``) with underscores, keeping
their length and delimiters, so what remains outside them (``unlink``, ``os.remove(``,
``system(``) is what the program calls. A literal the checks need as a value stays: an empty
one, a short open mode (``'w'``, ``'>'``, ``"+>"``), a device path (``'/dev/null'``), and the
mode prefix of Perl's two-argument ``open(F, ">path")``.

No parser per language: one small scanner over the quoting and regex-literal rules these
languages share is enough to tell a literal from code, and a mistake only blanks more text
(the strings handed to a shell are still judged as commands, on the unmasked code).
"""

from __future__ import annotations

import re

_REGEX_LANGS = re.compile(r"^(?:perl|ruby|node(?:js)?|deno|bun|ts-node|tsx|esno|qjs|awk|gawk|mawk|nawk|busybox-awk)$")
# After these (the last token before a '/'), a '/' starts a regex literal, not a division.
_BEFORE_REGEX = re.compile(r"(?:^|[(,=~!&|{};:?\[+\-*%<>^]|\b(?:if|unless|and|or|not|return|split|grep|when|while"
                           r"|until|map|join|print|puts|match|scan|sub|gsub|index))\s*$")
_QUOTE_LIKE = {"perl": re.compile(r"(?<![\w$@%&>-])(?:m|qr|qq|qw|q|s|tr|y)(?=[/{(\[<!|#~@^:\"'])"),
               "ruby": re.compile(r"(?<![\w$@])%[rqQwWi](?=[/{(\[<!|])")}
_PAIRS = {"{": "}", "(": ")", "[": "]", "<": ">"}
_KEEP = re.compile(r"^(?:[rwabxt+<>]{0,3}|/dev/\S*)$")


def mask(code: str, prog: str) -> str:
    """``code`` with the contents of its string and regex literals blanked (see the module doc)."""
    regexes = bool(_REGEX_LANGS.match(prog))
    quote_like = _QUOTE_LIKE.get(prog)
    out, i, n = [], 0, len(code)
    while i < n:
        ch = code[i]
        if ch == "#" and prog.startswith(("python", "pypy", "ruby", "perl", "Rscript", "julia", "elixir", "raku")) and _line_start_or_space(code, i):
            end = code.find("\n", i)
            end = n if end < 0 else end
            out.append("_" * (end - i))  # a comment is not code either
            i = end
            continue
        if ch in "'\"`":
            end = _closing(code, i + 1, ch)
            out.append(ch + _blank(code[i + 1:end]) + code[end:end + 1])
            i = end + 1
            continue
        if quote_like and (m := quote_like.match(code, i)):
            end = _quote_like_end(code, m.end(), m.group(0))
            out.append(code[i:m.end() + 1] + "_" * max(0, end - m.end() - 1))
            i = end
            continue
        if regexes and ch == "/" and _BEFORE_REGEX.search("".join(out[-40:])[-40:]) and not code.startswith("//", i):
            end = _closing(code, i + 1, "/")
            out.append("/" + "_" * (end - i - 1) + code[end:end + 1])
            i = end + 1
            continue
        out.append(ch)
        i += 1
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
