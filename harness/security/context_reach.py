"""What the commands of a context file can reach: secret data carried to a network address, and
code fetched from a bare address executed (context scanner, ``exfil_by_capability``).

The program does not matter (``git ls-remote``, ``host``, ``pip --index-url``, a Lua socket,
``gawk``'s ``/inet/tcp`` ...): each command (a code span, a line of a fenced block) is parsed
as the shell reads it (``harness.shell``) and judged by data flow. A command sends a secret when
it has a *secret source* (a credentials file read as data: an argument, ``< file``, ``@file``, a
pipe from a command that reads one; or the whole environment) and a *network destination* (a
URL, an IP address, ``user@host``, ``/dev/tcp``, a host name in a string of code, a DNS name
built from a substitution), or when its destination is built from a secret. A file the command
*uses* (``ssh -i key``, ``--env-file .env``, ``-o .env``) is not sent. Code fetched from a remote
IP address and executed (``| sh``, ``bash <(...)``, ``iex (irm ...)``) is reported too.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from itertools import groupby

from harness.security import context_signals as sig
from harness.security.context_sentences import FENCE, fence_flags
from harness.shell import SimpleCommand, expand, parse, program

_SPAN = re.compile(r"(`+)(.+?)\1")
_MAX_COMMAND = 4_000
"""Longer pieces are not parsed (bashlex is slow on huge input); the line patterns still run."""
_URL = re.compile(r"\b(?!file:)[a-z][a-z0-9+.-]{1,15}://[^\s'\"`<>]*", re.I)
_IPV4 = re.compile(r"(?<![\w.=-])(?!0\.0\.0\.0\b)(?:25[0-5]|2[0-4]\d|1?\d?\d)(?:\.(?:25[0-5]|2[0-4]\d|1?\d?\d)){3}(?![\w.])")
_USER_HOST = re.compile(r"(?<![\w.@-])[\w.+-]+@(?:[a-z0-9-]+\.)+[a-z]{2,}\b|(?<![\w.@-])[\w.+-]+@[\w.-]+:", re.I)
_SOCKET_PATH = re.compile(r"/dev/(?:tcp|udp)/|/inet[46]?/(?:tcp|udp)/", re.I)
# A DNS name built from a substitution: "$(head -c 30 .env | xxd -p).t.example.org".
_BUILT_NAME = re.compile(r"[)`}]\.(?:[a-z0-9-]+\.)+[a-z]{2,}\b", re.I)
_SUBSTITUTION = re.compile(r"\$\(|\$\{|`|\$\(\(")
_ENV_DUMP = {"env", "printenv", "export", "set", "compgen", "declare"}


def reach_findings(text: str) -> list[sig.Finding]:
    """One finding per line of ``text`` whose command carries secret data to a network address,
    or executes code fetched from a bare IP address."""
    out: dict[int, sig.Finding] = {}
    for line, command in commands(text):
        if line in out or len(command) > _MAX_COMMAND:
            continue
        what = _judge(command)
        if what:
            out[line] = sig.Finding("network-send", what, 1.0, line)
    return [out[n] for n in sorted(out)]


def commands(text: str) -> Iterator[tuple[int, str]]:
    """``(line, command)``: each code span, and each logical line of a fenced code block. A block
    that feeds a here-document to a program is read whole as well: the script's lines (read a
    secret here, send it there) are one program."""
    lines = text.split("\n")
    flags = fence_flags(lines)
    for inside, run in groupby(range(len(lines)), key=lambda i: flags[i] and not FENCE.match(lines[i])):
        numbers = list(run)
        if not inside:
            yield from ((i + 1, m.group(2)) for i in numbers if not flags[i] for m in _SPAN.finditer(lines[i]))
            continue
        block = "\n".join(lines[i] for i in numbers)
        yield from ((numbers[0] + n, line) for n, line in sig.logical_lines(block))
        if "<<" in block:
            yield numbers[0] + 1, block


def _judge(command: str) -> str:
    if not (_secret_file(command) or sig.regex("env-word").search(command) or sig.regex("fetch").search(command)):
        return ""  # cheap pre-check: nothing to send and nothing fetched
    parsed = parse(command)
    carriers: set[tuple[str, ...]] = set()
    for top in parsed.commands:
        for cmd in expand(top):
            if _carries(cmd, carriers):
                carriers.add(tuple(cmd.argv))
            words = _used_masked(cmd)
            if _sends(cmd, words, carriers):
                return "sends a secret or credentials file over the network"
    remote = [ip for ip in _IPV4.findall(command) if not ip.startswith("127.")]
    if remote and sig.regex("fetch").search(command) and sig.regex("exec-remote").search(command):
        return "executes code fetched from a bare network address"
    return ""


# Code: a word with calls or statements.
_CODE_LIKE = re.compile(r"(?<!\$)[({]|;")


def _secret_file(word: str) -> bool:
    return any(p.regex.search(word) for p in sig.patterns("secret_file_source"))


def _used_masked(cmd: SimpleCommand) -> str:
    return sig.regex("used-option").sub(" ", " ".join(cmd.argv[1:]))


def _carries(cmd: SimpleCommand, carriers: set[tuple[str, ...]]) -> bool:
    """The command's output holds secret data: it reads a secret file or dumps the environment,
    or it reads the output of one that does."""
    if not cmd.argv:
        return False
    prog = program(cmd.argv)
    if prog in _ENV_DUMP and (len(cmd.argv) == 1 or prog in ("env", "printenv") and all(
            a.startswith("-") for a in cmd.argv[1:])):
        return True  # the whole environment
    if tuple(cmd.piped_from) in carriers:
        return True
    return _secret_file(_used_masked(cmd)) or any(op == "<" and _secret_file(t) for op, t in cmd.redirects)


def _sends(cmd: SimpleCommand, words: str, carriers: set[tuple[str, ...]]) -> bool:
    """The command has a network destination and secret data: in its arguments, its input, or
    in the destination word itself."""
    targets = " ".join([words, cmd.stdin_text, *(t for op, t in cmd.redirects if op in (">", ">>"))])
    if not _destination(targets):
        return False
    if any(_SUBSTITUTION.search(w) and _destination(w) and (_secret_file(w) or sig.regex("env-word").search(w)) for w in cmd.argv[1:]):
        return True  # the address is built from the secret (a URL path, a DNS label)
    plain = sig.regex("used-option").sub(" ", " ".join(w for w in cmd.argv[1:] if not _CODE_LIKE.search(w)))
    if _secret_file(plain):
        return True  # a secret file handed to a program that reaches an address
    code = " ".join([*cmd.argv[1:], cmd.stdin_text])
    reads = sig.regex("code-secret").search(code) or _secret_file(words + " " + cmd.stdin_text)
    if reads and sig.regex("code-verb").search(code):
        return True  # a script that reads a secret file and talks to an address
    return tuple(cmd.piped_from) in carriers or any(op == "<" and _secret_file(t) for op, t in cmd.redirects)


def _destination(text: str) -> bool:
    return bool(_URL.search(text) or _IPV4.search(text) or _USER_HOST.search(text) or _SOCKET_PATH.search(text)
                or sig.regex("code-host").search(text) or _BUILT_NAME.search(text))
