"""False positives of looplab's command and path guards on a benign corpus of shell commands.

    .venv/bin/python benchmarks/shell_guard_benign.py [-v] [--root DIR ...]

The corpus is every command line of the shell examples in the documentation under the virtual
environment's site-packages (``*.md``, ``*.rst``, ``*.txt``, ``METADATA``: fenced ``bash``/
``sh``/``shell``/``console`` blocks, ``code-block`` directives, ``$ ``-prompted lines) and the
recipes of the repository's Makefile, and the Python one-liners installed code runs in a
subprocess (``[sys.executable, "-c", CODE]``) as ``python3 -c CODE``. They are commands people publish for others to run:
installs, builds, tests, one-liners. Each is judged by the ``looplab`` preset's command guard
and path guard, exactly as before a tool call, on a fresh workspace holding nothing (so a file
the command names does not exist). A guard may rightly stop some (``rm -rf build``, ``cat
~/.pypirc``), so ``-v`` prints every stopped command with the rule, to judge them.
"""

from __future__ import annotations

import argparse
import ast
import asyncio
import re
import shlex
import sys
import tempfile
from collections import Counter
from pathlib import Path

# this checkout's harness, not the one the environment installed (another worktree's)
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from harness import HarnessConfig, LocalWorkspace, get_preset
from harness.messages import ToolCall
from harness.security.commands import CommandGuard
from harness.security.paths import PathGuard
from harness.state import RunState

_FENCE = re.compile(r"^```\s*(?:bash|sh|shell|console|shell-session|zsh)\s*$(.*?)^```", re.M | re.S)
_DIRECTIVE = re.compile(r"^\.\. (?:code-block|code|sourcecode)::\s*(?:bash|sh|shell|console)\s*\n((?:\s*\n|[ \t]+.*\n)+)", re.M)
_PROMPT = re.compile(r"^\s*(?:\$|>>>\s*!)\s+(\S.*)$", re.M)
# Python one-liners that installed code runs in a subprocess ([sys.executable, "-c", "..."]).
_ONE_LINER = re.compile(r"""["']-c["']\s*,\s*("(?:[^"\\\n]|\\.){5,400}"|'(?:[^'\\\n]|\\.){5,400}')""")


def commands_in(text: str) -> list[str]:
    out: list[str] = []
    for block in [m.group(1) for m in _FENCE.finditer(text)] + [m.group(1) for m in _DIRECTIVE.finditer(text)]:
        lines = [ln.strip() for ln in block.splitlines() if ln.strip() and not ln.strip().startswith("#")]
        prompted = [ln[2:] for ln in lines if ln.startswith("$ ")]
        out += prompted or [ln for ln in lines if not ln.startswith((">", "...", "<"))]
    out += [m.group(1) for m in _PROMPT.finditer(text)]
    return [c.strip() for c in out if 2 < len(c.strip()) < 2000]


def _one_liners(path: Path) -> list[str]:
    try:
        text = path.read_text(encoding="utf-8")
    except (UnicodeDecodeError, OSError):
        return []
    out = []
    for m in _ONE_LINER.finditer(text):
        try:
            code = ast.literal_eval(m.group(1))
        except (ValueError, SyntaxError):
            continue
        out.append(code) if isinstance(code, str) else None
    return out


def corpus(roots: list[Path], makefiles: list[Path]) -> list[str]:
    found: list[str] = []
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.suffix == ".py" and path.is_file() and path.stat().st_size < 300_000:
                found += [f"python3 -c {shlex.quote(code)}" for code in _one_liners(path)]
                continue
            if not (path.suffix.lower() in (".md", ".rst", ".txt") or path.name == "METADATA") or not path.is_file():
                continue
            if path.stat().st_size > 300_000:
                continue
            try:
                found += commands_in(path.read_text(encoding="utf-8"))
            except (UnicodeDecodeError, OSError):
                continue
    for mk in makefiles:
        found += [ln.strip() for ln in mk.read_text(encoding="utf-8").splitlines() if ln.startswith("\t") and ln.strip()]
    return list(dict.fromkeys(found))


async def judge(commands: list[str]) -> list[tuple[str, str]]:
    """``(command, why stopped)`` for each command a looplab guard stops."""
    preset = get_preset("looplab")
    guards = [CommandGuard(preset.command_guard), PathGuard(preset.path_guard)]
    stopped = []
    with tempfile.TemporaryDirectory() as tmp:
        run = RunState(HarnessConfig(), LocalWorkspace(tmp), [])
        for i, command in enumerate(commands):
            for guard in guards:
                outcome = await guard.before_tool(run, ToolCall(id=f"c{i}", name="bash", arguments={"command": command}))
                if outcome is not None:
                    why = outcome.metadata.get("blocked_pattern") or f"path {outcome.metadata.get('path')!r}"
                    stopped.append((command, f"{guard.name}: {why}"))
                    break
    return stopped


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", action="append", type=Path, help="folders to read (default: site-packages)")
    ap.add_argument("-v", action="store_true", help="print every stopped command")
    args = ap.parse_args()
    here = Path(__file__).resolve().parents[1]
    roots = args.root or sorted((here / ".venv" / "lib").glob("python3*/site-packages"))
    commands = corpus(roots, [p for p in [here / "Makefile"] if p.exists()])
    stopped = asyncio.run(judge(commands))
    if args.v:
        for command, why in stopped:
            print(f"{why}\t{command[:200]!r}")
    kinds = Counter(why.split(":")[0] for _, why in stopped)
    print(f"{len(commands)} commands, {len(stopped)} stopped "
          f"({kinds.get('command_guard', 0)} by the command guard, {kinds.get('path_guard', 0)} by the path guard)")


if __name__ == "__main__":
    main()
