"""The README's presets table is the generated one (presets are data; the table cannot drift)."""

from pathlib import Path

from harness.presets import PresetError, get_preset, preset_names
from harness.presets.table import presets_table

README = Path(__file__).resolve().parents[2] / "README.md"


def test_readme_embeds_the_current_presets_table():
    text = README.read_text()
    start = text.index("<!-- presets-table:start -->") + len("<!-- presets-table:start -->")
    end = text.index("<!-- presets-table:end -->")
    assert text[start:end].strip() == presets_table().strip(), \
        "README presets table is stale: paste the output of `python -m harness.presets`"


def test_every_preset_loads_and_unknown_names_list_the_valid_ones():
    for name in preset_names():
        assert get_preset(name).name == name
    try:
        get_preset("nope")
    except PresetError as e:
        assert "looplab" in str(e) and "seed004" in str(e)
    else:
        raise AssertionError("unknown preset accepted")
