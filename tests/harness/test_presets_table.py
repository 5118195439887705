"""The presets table in docs/presets.md is the generated one (presets are data; the table cannot
drift)."""

from pathlib import Path

from harness.presets import PresetError, get_preset, preset_names
from harness.presets.table import presets_table

PAGE = Path(__file__).resolve().parents[2] / "docs" / "presets.md"


def test_presets_page_embeds_the_current_presets_table():
    text = PAGE.read_text(encoding="utf-8")
    start = text.index("<!-- presets-table:start -->") + len("<!-- presets-table:start -->")
    end = text.index("<!-- presets-table:end -->")
    assert text[start:end].strip() == presets_table().strip(), \
        "docs/presets.md presets table is stale: paste the output of `python -m harness.presets`"


def test_every_preset_loads_and_unknown_names_list_the_valid_ones():
    for name in preset_names():
        assert get_preset(name).name == name
    try:
        get_preset("nope")
    except PresetError as e:
        assert "looplab" in str(e) and "seed004" in str(e)
    else:
        raise AssertionError("unknown preset accepted")
