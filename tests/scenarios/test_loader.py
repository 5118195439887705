from pathlib import Path

import pytest

from scenarios.checklist import checklist_by_id
from scenarios.loader import ScenarioError, get_scenario, load_library, load_scenario_file, select

GOOD = """\
id: {id}
title: t
family: loop
probes:
  loop.identical_repeat: {{judge: counter_at_most, params: {{counter_file: c, max: 1}}}}
prompt: do it
actor: {{policy: repeat_failing_command, params: {{command: ./x}}}}
"""


def write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / f"{name}.yaml"
    p.write_text(text)
    return p


def test_library_loads_and_every_probe_is_a_checklist_item():
    library = load_library()
    assert len(library) >= 3
    items = checklist_by_id()
    for s in library.values():
        assert set(s.probes) <= set(items), s.id


def test_good_file_loads(tmp_path):
    s = load_scenario_file(write(tmp_path, "ok-one", GOOD.format(id="ok-one")))
    assert s.actor.policy == "repeat_failing_command"


def test_missing_field_names_file_and_field(tmp_path):
    p = write(tmp_path, "bad", GOOD.format(id="bad").replace("prompt: do it\n", ""))
    with pytest.raises(ScenarioError) as e:
        load_scenario_file(p)
    assert str(p) in str(e.value) and "field prompt" in str(e.value)


def test_wrong_type_names_field(tmp_path):
    p = write(tmp_path, "bad", GOOD.format(id="bad") + "n_ctx: lots\n")
    with pytest.raises(ScenarioError, match="field n_ctx"):
        load_scenario_file(p)


def test_unknown_field_is_rejected(tmp_path):
    p = write(tmp_path, "bad", GOOD.format(id="bad") + "colour: red\n")
    with pytest.raises(ScenarioError, match="field colour"):
        load_scenario_file(p)


def test_unknown_policy_lists_known_ones(tmp_path):
    p = write(tmp_path, "bad", GOOD.format(id="bad").replace("repeat_failing_command", "nope"))
    with pytest.raises(ScenarioError, match=r"actor.policy.*repeat_failing_command"):
        load_scenario_file(p)


def test_bad_policy_params_name_the_param(tmp_path):
    p = write(tmp_path, "bad", GOOD.format(id="bad").replace("command: ./x", "comand: ./x"))
    with pytest.raises(ScenarioError, match="actor.params"):
        load_scenario_file(p)


def test_unknown_checklist_item(tmp_path):
    p = write(tmp_path, "bad", GOOD.format(id="bad").replace("loop.identical_repeat", "loop.nope"))
    with pytest.raises(ScenarioError, match="probes.loop.nope"):
        load_scenario_file(p)


def test_id_must_match_file_name(tmp_path):
    p = write(tmp_path, "other", GOOD.format(id="ok-one"))
    with pytest.raises(ScenarioError, match="field id"):
        load_scenario_file(p)


def test_not_yaml(tmp_path):
    p = write(tmp_path, "bad", "id: [unclosed\n")
    with pytest.raises(ScenarioError, match="not valid YAML"):
        load_scenario_file(p)


def test_unknown_scenario_id_lists_valid_ids():
    with pytest.raises(ScenarioError, match="loop-repeat-failing-command"):
        get_scenario("no-such-scenario")


def test_select_by_family():
    assert {s.family for s in select(family="loop")} == {"loop"}
    with pytest.raises(ScenarioError, match="no scenario in family"):
        select(family="nope")


def test_select_by_suite():
    library, families = select(suite="library"), select(suite="families")
    assert library and families and len(library) + len(families) == len(select())
    assert all(s.family_id is None for s in library) and all(s.family_id for s in families)
    # a corpus scenario's expansions belong to the library
    assert len(select("security-context-file-injection", suite="library")) > 1
    with pytest.raises(ScenarioError, match="not in suite 'library'"):
        select(families[0].id, suite="library")
    with pytest.raises(ScenarioError, match="unknown suite"):
        select(suite="everything")
