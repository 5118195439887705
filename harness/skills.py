"""Skills with progressive disclosure (seed 004): an index in the prompt, full text on demand.

A skill is ``<dir>/<name>/SKILL.md`` in the workspace, with YAML frontmatter::

    ---
    name: github
    description: "GitHub CLI workflows for PR review, issue management, branch operations"
    platforms: [macos, linux]
    ---

The index costs about one line per skill; the model reads a skill's file with ``read_file`` when
it needs the instructions. Skills are workspace files, so the index is built from what a
``Workspace`` can list and read, sandbox or not.

On a local workspace the listing (one ``find``) is cached under the stat signatures of the skill
directory and its sub-directories (an added or removed skill changes one of them), and each
parsed SKILL.md under its own signature: a prompt rebuilt every turn starts no process and parses
nothing unless a skill changed.

Source: seed 004, "Tier-1 index (~10 tokens/skill) in system prompt; full content loaded on demand".
"""

from __future__ import annotations

import os
import re
import shlex
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import yaml

from harness.context_files import Signature, bounded_put, local_root, local_signature, scan_key
from harness.events import subsystem_logger
from harness.workspace import Workspace

log = subsystem_logger("skills")

SKILL_FILE = "SKILL.md"
_FRONTMATTER = re.compile(r"\A\ufeff?---[ \t]*\r?\n(.*?)\r?\n---[ \t]*(?:\r?\n|\Z)", re.DOTALL)

ScanFn = Callable[[str, str], object]
"""``scan_context_file(content, path)``: returns an object with ``.safe`` and ``.issues``."""


class SkillError(ValueError):
    """A SKILL.md that cannot be parsed; the message names the file."""


@dataclass(frozen=True)
class SkillEntry:
    name: str
    description: str
    """One line: this is what goes in the index."""
    file_path: str
    """Where the full SKILL.md is, as the model should pass it to ``read_file``."""
    platforms: tuple[str, ...] = ()
    """Platforms the skill works on; empty: all."""
    model_invocable: bool = True
    """False hides the skill from the index (``disable-model-invocation: true``)."""


def compact_home_prefix(path: str, home: str | None = None) -> str:
    """``/home/alice/skills/x`` -> ``~/skills/x``: models understand ``~`` and it saves tokens."""
    home = (home or os.path.expanduser("~")).rstrip("/")
    if home and (path == home or path.startswith(home + "/")):
        return "~" + path[len(home):]
    return path


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(str(text).split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def parse_skill(text: str, path: str, dir_name: str) -> SkillEntry:
    """A skill from its SKILL.md text. ``dir_name`` names it when the frontmatter does not."""
    m = _FRONTMATTER.match(text)
    meta: object = {}
    if m:
        try:
            meta = yaml.safe_load(m.group(1)) or {}
        except yaml.YAMLError as e:
            raise SkillError(f"{path}: invalid YAML frontmatter: {e}") from e
    if not isinstance(meta, dict):
        raise SkillError(f"{path}: frontmatter must be a mapping, got {type(meta).__name__}")
    body = text[m.end():] if m else text
    description = meta.get("description") or next(
        (ln.strip("# ").strip() for ln in body.splitlines() if ln.strip()), ""
    )
    platforms = meta.get("platforms") or []
    if isinstance(platforms, str):
        platforms = [platforms]
    if not isinstance(platforms, list):
        raise SkillError(f"{path}: 'platforms' must be a list of names")
    hidden = bool(meta.get("disable-model-invocation")) or meta.get("model_invocable") is False
    return SkillEntry(
        name=_one_line(meta.get("name") or dir_name, 60),
        description=_one_line(description),
        file_path=path,
        platforms=tuple(sorted({str(p).strip().lower() for p in platforms if str(p).strip()})),
        model_invocable=not hidden,
    )


_listings: dict[tuple[str, tuple[Signature, ...]], list[str]] = {}
_parsed: dict[tuple[Any, ...], SkillEntry | str] = {}
"""(path, signature, scan) -> the skill, or the problem line that left it out."""


def _dir_signature(path: str) -> tuple[Signature, ...] | None:
    """Signatures of ``path`` and its sub-directories (not following links, as ``find`` does);
    None when they cannot be read (the listing is then not cached)."""
    try:
        top = local_signature(path, follow=False)
        if top is None or top[3] >= 0:
            return (top,)  # missing or not a directory: find lists nothing
        with os.scandir(path) as it:
            subs = sorted((e.name, local_signature(e.path, follow=False))
                          for e in it if e.is_dir(follow_symlinks=False))
    except OSError:
        return None
    return (top, *(sig for _, sig in subs), *((hash(tuple(n for n, _ in subs)), 0, 0, 0),))


async def _list_skill_files(workspace: Workspace, skill_dir: str) -> list[str]:
    root = local_root(workspace)
    sig = _dir_signature(os.path.join(root, skill_dir)) if root is not None else None
    if root is None or sig is None:
        return await _find_skill_files(workspace, skill_dir)
    key = (os.path.join(root, skill_dir), sig)
    if key not in _listings:
        bounded_put(_listings, key, await _find_skill_files(workspace, skill_dir))
    return list(_listings[key])


async def _find_skill_files(workspace: Workspace, skill_dir: str) -> list[str]:
    cmd = (f"find {shlex.quote(skill_dir)} -mindepth 2 -maxdepth 2 -name {SKILL_FILE} "
           "\\( -type f -o -type l \\) 2>/dev/null | LC_ALL=C sort")
    res = await workspace.exec(cmd, timeout=30)
    return [ln.strip() for ln in res.stdout.splitlines() if ln.strip()]


async def discover_skills(
    workspace: Workspace,
    dirs: Sequence[str],
    platform: str = "linux",
    scan: ScanFn | None = None,
) -> tuple[list[SkillEntry], list[str]]:
    """Skills found under ``dirs`` that suit ``platform``, sorted by name, and one line per
    skill left out (unparseable, or blocked by ``scan``)."""
    skills: dict[str, SkillEntry] = {}
    problems: list[str] = []
    root = local_root(workspace)
    for skill_dir in dirs:
        for path in await _list_skill_files(workspace, skill_dir):
            skill = await _cached_skill(workspace, root, path, scan)
            if isinstance(skill, str):
                problems.append(skill)
                continue
            if skill.platforms and platform.lower() not in skill.platforms:
                continue
            skills.setdefault(skill.name, skill)  # first directory wins on a name clash
    return sorted(skills.values(), key=lambda s: s.name), problems


async def _cached_skill(workspace: Workspace, root: str | None, path: str,
                        scan: ScanFn | None) -> SkillEntry | str:
    """``_load_skill`` keyed by the file's stat signature on a local workspace."""
    try:
        sig = local_signature(os.path.join(root, path)) if root is not None else None
    except OSError:
        sig = None
    if sig is None:
        return await _load_skill(workspace, path, scan)
    key = (os.path.join(root or "", path), sig, scan_key(scan))
    if key not in _parsed:
        bounded_put(_parsed, key, await _load_skill(workspace, path, scan))
    return _parsed[key]


async def _load_skill(workspace: Workspace, path: str, scan: ScanFn | None) -> SkillEntry | str:
    """The skill at ``path``, or the problem line that leaves it out."""
    try:
        text = await workspace.read_file(path)
        if scan is not None:
            verdict = scan(text, path)
            if not getattr(verdict, "safe", False):
                issues = "; ".join(getattr(verdict, "issues", []) or ["unsafe"])
                return f"{path}: blocked by the context-file scan ({issues})"
        return parse_skill(text, path, path.rstrip("/").split("/")[-2])
    except (OSError, SkillError) as e:
        log.warning("skill %s skipped: %s", path, e)
        return f"{path}: {e}" if not str(e).startswith(path) else str(e)


def build_skills_index(skills: Sequence[SkillEntry], limit: int = 200) -> str:
    """Seed 004 ``build_skills_index``: one line per model-invocable skill, sorted by name."""
    visible = sorted((s for s in skills if s.model_invocable), key=lambda s: s.name)[:limit]
    if not visible:
        return ""
    lines = [
        f"- {s.name:<12} ({compact_home_prefix(s.file_path)}): {s.description}" for s in visible
    ]
    return "Available skills (read a skill's file with read_file before using it):\n" + "\n".join(lines)
