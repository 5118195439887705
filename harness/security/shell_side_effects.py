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

from harness.shell import split_flags

_TEMP = re.compile(r"^(?:\$\{?(?:\w*_)?(?:TMP|TEMP)(?:_?DIR)?\b|\$\{?XDG_\w+|/tmp(?:/|$)|/var/tmp(?:/|$)|/dev/shm(?:/|$)"
                   r"|/private/tmp(?:/|$))|(?:\$\(|`)[^)`]*\b(?:mktemp|tempfile|mkdtemp|gettempdir|mktmpdir|tmpdir)\b")
"""A word that names a place outside the workspace the line cannot show: a temporary one
(``$(mktemp -d)``, ``"$TMPDIR/x"``, ``$RUNNER_TEMP``, ``/tmp/x``, a command substitution that
asks any language for a temp dir) or a per-user one (``${XDG_CACHE_HOME:-...}``)."""
_TEMP_VAR = "$TMPDIR"
"""How a variable the line assigned a temporary place is spelled once rewritten (``d=$(mktemp -d)``)."""


def temp_place(word: str) -> bool:
    return bool(_TEMP.search(word))


def temp_variables(assignments: list[str], known: dict[str, str]) -> None:
    """Record in ``known`` each ``NAME=value`` of the line: a temporary place as ``$TMPDIR``, any
    other value as written, so ``BUILD_TMP=./build/tmp`` names a folder here, not a temp dir."""
    for a in assignments:
        name, eq, value = a.partition("=")
        if eq and re.fullmatch(r"[A-Za-z_]\w*", name):
            value = with_temp_variables([value], known)[0]
            known[name] = _TEMP_VAR if temp_place(value) else value


def with_temp_variables(argv: list[str], known: dict[str, str]) -> list[str]:
    """``argv`` with words that start with a variable the line assigned spelled with its value."""
    return [known[m.group(1) or m.group(2)] + w[m.end():] if (m := _uses(w, known)) else w for w in argv] if known else argv


def _uses(word: str, known: dict[str, str]) -> re.Match[str] | None:
    if not known or not word.startswith("$"):
        return None
    names = "|".join(re.escape(n) for n in sorted(known))
    return re.match(r"\$(?:\{(" + names + r")\}|(" + names + r")\b)", word)


def _long(flags: set[str], option: str, shortest: int = 5) -> bool:
    """``option`` given in full or as an unambiguous prefix (GNU getopt accepts ``--remove-f``)."""
    return any(len(f) >= shortest and option.startswith(f) for f in flags if f.startswith("--"))


_VCS = {"hg", "svn", "fossil", "bzr", "brz"}
_ARCHIVERS = {"tar", "gtar", "bsdtar", "zip", "7z", "7za", "7zr", "7zz", "rar", "winrar", "rsync"}


_TRASH = {"trash", "trash-put", "gvfs-trash", "rmtrash", "trash-cli"}
_CLOUD_MOVE = {"rclone": {"move", "moveto"}, "gsutil": {"mv"}, "s3cmd": {"mv"}, "mc": {"mv"}}
_CLOUD_DELETE = {"rclone": {"delete", "purge", "deletefile", "rmdirs"}}


def side_effect_rule(prog: str, args: list[str]) -> str | None:
    """The rule ``prog args`` breaks by deleting or moving away working-tree files, or None."""
    if prog in ("rimraf", "del-cli"):  # Node's rm -rf, run through npx
        return "rm-rf" if [a for a in args if not a.startswith("-")] else None
    if prog in _TRASH or prog == "gio" and args[:1] == ["trash"] and not {"--empty", "--list"} & set(args):
        return "move-out" if [a for a in args if not a.startswith("-")] else None
    if rule := _transfer_rule(prog, args):
        return rule
    if prog == "git":
        return git_side_effect(args)
    if prog in _VCS:
        return other_vcs_rule(prog, args)
    if prog in _ARCHIVERS:
        return archive_rule(prog, args)
    return move_out(args) if prog == "mv" else None


def _transfer_rule(prog: str, args: list[str]) -> str | None:
    """``rclone move d remote:``, ``aws s3 mv d s3://b --recursive``, ``gsutil mv``: local sources
    leave the machine; ``rclone purge d`` deletes (dry runs pass)."""
    flags, operands = split_flags(args)
    if {"n", "--dry-run", "--dryrun"} & flags:
        return None
    if prog == "aws" or prog == "gcloud":  # aws s3 mv SRC DST / gcloud storage mv SRC DST
        sub = operands[:2]
        if sub in (["s3", "mv"], ["storage", "mv"]) and len(operands) >= 4 and _local(operands[2]):
            return "move-out"
        return None
    if operands[:1] and operands[0] in _CLOUD_DELETE.get(prog, ()):
        return "bulk-delete"
    if operands[:1] and operands[0] in _CLOUD_MOVE.get(prog, ()) and len(operands) >= 3 and _local(operands[1]):
        return "move-out"
    return None


def _local(word: str) -> bool:
    """A local path, not ``remote:path``, ``s3://...``, ``gs://...``."""
    return "://" not in word and not re.match(r"^[\w.-]+:", word)


# --- archivers and copiers that delete what they pack or send --------------------------------
def archive_rule(prog: str, args: list[str]) -> str | None:
    flags, operands = split_flags(args)
    if prog in ("tar", "gtar", "bsdtar") and _long(flags, "--remove-files"):
        return "archive-remove"
    if prog == "zip" and ("m" in flags or "--move" in flags):
        return "archive-remove"
    if prog in ("7z", "7za", "7zr", "7zz") and "-sdel" in args:
        return "archive-remove"
    if prog in ("rar", "winrar") and (operands[:1] in (["m"], ["mf"]) or any(a.lower() == "-df" for a in args)):
        return "archive-remove"
    removes = _long(flags, "--remove-source-files", 9) or _long(flags, "--remove-sent-files", 9)
    if prog == "rsync" and removes and not ("n" in flags or "--dry-run" in flags):
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
    sub, rest = args[i], _canonical(args[i + 1:], _GIT_LONG.get(args[i], ()))
    if sub == "reset" and "--hard" in rest:  # also `--har`: git takes any unambiguous prefix
        return "git-reset-hard"
    if sub == "stash":
        if rest[:1] and rest[0] in _STASH_READS:
            return None
        flags, _ = split_flags(rest[1:] if rest[:1] and rest[0] in ("push", "save") else rest, {"-m"})
        return "git-discard" if flags & {"u", "a", "--include-untracked", "--all"} else None
    if sub == "clean":
        flags, _ = split_flags(rest, {"-e", "--exclude"})
        return None if flags & {"n", "--dry-run", "i", "--interactive"} else "git-clean"
    if sub == "switch":
        flags, _ = split_flags(rest, {"-c", "-C", "--create", "--force-create"})
        return "git-discard" if flags & {"f", "--force", "--discard-changes"} else None
    if sub == "checkout":
        return _checkout(rest)
    flags, _ = split_flags(rest)
    if sub == "read-tree" and "u" in flags and flags & {"--reset", "m"}:  # rewrites the working tree
        return "git-discard"
    if sub == "checkout-index" and flags & {"f", "--force"} and flags & {"a", "--all"}:
        return "git-discard"
    if sub == "worktree" and rest[:1] == ["remove"] and flags & {"f", "--force"}:
        return "git-discard"
    if sub == "restore":
        flags, paths = split_flags(rest, {"-s", "--source"})
        staged_only = flags & {"S", "--staged"} and not flags & {"W", "--worktree"}
        return "git-discard" if not staged_only and ("--pathspec-from-file" in flags or _any_wide(paths, True)) else None
    return None


_GIT_LONG = {
    "stash": ("--include-untracked", "--all", "--keep-index", "--no-keep-index", "--message", "--quiet", "--patch",
              "--staged", "--pathspec-from-file"),
    "reset": ("--hard", "--soft", "--mixed", "--merge", "--keep", "--quiet", "--patch"),
    "checkout": ("--force", "--patch", "--ours", "--theirs", "--merge", "--detach", "--orphan", "--track", "--quiet",
                 "--pathspec-from-file", "--no-track", "--guess", "--no-guess"),
    "switch": ("--discard-changes", "--force", "--create", "--force-create", "--detach", "--quiet", "--merge",
               "--track", "--no-track", "--guess", "--orphan"),
    "restore": ("--staged", "--worktree", "--source", "--patch", "--ours", "--theirs", "--merge", "--quiet",
                "--pathspec-from-file", "--overlay", "--no-overlay"),
    "clean": ("--dry-run", "--force", "--interactive", "--quiet", "--exclude"),
}


def _canonical(args: list[str], known: tuple[str, ...]) -> list[str]:
    """Long options spelled in full: git (parse-options) accepts any unambiguous prefix."""
    out = []
    for a in args:
        name, eq, value = a.partition("=")
        if a == "--" or not name.startswith("--") or name in known:
            out.append(a)
            if a == "--":
                out += args[len(out):]
                break
            continue
        matches = [k for k in known if k.startswith(name)]
        out.append(matches[0] + eq + value if len(matches) == 1 else a)
    return out


def _checkout(rest: list[str]) -> str | None:
    flags, operands = split_flags(rest, {"-b", "-B", "--orphan", "--conflict", "--pathspec-from-file"})
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
    flags, operands = split_flags(rest)
    if prog == "hg":
        if sub in ("purge", "clean") and not flags & {"p", "--print", "--print0"}:
            return "vcs-discard"
        if sub in ("update", "up", "checkout", "co") and flags & {"C", "--clean"}:
            return "vcs-discard"
        if sub == "shelve" and flags & {"u", "--unknown"}:  # like git stash -u: unknown files leave the tree
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
    _, operands = split_flags(rest, {"-S", "--suffix"})
    if target is None and len(operands) >= 2:
        target, operands = operands[-1], operands[:-1]
    if target is not None and temp_place(target) and any(not temp_place(o) for o in operands):
        return "move-out"
    return None
