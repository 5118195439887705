"""Working-tree files removed as a side effect, and files moved out of the workspace (shell-aware guard).

Some programs delete files without being deletion commands: a version-control tool asked to
set the working tree aside or back (``git stash --include-untracked`` sweeps untracked files
away, ``git restore .`` / ``git checkout -- dir`` / ``git switch --discard-changes`` / ``hg
update --clean`` / ``svn revert -R`` discard uncommitted work, ``git clean`` / ``hg purge`` /
``svn cleanup --remove-unversioned`` delete what is not tracked), or an archiver or copier told
to delete what it has packed or sent (``tar --remove-files``, ``zip -m``, ``7z -sdel``, ``rar
m``, ``rsync --remove-source-files``). Each tool is judged by its subcommand and the option
that has the side effect, in any spelling (clusters, abbreviations of long options), so the
same tools used for their main job (``git stash list``, ``git restore --staged f``, ``git
checkout -b x``, ``tar czf a.tgz d``, ``rsync -a d/ e/``, dry runs) pass.

A move whose destination is outside the workspace (a temp dir from ``mktemp`` or ``$TMPDIR``,
``/tmp``, ``/var/tmp``, ``/dev/shm``) takes the files away as surely as a deletion; the path
guard sees destinations it can resolve, but not a directory the shell computes when the line
runs, so the command guard reads those words (and variables the line assigns from them).
"""

from __future__ import annotations

import re

_TEMP = re.compile(r"^(?:\$\{?(?:TMPDIR|TMP|TEMP|TEMPDIR|XDG_RUNTIME_DIR)\b|/tmp(?:/|$)|/var/tmp(?:/|$)|/dev/shm(?:/|$)"
                   r"|/private/tmp(?:/|$))|\$\(\s*mktemp\b|`\s*mktemp\b")
"""A word that names a temporary place: ``$(mktemp -d)``, ``"$TMPDIR/x"``, ``${TMPDIR:-/tmp}``, ``/tmp/x``."""
_TEMP_VAR = "$TMPDIR"
"""How a variable the line assigned a temporary place is spelled once rewritten (``d=$(mktemp -d)``)."""


def temp_place(word: str) -> bool:
    return bool(_TEMP.search(word))


def temp_variables(assignments: list[str], known: set[str]) -> None:
    """Add to ``known`` each ``NAME`` of ``NAME=value`` whose value is a temporary place."""
    for a in assignments:
        name, _, value = a.partition("=")
        if re.fullmatch(r"[A-Za-z_]\w*", name) and (temp_place(value) or _uses(value, known)):
            known.add(name)


def with_temp_variables(argv: list[str], known: set[str]) -> list[str]:
    """``argv`` with words that start with a known temp variable spelled ``$TMPDIR...``."""
    return [_TEMP_VAR + w[m.end():] if (m := _uses(w, known)) else w for w in argv] if known else argv


def _uses(word: str, known: set[str]) -> re.Match[str] | None:
    if not known:
        return None
    names = "|".join(re.escape(n) for n in sorted(known))
    return re.match(r"\$(?:\{(?:" + names + r")\}|(?:" + names + r")\b)", word)


def _split(args: list[str], value_opts: frozenset[str] | set[str] = frozenset()) -> tuple[set[str], list[str]]:
    """Short flag letters, long flags (without ``=value``) and operands; ``value_opts`` take the next word."""
    flags, operands, done, skip = set(), [], False, False
    for a in args:
        if skip:
            skip = False
        elif done or not a.startswith("-") or a == "-":
            operands.append(a)
        elif a == "--":
            done = True
        elif a.startswith("--"):
            flags.add(a.split("=", 1)[0])
        else:
            flags.update(a[1:])
            skip = a in value_opts
    return flags, operands


def _long(flags: set[str], option: str, shortest: int = 5) -> bool:
    """``option`` given in full or as an unambiguous prefix (GNU getopt accepts ``--remove-f``)."""
    return any(len(f) >= shortest and option.startswith(f) for f in flags if f.startswith("--"))


_VCS = {"hg", "svn", "fossil", "bzr", "brz"}
_ARCHIVERS = {"tar", "gtar", "bsdtar", "zip", "7z", "7za", "7zr", "7zz", "rar", "winrar", "rsync"}


def side_effect_rule(prog: str, args: list[str]) -> str | None:
    """The rule ``prog args`` breaks by deleting or moving away working-tree files, or None."""
    if prog == "git":
        return git_side_effect(args)
    if prog in _VCS:
        return other_vcs_rule(prog, args)
    if prog in _ARCHIVERS:
        return archive_rule(prog, args)
    return move_out(args) if prog == "mv" else None


# --- archivers and copiers that delete what they pack or send --------------------------------
def archive_rule(prog: str, args: list[str]) -> str | None:
    flags, operands = _split(args)
    if prog in ("tar", "gtar", "bsdtar") and _long(flags, "--remove-files"):
        return "archive-remove"
    if prog == "zip" and ("m" in flags or "--move" in flags):
        return "archive-remove"
    if prog in ("7z", "7za", "7zr", "7zz") and "-sdel" in args:
        return "archive-remove"
    if prog in ("rar", "winrar") and (operands[:1] in (["m"], ["mf"]) or any(a.lower() == "-df" for a in args)):
        return "archive-remove"
    if prog == "rsync" and _long(flags, "--remove-source-files", 9) and not ("n" in flags or "--dry-run" in flags):
        return "archive-remove"
    return None


# --- version control: discarding work or sweeping files away ---------------------------------
_GIT_VALUE_OPTS = {"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path", "--config-env"}
_STASH_READS = {"list", "show", "apply", "pop", "branch", "drop", "clear", "create", "store"}
_WIDE = {".", "./", "..", "*", ":/", ":", ":/*", "./*", "/"}


def git_side_effect(args: list[str]) -> str | None:
    """``git stash -u/-a``, whole-tree ``restore``/``checkout``, forced switches, ``clean`` (any, unless a dry run)."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        i += 2 if args[i] in _GIT_VALUE_OPTS else 1
    if i >= len(args):
        return None
    sub, rest = args[i], args[i + 1:]
    if sub == "stash":
        if rest[:1] and rest[0] in _STASH_READS:
            return None
        flags, _ = _split(rest[1:] if rest[:1] and rest[0] in ("push", "save") else rest, {"-m"})
        return "git-discard" if flags & {"u", "a", "--include-untracked", "--all"} else None
    if sub == "clean":
        flags, _ = _split(rest, {"-e", "--exclude"})
        return None if flags & {"n", "--dry-run", "i", "--interactive"} else "git-clean"
    if sub == "switch":
        flags, _ = _split(rest, {"-c", "-C", "--create", "--force-create"})
        return "git-discard" if flags & {"f", "--force", "--discard-changes"} else None
    if sub == "checkout":
        return _checkout(rest)
    if sub == "restore":
        flags, paths = _split(rest, {"-s", "--source"})
        staged_only = flags & {"S", "--staged"} and not flags & {"W", "--worktree"}
        return "git-discard" if not staged_only and ("--pathspec-from-file" in flags or _any_wide(paths, True)) else None
    return None


def _checkout(rest: list[str]) -> str | None:
    flags, operands = _split(rest, {"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"})
    if flags & {"p", "--patch"}:
        return None  # asks hunk by hunk
    if flags & {"f", "--force"}:
        return "git-discard"
    if "--" in rest:
        return "git-discard" if _any_wide(rest[rest.index("--") + 1:], True) else None
    return "git-discard" if _any_wide(operands, False) else None


def _any_wide(paths: list[str], named: bool) -> bool:
    """A pathspec covering many files: the whole tree, a glob, a folder (``dir/``; with ``named``,
    also a word with no extension, which names a folder far more often than a file)."""
    for p in paths:
        base = p.rstrip("/").rsplit("/", 1)[-1]
        if p in _WIDE or p.startswith((":/", ":(")) or re.search(r"[*?\[]", p) or p.endswith("/"):
            return True
        if named and base and "." not in base.lstrip("."):
            return True
    return False


def other_vcs_rule(prog: str, args: list[str]) -> str | None:
    """Mercurial, Subversion, Fossil and Bazaar/Breezy spellings of the same acts."""
    sub, rest = (args[0], args[1:]) if args else ("", [])
    flags, operands = _split(rest)
    if prog == "hg":
        if sub in ("purge", "clean") and not flags & {"p", "--print", "--print0"}:
            return "vcs-discard"
        if sub in ("update", "up", "checkout", "co") and flags & {"C", "--clean"}:
            return "vcs-discard"
        if sub == "revert" and (flags & {"C", "--no-backup"}) and (flags & {"a", "--all"} or _any_wide(operands, True)):
            return "vcs-discard"
    if prog == "svn":
        if sub == "cleanup" and flags & {"--remove-unversioned", "--remove-ignored"}:
            return "vcs-discard"
        if sub == "revert" and (flags & {"R", "--recursive"} or "--depth=infinity" in rest or _any_wide(operands, True)):
            return "vcs-discard"
    if prog == "fossil" and (sub == "clean" and not flags & {"n", "--dry-run"}
                             or sub == "revert" and (not operands or _any_wide(operands, True))):
        return "vcs-discard"
    if prog in ("bzr", "brz") and (sub == "clean-tree" and not flags & {"--dry-run"}
                                   or sub == "revert" and (not operands or _any_wide(operands, True))):
        return "vcs-discard"
    return None


# --- moves out of the workspace ---------------------------------------------------------------
def move_out(args: list[str]) -> str | None:
    """``mv SRC... DEST`` / ``mv -t DEST SRC...`` with a temporary place as the destination and a
    source that is not one (bringing a temp file in is fine)."""
    target, rest, i = None, [], 0
    while i < len(args):
        a = args[i]
        if a in ("-t", "--target-directory") and i + 1 < len(args):
            target, i = args[i + 1], i + 2
            continue
        if a.startswith("--target-directory="):
            target = a.split("=", 1)[1]
        elif a.startswith("-t") and len(a) > 2 and not a.startswith("--"):
            target = a[2:]
        else:
            rest.append(a)
        i += 1
    _, operands = _split(rest, {"-S", "--suffix"})
    if target is None and len(operands) >= 2:
        target, operands = operands[-1], operands[:-1]
    if target is not None and temp_place(target) and any(not temp_place(o) for o in operands):
        return "move-out"
    return None
