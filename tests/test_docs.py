"""The README stays a product page and the docs stay true to the repository.

The README is a page a newcomer reads at once (at most 260 lines: figures and method live in
docs/), every relative link in it and in docs/*.md leads to a file that exists, every `make`
target it names is one `make help` lists, and every repository path the docs name in code
spans exists (docs/results.md excepted: its figures name the commands of their time, some of
whose files were re-filed since; it says so itself). docs/seeds.md names checklist items that
exist.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from scenarios.checklist import checklist_by_id

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
DOCS = sorted((ROOT / "docs").glob("*.md"))
PAGES = [README, *DOCS]
HISTORICAL = {ROOT / "docs" / "results.md"}
"""Pages whose code spans quote commands as they were run, files since moved included."""

MAX_README_LINES = 260
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"```.*?```|`[^`]+`", re.S)
"""A fenced block, or inline code (which may wrap onto the next line)."""
REPO_PATH = re.compile(r"^(?:harness|evals|scenarios|sandboxes|reports|tests|benchmarks|docs)/[\w./-]*$")
PLACEHOLDER = re.compile(r"[<>{}*]|\.\.\.")
CHECKLIST_ID = re.compile(
    r"^(?:loop|context|provider|security|orchestration|sessions|prompt|discipline)\.[a-z_]+$")


def _rel(page: Path) -> str:
    return str(page.relative_to(ROOT))


def _code_words(text: str) -> list[str]:
    """Every whitespace-separated word inside inline code and fenced blocks, punctuation around
    it removed."""
    words: list[str] = []
    for span in CODE_SPAN.findall(text):
        words += [w.strip("`'\",;:()[]") for w in span.strip("`").split()]
    return words


def test_readme_is_a_page_not_a_notebook():
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= MAX_README_LINES, (
        f"README.md has {lines} lines (at most {MAX_README_LINES}): move figures to "
        "docs/results.md and method to docs/method.md")


@pytest.mark.parametrize("page", PAGES, ids=_rel)
def test_every_relative_link_leads_to_a_file(page: Path):
    broken = []
    for target in LINK.findall(page.read_text(encoding="utf-8")):
        if re.match(r"^[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # a URL or an anchor on the same page
        if not (page.parent / target.split("#", 1)[0]).exists():
            broken.append(target)
    assert not broken, f"{_rel(page)}: links to nothing: {broken}"


@pytest.mark.parametrize("page", [p for p in PAGES if p not in HISTORICAL], ids=_rel)
def test_every_repository_path_named_exists(page: Path):
    missing = sorted({w for w in _code_words(page.read_text(encoding="utf-8"))
                      if REPO_PATH.match(w) and not PLACEHOLDER.search(w)
                      and not (ROOT / w).exists()})
    assert not missing, f"{_rel(page)} names paths that do not exist: {missing}"


def _make_targets_in_help() -> set[str]:
    res = subprocess.run(["make", "--no-print-directory", "-s", "help"], cwd=ROOT,
                         capture_output=True, text=True, timeout=60, check=True)
    return set(re.findall(r"^  make (\S+)", res.stdout, re.M))


def test_every_make_target_the_readme_names_is_in_make_help():
    named: set[str] = set()
    for span in CODE_SPAN.findall(README.read_text(encoding="utf-8")):
        fenced = span.startswith("```")
        for line in span.strip("`").splitlines() if fenced else [" ".join(span.strip("`").split())]:
            for m in re.finditer(r"(?:^|[\s;&|(])make((?:\s+[a-z][\w-]*)+)", line):
                named.update(m.group(1).split())  # `make venv sandbox` names two targets
    assert "eval" in named and "test" in named, "the README must name make eval and make test"
    missing = named - _make_targets_in_help()
    assert not missing, f"README names make targets that `make help` does not list: {sorted(missing)}"


def test_seeds_page_names_only_checklist_items_that_exist():
    text = (ROOT / "docs" / "seeds.md").read_text(encoding="utf-8")
    named = {w for w in _code_words(text) if CHECKLIST_ID.match(w)}
    assert named, "docs/seeds.md maps patterns to checklist items"
    assert not named - set(checklist_by_id()), sorted(named - set(checklist_by_id()))
