"""Per-turn prompt refresh: the system message changes every turn only when asked to."""

import asyncio

from harness import Agent, LocalWorkspace, get_preset
from harness.testing import FunctionModel, call


def _systems(tmp_path, refresh: bool) -> list[str]:
    cfg = get_preset("naive", prompt={"enabled": True, "include_time": True, "refresh_each_turn": refresh})
    model = FunctionModel(lambda m, t: [call("bash", command="true")] if len(m) < 8 else "done")
    asyncio.run(Agent(cfg, model, LocalWorkspace(tmp_path)).run("go"))
    return [inp[0].content for inp in model.inputs]


def test_without_refresh_the_system_message_is_byte_stable(tmp_path):
    systems = _systems(tmp_path, refresh=False)
    assert len(systems) > 2 and len(set(systems)) == 1


def test_with_refresh_the_system_message_changes_every_turn(tmp_path):
    systems = _systems(tmp_path, refresh=True)
    assert len(set(systems)) == len(systems) > 2
    assert "Turn: 2" in systems[1]
