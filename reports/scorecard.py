"""Write a scorecard: run data → tables → charts → ``scorecard.md`` and ``scorecard.html``."""

from __future__ import annotations

from pathlib import Path

from reports.card import Scorecard, build, draw
from reports.fmt import rate
from reports.html import render_html
from reports.load import common_part, load_run
from reports.markdown import render_markdown


def write_scorecard(logdir: Path, out_dir: Path,
                    common: bool = False) -> tuple[Scorecard, dict[str, Path]]:
    """Read ``logdir`` and write the scorecard files into ``out_dir``; returns what was written.
    ``common``: count only the scenarios every configuration ran (``load.common_part``)."""
    run = load_run(logdir)
    if common:
        run = common_part(run)
    out_dir.mkdir(parents=True, exist_ok=True)
    card = build(run, out_dir)
    draw(card)
    md = out_dir / "scorecard.md"
    md.write_text(render_markdown(card), encoding="utf-8")
    html = out_dir / "scorecard.html"
    html.write_text(render_html(card), encoding="utf-8")
    return card, {"markdown": md, "html": html, **card.charts}


def headline(card: Scorecard) -> list[str]:
    """The 1–3 line summary printed after a scorecard is written."""
    parts = []
    for r in card.summary.to_dict("records"):
        err = f", {r['sample_errors']} errored sample(s)" if r["sample_errors"] else ""
        parts.append(f"{r['config']} {r['passed']}/{r['probed']}{err}")
    lines = ["items passed / probed: " + "; ".join(parts)]
    if card.incomplete:
        lines.insert(0, "INCOMPLETE run: " + "; ".join(card.incomplete)
                     + " (configurations with errors are not ranked)")
    if card.corpus is not None:
        lines.append("injection corpus (block rate / false positives): " + "; ".join(
            f"{r['config']} [{r.get('channel', 'all')}] {rate(r['block_rate'])} / {rate(r['false_positive_rate'])}"
            for r in card.corpus.to_dict("records")))
    return lines
