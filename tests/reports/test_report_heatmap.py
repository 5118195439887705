"""The heatmap's order: configurations by harness score, items grouped by family; many
configurations still make a picture of a sane size."""

from __future__ import annotations

from pathlib import Path

import matplotlib.image as mpimg
import pandas as pd

from reports.by_harness import config_order
from reports.charts import heatmap, item_order

ITEMS = [("loop.ping_pong", "loop"), ("context.compaction", "context"),
         ("loop.failing_repeat", "loop"), ("provider.rate_limit_backoff", "provider")]


def _cells(states: dict[str, list[str]]) -> pd.DataFrame:
    rows = []
    for config, per_item in states.items():
        for (item, family), state in zip(ITEMS, per_item, strict=True):
            rows.append({"item": item, "family": family, "config": config, "state": state,
                         "n_pass": int(state == "pass"), "n_fail": int(state == "fail"),
                         "n_error": int(state == "error"), "n_unjudged": int(state == "unjudged"),
                         "figure": None, "unit": ""})
    return pd.DataFrame(rows)


def test_configurations_by_passes_then_fails_then_errors() -> None:
    cells = _cells({"a": ["fail", "fail", "pass", "unjudged"],   # 1 passed, 2 failed
                    "b": ["pass", "pass", "pass", "fail"],       # 3 passed
                    "c": ["pass", "unjudged", "unjudged", "unjudged"],  # 1 passed, 0 failed
                    "d": ["pass", "pass", "pass", "pass"],       # 4 passed
                    "e": ["error", "error", "unjudged", "unjudged"],  # nothing judged, 2 errors
                    "f": ["unjudged", "unjudged", "unjudged", "unjudged"]})  # nothing judged
    assert config_order(cells, list("abcdef")) == ["d", "b", "c", "a", "f", "e"]


def test_items_grouped_by_family_in_checklist_order() -> None:
    cells = _cells({"a": ["pass"] * 4})
    assert item_order(cells) == ["loop.ping_pong", "loop.failing_repeat", "context.compaction",
                                 "provider.rate_limit_backoff"]


def test_sixteen_configurations_make_a_readable_picture(tmp_path: Path) -> None:
    states = ["pass", "fail", "error", "unjudged"]
    configs = {f"harness-with-a-long-name-{n:02d}": [states[(n + k) % 4] for k in range(4)]
               for n in range(16)}
    path = heatmap(_cells(configs), list(configs), tmp_path / "heatmap.png")
    height, width = mpimg.imread(str(path)).shape[:2]
    assert 800 < width < 2400 and 300 < height < 1500  # columns narrowed, not 16 wide ones
