"""Small formatting helpers shared by the Markdown and HTML renderers."""

from __future__ import annotations

import math
import os
from pathlib import Path
from urllib.parse import quote, unquote

CELL_TEXT = {
    "pass": "✅ pass",
    "fail": "❌ fail",
    "error": "⚠️ error",
    "unjudged": "➖ not applicable",
    "not_probed": "—",
}
PLAIN_CELL_TEXT = {
    "pass": "✓ pass",
    "fail": "✗ fail",
    "error": "! error",
    "unjudged": "– not applicable",
    "not_probed": "—",
}
"""For HTML: browsers without an emoji font (headless CI) draw the emoji as boxes."""
VIEW_PORT = 7575
"""``inspect view``'s default port, for the viewer links."""


def missing(value: object) -> bool:
    """True for None and NaN (pandas turns None into NaN in numeric columns)."""
    return value is None or (isinstance(value, float) and math.isnan(value))


def num(value: float | None, digits: int = 3) -> str:
    """A number for people: integers and large values as integers, others to ``digits``
    significant digits."""
    if missing(value):
        return "–"
    value = float(value)  # type: ignore[arg-type]
    if value.is_integer() or abs(value) >= 10 ** (digits - 1):
        return f"{round(value):,}"
    return f"{value:.{digits}g}"


def rate(value: float | None) -> str:
    return "–" if missing(value) else f"{100 * value:.0f}%"  # type: ignore[operator]


def figure(value: float | None, unit: str) -> str:
    if missing(value):
        return ""
    return f"{num(value)} {unit}".strip()


def counts(cell: dict) -> str:
    """``k/n`` (passes / judged observations) when there are several observations, plus how
    many errored or went unjudged next to them; empty for a single observation."""
    judged = cell["n_pass"] + cell["n_fail"]
    total = judged + cell["n_error"] + cell["n_unjudged"]
    if total <= 1 or cell["state"] in ("error", "unjudged") and judged == 0:
        return "" if total <= 1 else f"×{total}"
    text = f"{cell['n_pass']}/{judged}"
    if cell["n_error"]:
        text += f" +{cell['n_error']} err"
    if cell["n_unjudged"]:
        text += f" +{cell['n_unjudged']} ?"
    return text


def cell_text(cell: dict, words: dict[str, str] = CELL_TEXT) -> str:
    """Pass/fail with counts when there are several observations, and the mean figure."""
    text = words[cell["state"]]
    n = counts(cell)
    if n:
        text += f" {n}"
    fig = figure(cell["figure"], cell["unit"])
    return f"{text} · {fig}" if fig else text


def local_path(log: str | Path) -> Path:
    """A log location as a local path (inspect may give ``file://`` URIs)."""
    text = str(log)
    return Path(unquote(text[len("file://"):]) if text.startswith("file://") else text)


def rel_link(target: str | Path, out_dir: Path) -> str:
    """A relative URL from the report's folder to a log file."""
    rel = os.path.relpath(local_path(target).resolve(), out_dir.resolve())
    return quote(Path(rel).as_posix())


def viewer_url(log: str | Path, logdir: Path, sample_id: str, epoch: int) -> str:
    """Deep link into ``inspect view --log-dir LOGDIR`` for one sample."""
    path = local_path(log).resolve()
    try:
        rel = path.relative_to(logdir.resolve()).as_posix()
    except ValueError:  # not under the log directory: the viewer lists it by name
        rel = path.name
    return (f"http://127.0.0.1:{VIEW_PORT}/#/logs/{quote(rel)}/samples/sample/"
            f"{quote(str(sample_id), safe='')}/{epoch}/")


def first_line(text: str) -> str:
    lines = [ln for ln in str(text).splitlines() if ln.strip()]
    return lines[0].strip() if lines else ""


def md_escape(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return str(text).replace("|", "\\|").replace("\n", " ")


def md_table(header: list[str], rows: list[list[str]]) -> list[str]:
    """A Markdown table's lines (cells escaped), then a blank line."""
    out = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    out += ["| " + " | ".join(md_escape(c) for c in row) + " |" for row in rows]
    return out + [""]
