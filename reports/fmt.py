"""Small formatting helpers shared by the Markdown and HTML renderers."""

from __future__ import annotations

import os
from pathlib import Path
from urllib.parse import quote

CELL_TEXT = {
    "pass": "✅ pass",
    "fail": "❌ fail",
    "error": "⚠️ error",
    "unjudged": "❔ not judged",
    "not_probed": "—",
}
VIEW_PORT = 7575
"""``inspect view``'s default port, for the viewer links."""


def num(value: float | None, digits: int = 3) -> str:
    """A figure for people: integers stay integers, others get ``digits`` significant digits."""
    if value is None:
        return "–"
    if float(value).is_integer():
        return f"{int(value):,}"
    return f"{value:,.{digits}g}"


def rate(value: float | None) -> str:
    return "–" if value is None else f"{100 * value:.0f}%"


def figure(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    return f"{num(value)} {unit}".strip()


def cell_text(cell: dict) -> str:
    """Pass/fail (with passes/observations when several) and the mean figure."""
    text = CELL_TEXT[cell["state"]]
    n = cell["n_pass"] + cell["n_fail"] + cell["n_error"] + cell["n_unjudged"]
    if n > 1:
        text += f" {cell['n_pass']}/{n}"
    fig = figure(cell["figure"], cell["unit"])
    return f"{text} · {fig}" if fig else text


def rel_link(target: str | Path, out_dir: Path) -> str:
    """A relative URL from the report's folder to a log file."""
    rel = os.path.relpath(Path(target).resolve(), out_dir.resolve())
    return quote(Path(rel).as_posix())


def viewer_url(log: str | Path, logdir: Path, sample_id: str, epoch: int) -> str:
    """Deep link into ``inspect view --log-dir LOGDIR`` for one sample."""
    rel = Path(log).resolve().relative_to(logdir.resolve()).as_posix()
    return (f"http://127.0.0.1:{VIEW_PORT}/#/logs/{quote(rel)}/samples/sample/"
            f"{quote(str(sample_id), safe='')}/{epoch}/")


def first_line(text: str) -> str:
    lines = [ln for ln in str(text).splitlines() if ln.strip()]
    return lines[0].strip() if lines else ""


def md_escape(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")
