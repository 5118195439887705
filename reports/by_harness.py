"""The comparison a reader looks for first: each configuration × checklist family as pass / fail /
not applicable counts of items, most items passed first, and one line per configuration naming
what it survives and what it does not. Written into the scorecard (``## By harness``); the
README's headline table is this section of a ``make eval CONFIGS=all SUITE=library`` run."""

from __future__ import annotations

import pandas as pd

from reports.catalog import families
from reports.fmt import md_table

SHOW_FAILED = 6
"""Failed items named per configuration before "and N more"."""


def config_order(cells: pd.DataFrame, configs: list[str]) -> list[str]:
    """Configurations from the strongest to the weakest: most items passed, then fewest failed,
    then fewest errors, then run order. The one ordering of every table and the heatmap. Items
    passed rather than the share of judged items passed: a harness with no surface for most
    items (1 of 1 judged) does not outrank one that held 50 of 50."""
    order = {c: i for i, c in enumerate(configs)}

    def key(config: str) -> tuple[int, int, int, int]:
        states = cells.loc[cells["config"] == config, "state"]
        return (-int((states == "pass").sum()), int((states == "fail").sum()),
                int((states == "error").sum()), order[config])
    return sorted(configs, key=key)


def family_counts(cells: pd.DataFrame, config: str, family: str) -> str:
    """``P / F / N`` of one family's probed items: passed, failed (errors counted apart), not
    applicable; ``–`` when the run probed none."""
    c = cells[(cells["config"] == config) & (cells["family"] == family)
              & (cells["state"] != "not_probed")]
    if c.empty:
        return "–"
    states = c["state"].value_counts()
    text = f"{states.get('pass', 0)} / {states.get('fail', 0)} / {states.get('unjudged', 0)}"
    return text + (f" (+{states['error']} err)" if states.get("error", 0) else "")


def survival_line(cells: pd.DataFrame, config: str) -> str:
    """Families whose every probed item passed, and the items that failed."""
    c = cells[(cells["config"] == config) & (cells["state"] != "not_probed")]
    whole = [f for f in families() if len(c[c["family"] == f])
             and (c.loc[c["family"] == f, "state"] == "pass").all()]
    failed = list(c.loc[c["state"] == "fail", "item"])
    shown = ", ".join(f"`{i}`" for i in failed[:SHOW_FAILED])
    more = f" and {len(failed) - SHOW_FAILED} more" if len(failed) > SHOW_FAILED else ""
    survives = ", ".join(whole) if whole else "no family whole"
    fails = f"fails {shown}{more}" if failed else "fails nothing it was probed on"
    return f"**{config}** survives every probed item of: {survives}; {fails}."


def by_harness_section(cells: pd.DataFrame, order: list[str]) -> list[str]:
    """The section's lines; ``order``: configurations, strongest first."""
    fams = [f for f in families() if f in set(cells.loc[cells["state"] != "not_probed", "family"])]
    rows = [[config, *[family_counts(cells, config, f) for f in fams]] for config in order]
    return ["## By harness", "",
            "Items per checklist family: passed / failed / not applicable (the harness never "
            "faced the failure or has no surface for it; never counted as a pass). Most items "
            "passed first.", "", *md_table(["configuration", *fams], rows),
            *[f"- {survival_line(cells, config)}" for config in order], ""]
