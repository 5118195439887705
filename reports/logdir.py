"""Find the log directory a report reads, before anything heavy is imported.

``import inspect_ai`` costs over a second; a mistyped path should be answered at once, with one
line that names the directory.
"""

from __future__ import annotations

from pathlib import Path

LOG_SUFFIXES = (".eval", ".json")
# Files inspect's eval_set writes next to the logs; they are not logs.
NOT_LOGS = {"logs.json", "eval-set.json", "listing.json"}
OUT_DIR = Path(__file__).parent / "out"
"""Default home of comparisons (git-ignored); a run's own report lies beside its logs."""
REPORT_DIR = "report"
"""A run's scorecard or benchmark report: ``<log dir>/report/``, named by the run it reports."""


class ReportError(Exception):
    """A problem with the reports' input, said in one line."""


def resolve_logdir(raw: str | Path) -> Path:
    """The real log directory behind ``raw`` (``logs/latest`` may be a symlink)."""
    given = Path(raw).expanduser()
    if not given.exists():
        hint = " (a broken symlink)" if given.is_symlink() else ""
        raise ReportError(f"log directory {given} does not exist{hint}")
    path = given.resolve()
    if not path.is_dir():
        raise ReportError(f"log directory {given} is not a directory")
    if not any(log_files(path)):
        raise ReportError(f"log directory {given} holds no inspect logs (*.eval or *.json)")
    return path


def log_files(path: Path) -> list[Path]:
    """Candidate inspect log files under ``path`` (recursive, sorted)."""
    return sorted(
        p for p in path.rglob("*")
        if p.suffix in LOG_SUFFIXES and p.name not in NOT_LOGS and p.is_file()
    )


def run_name(logdir: Path) -> str:
    """Name of a run: the log directory's base name (after resolving symlinks)."""
    return logdir.name


def report_dir(logdir: Path) -> Path:
    """Where a run's report goes by default: beside its logs, so that no two runs share one."""
    return logdir / REPORT_DIR
