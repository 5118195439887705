"""Harness specs as data: loading, refusals, launch commands, image hashes, task wiring."""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import sys
from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.solver import Generate, Solver, TaskState, solver

from evals.harnesses.configs import spec_sandbox
from evals.harnesses.image import content_hash
from evals.harnesses.launch import command_for, environment, flatten
from evals.harnesses.spec import (
    DIALECTS,
    MAX_LOAD_FACTOR,
    SPECS_DIR,
    FinishSpec,
    SpecError,
    broken_specs,
    check_requirements,
    get_spec,
    load_factor,
    load_spec,
    load_specs,
    run_limit_s,
    with_spec_folders,
)
from evals.task import configurations, looplab_suite
from harness.model import ToolSpec
from scenarios.actor.mapping import find_tool

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ("looplab-sandboxed", "mini-swe-agent", "mini-swe-agent-text", "openai-agents",
           "smolagents-tools", "smolagents-code", "pydantic-ai", "langgraph-react", "codex-cli",
           "claude-code", "opencode", "gemini-cli", "toy-example")
FIXTURES = Path(__file__).parent / "fixtures"


def write_spec(folder: Path, text: str, **files: str) -> Path:
    folder.mkdir(parents=True)
    (folder / "harness.yaml").write_text(text, encoding="utf-8")
    for name, content in files.items():
        (folder / name.replace("_", ".")).write_text(content, encoding="utf-8")
    return folder


def test_every_shipped_spec_loads_with_its_folder_name_and_a_known_dialect() -> None:
    specs = load_specs()
    assert set(SHIPPED) <= set(specs) and not broken_specs()
    for spec in specs.values():
        assert spec.folder.name == spec.id and spec.dialect in DIALECTS
        if spec.image.requirements:  # every requirement pinned name==version
            assert check_requirements(spec.folder / spec.image.requirements)


def test_spec_ids_are_configurations_beside_presets_and_peers() -> None:
    configs = configurations()
    assert {"naive", "looplab", "inspect-react", *SHIPPED} <= set(configs)


def test_a_bad_spec_is_refused_naming_file_and_field(tmp_path: Path) -> None:
    folder = write_spec(tmp_path / "mine", "id: mine\ndescription: x\nlaunch: [python3]\n"
                                           "dialect: telepathy\n")
    with pytest.raises(SpecError, match=r"(?s)mine/harness.yaml.*dialect"):
        load_spec(folder)


def test_an_id_other_than_the_folder_name_is_refused(tmp_path: Path) -> None:
    folder = write_spec(tmp_path / "mine", "id: yours\ndescription: x\nlaunch: [python3]\n")
    with pytest.raises(SpecError, match="folder name"):
        load_spec(folder)


def test_unpinned_requirements_are_refused(tmp_path: Path) -> None:
    folder = write_spec(tmp_path / "mine", "id: mine\ndescription: x\nlaunch: [python3]\n"
                        "image: {requirements: requirements.txt}\n",
                        requirements_txt="requests>=2\n")
    with pytest.raises(SpecError, match="pinned"):
        load_spec(folder)


def test_user_specs_are_found_through_looplab_harnesses(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    write_spec(tmp_path / "my-agent", "id: my-agent\ndescription: x\nlaunch: [python3, a.py]\n")
    monkeypatch.setenv("LOOPLAB_HARNESSES", str(tmp_path))
    assert get_spec("my-agent").launch == ("python3", "a.py")
    assert "my-agent" in configurations()


def test_a_broken_user_spec_is_set_aside_not_fatal(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    write_spec(tmp_path / "my-agent", "id: my-agent\ndescription: x\nlaunch: [python3, a.py]\n")
    write_spec(tmp_path / "broken", "id: broken\ndescription: x\nlaunch: [python3]\n"
                                    "dialect: telepathy\n")
    write_spec(tmp_path / "toy-example", "id: toy-example\ndescription: x\nlaunch: [python3]\n")
    monkeypatch.setenv("LOOPLAB_HARNESSES", str(tmp_path))
    assert "my-agent" in load_specs() and "broken" not in load_specs()
    assert load_specs()["toy-example"].folder == SPECS_DIR / "toy-example"  # the shipped one
    assert set(broken_specs()) == {"broken", "toy-example"}
    assert "already defined" in str(broken_specs()["toy-example"])
    with pytest.raises(SpecError, match=r"(?s)broken/harness.yaml.*dialect"):
        get_spec("broken")
    assert "broken" not in configurations()


def test_spec_harnesses_never_run_on_the_local_sandbox() -> None:
    with pytest.raises(ValueError, match="only in the docker sandbox"):
        spec_sandbox("mini-swe-agent", "local")
    with pytest.raises(ValueError, match="only in the docker sandbox"):
        looplab_suite(config="toy-example", scenarios="loop-repeat-failing-command", sandbox="local")


def test_launch_placeholders_conditions_and_fallbacks() -> None:
    spec = get_spec("looplab-sandboxed")
    argv = command_for(spec, "do it", "/workspace/app",
                       {"context_window": 16000, "modes": {"mode": "plan"}}, ["backup"])
    assert argv[:3] == ["python3", "-m", "harness"] and argv[-1] == "do it"
    # The harness talks to the container's model relay, on the port of inspect's bridge.
    assert "http://127.0.0.1:13131/v1" in argv and "/workspace/app" in argv
    assert ["--set", "context_window=16000", "--set", "modes.mode=plan",
            "--fallback-model", "backup"] == argv[argv.index("/workspace/app") + 1:-2]
    assert flatten({"a": {"b": [1, 2]}}) == ["a.b=[1, 2]"]
    env = environment(get_spec("mini-swe-agent"), "/workspace")
    assert env["OPENAI_BASE_URL"].endswith(":13131/v1") and env["MSWEA_CONFIGURED"] == "true"


def test_an_auth_profile_fallback_is_the_roles_model_with_that_key() -> None:
    # `backup@key-a` (a scenario's auth profiles): the bridge serves it from the scripted role
    # `backup` with API key `key-a`, so faults scheduled per profile reach the harness.
    from evals.agents import fallback_model

    model = fallback_model("scripted/backup@key-a")
    assert model.name == "backup" and model.api.api_key == "key-a"
    assert fallback_model("scripted/backup").api.api_key in (None, "")


def test_no_surface_by_item_or_family_prefix(tmp_path: Path) -> None:
    folder = write_spec(tmp_path / "mine", "id: mine\ndescription: x\nlaunch: [python3]\n"
                        "no_surface: {orchestration.: no sub-agents, context.skills_index: no skills}\n")
    spec = load_spec(folder)
    assert spec.no_surface_reason("orchestration.fan_out") == "no sub-agents"
    assert spec.no_surface_reason("context.skills_index") == "no skills"
    assert spec.no_surface_reason("loop.ping_pong") is None


def test_image_hash_follows_the_spec_content(tmp_path: Path) -> None:
    folder = write_spec(tmp_path / "mine", "id: mine\ndescription: x\nlaunch: [python3, a.py]\n",
                        a_py="print(1)\n")
    first = content_hash(load_spec(folder), "sha256:base")
    assert content_hash(load_spec(folder), "sha256:base") == first
    assert content_hash(load_spec(folder), "sha256:other-base") != first
    (folder / "a.py").write_text("print(2)\n", encoding="utf-8")
    assert content_hash(load_spec(folder), "sha256:base") != first


def test_reference_harness_image_has_every_library_harness_imports() -> None:
    """harness/ gains dependencies; its in-sandbox spec must pin every one of them."""
    reqs = check_requirements(SPECS_DIR / "looplab-sandboxed" / "requirements.txt")
    pinned = {r.split("==")[0].split("[")[0].lower().replace("_", "-") for r in reqs}
    dists = importlib.metadata.packages_distributions()
    imported = set()
    for path in (ROOT / "harness").rglob("*.py"):
        for line in path.read_text(encoding="utf-8").splitlines():
            words = line.split()
            if len(words) >= 2 and words[0] in ("import", "from"):
                imported.add(words[1].split(".")[0])
    third_party = {m for m in imported if m not in sys.stdlib_module_names and m in dists}
    missing = {m for m in third_party if m != "harness"
               and not {d.lower().replace("_", "-") for d in dists[m]} & pinned}
    assert not missing, f"add to sandboxes/harnesses/looplab-sandboxed/requirements.txt: {missing}"


@solver
def does_nothing() -> Solver:
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        return state

    return solve


def test_a_solver_given_on_the_command_line_gets_the_workspace_and_no_verdict(tmp_path: Path) -> None:
    """`inspect eval evals/task.py --solver mine`: set-up still runs (it is the task's), and a
    solver that leaves no evidence is a sample error, never PASS "0 executions"."""
    task = looplab_suite(config="naive", scenarios="loop-repeat-failing-command", sandbox="local")
    assert task.setup is not None
    [log] = inspect_eval(task, solver=does_nothing(), model="scripted/suite",
                         log_dir=str(tmp_path / "logs"), display="none")
    [sample] = log.samples or []
    assert sample.error is not None and "no ending" in sample.error.message
    assert not sample.scores


@pytest.mark.parametrize(("fixture", "expected"), [
    # Claude Code: the shell is Bash (not Agent, whose `description` parameter once read as a
    # script; nor is Bash refused for the word "files" in its `description` parameter's prose),
    # Write writes (not Edit), and no directory lister is made of ListAgents or Read.
    ("claude-code-2.1.330-tools.json",
     {"shell": ("Bash", {"command": "command"}), "read": ("Read", {"path": "file_path"}),
      "write": ("Write", {"path": "file_path", "content": "content"}), "list": None,
      "spawn": ("Agent", {"task": "prompt"})}),
    # Gemini CLI: run_shell_command is a shell although it takes an optional `dir_path`.
    ("gemini-cli-0.61.0-tools.json",
     {"shell": ("run_shell_command", {"command": "command"}),
      "read": ("read_file", {"path": "file_path"}),
      "write": ("write_file", {"path": "file_path", "content": "content"}),
      "list": ("list_directory", {"path": "dir_path"}),
      "spawn": ("invoke_agent", {"task": "prompt"})}),
])
def test_the_actor_finds_a_cli_agents_own_tools(fixture: str, expected: dict[str, object]) -> None:
    """The tools as the CLI agent sent them (recorded from a run through the bridge)."""
    raw = json.loads((FIXTURES / fixture).read_text(encoding="utf-8"))
    tools = [ToolSpec(**t) for t in raw]
    found = {role: (hit[0].name, hit[1]) if (hit := find_tool(role, tools)) else None
             for role in expected}
    assert found == expected


def test_a_spec_folder_given_as_a_config_joins_the_search_path(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "nested" / "my-agent"
    shutil.copytree(SPECS_DIR / "toy-example", folder)
    (folder / "harness.yaml").write_text(
        (folder / "harness.yaml").read_text().replace("id: toy-example", "id: my-agent"))
    monkeypatch.delenv("LOOPLAB_HARNESSES", raising=False)
    assert with_spec_folders(f"looplab,{folder}") == "looplab,my-agent"
    assert os.environ["LOOPLAB_HARNESSES"] == str(folder)
    assert get_spec("my-agent").folder == folder
    with pytest.raises(SpecError, match="not a harness spec folder"):
        with_spec_folders(str(tmp_path))


def test_the_start_up_allowance_grows_with_the_load_and_is_bounded() -> None:
    finish = FinishSpec(timeout_s=120, start_s=30)
    assert run_limit_s(finish, 1.0) == 150
    assert run_limit_s(finish, 7.0) == 330  # load 14 on 2 CPUs
    assert 1.0 <= load_factor() <= MAX_LOAD_FACTOR
    assert run_limit_s(FinishSpec(timeout_s=45, start_s=0), 8.0) == 45
