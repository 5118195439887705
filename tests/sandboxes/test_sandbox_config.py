"""DockerSandboxConfig and provider registration: no Docker engine needed."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from pathlib import Path

import pytest
from inspect_ai.util import SandboxEnvironmentSpec
from inspect_ai.util._sandbox.registry import registry_find_sandboxenv
from pydantic import ValidationError

from sandboxes.config import DockerSandboxConfig, resolve_config
from sandboxes.docker_engine import SandboxNotReadyError
from sandboxes.docker_provider import SANDBOX_NAME, LooplabDockerSandbox

ROOT = Path(__file__).resolve().parents[2]


def _custom() -> DockerSandboxConfig:
    return DockerSandboxConfig(
        network=True,
        memory="512m",
        cpus=0.5,
        pids_limit=64,
        env={"A": "1", "B": "two"},
        files={"notes/readme.txt": "hello"},
        cap_add=(),
    )


def test_config_is_hashable_and_frozen() -> None:
    config = _custom()
    assert config.env == (("A", "1"), ("B", "two"))
    assert {config: "x"}[_custom()] == "x"
    assert hash(DockerSandboxConfig()) != hash(config)
    with pytest.raises(ValidationError):
        config.memory = "2g"  # type: ignore[misc]


def test_config_round_trips_through_config_deserialize() -> None:
    config = _custom()
    as_json_dict = config.model_dump(mode="json")  # tuples become lists, as in an eval log
    assert isinstance(as_json_dict["env"], list)
    assert LooplabDockerSandbox.config_deserialize(as_json_dict) == config


def test_config_round_trips_through_inspect_spec_json() -> None:
    spec = SandboxEnvironmentSpec(SANDBOX_NAME, _custom())
    restored = SandboxEnvironmentSpec.model_validate_json(spec.model_dump_json())
    assert isinstance(restored.config, DockerSandboxConfig)
    assert restored.config == _custom()


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("memory", "lots"),
        ("cpus", 0),
        ("pids_limit", 2),
        ("workdir", "relative/dir"),
        ("env", {"BAD-NAME": "x"}),
        ("cap_add", ("chown; rm",)),
        ("no_such_field", 1),
    ],
)
def test_bad_config_names_the_field(field: str, value: object) -> None:
    with pytest.raises(ValidationError) as info:
        DockerSandboxConfig.model_validate({field: value})
    assert field in str(info.value)


def test_string_config_is_a_yaml_file(tmp_path: Path) -> None:
    path = tmp_path / "sandbox.yaml"
    path.write_text("memory: 256m\nenv:\n  FOO: bar\n", encoding="utf-8")
    config = resolve_config(str(path))
    assert config.memory == "256m" and config.env == (("FOO", "bar"),)
    assert resolve_config(None) == DockerSandboxConfig()


def test_bad_config_file_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text("memory: [1, 2]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="bad.yaml"):
        resolve_config(str(path))
    with pytest.raises(ValueError, match="missing.yaml"):
        resolve_config(str(tmp_path / "missing.yaml"))
    latin = tmp_path / "latin.yaml"
    latin.write_bytes(b"image: caf\xe9\n")
    with pytest.raises(ValueError, match=r"latin\.yaml is not UTF-8"):
        resolve_config(str(latin))


def test_sandbox_is_registered_and_import_is_cheap() -> None:
    assert registry_find_sandboxenv(SANDBOX_NAME) is LooplabDockerSandbox
    # Registering must not load the Docker SDK (let alone contact an engine).
    probe = "import sys, sandboxes.docker_provider; print('docker' in sys.modules)"
    out = subprocess.run(
        [sys.executable, "-c", probe], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def test_task_init_without_engine_suggests_local(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", "unix:///nonexistent.sock")
    with pytest.raises(SandboxNotReadyError) as info:
        asyncio.run(LooplabDockerSandbox.task_init("t", DockerSandboxConfig()))
    message = str(info.value)
    assert "sandbox=local" in message and "make sandbox" in message
    assert "/nonexistent.sock" in message


def test_tracking_is_scoped_per_task():
    """Two tasks with the same config run at once: one's cleanup must not see the other's."""
    import contextvars

    from sandboxes.config import DockerSandboxConfig
    from sandboxes.docker_engine import TASK_SCOPE, TRACKED

    config = DockerSandboxConfig()

    def add(scope: str, container_id: str) -> None:
        TASK_SCOPE.set(scope)
        TRACKED.add(container_id, config)

    try:
        contextvars.copy_context().run(add, "task-a", "container-a")
        contextvars.copy_context().run(add, "task-b", "container-b")
        assert TRACKED.ids(config, "task-a") == ["container-a"]
        assert TRACKED.ids(config, "task-b") == ["container-b"]
        assert set(TRACKED.ids(config)) >= {"container-a", "container-b"}
    finally:
        TRACKED.discard("container-a")
        TRACKED.discard("container-b")


def test_reuse_settings_are_validated() -> None:
    assert DockerSandboxConfig().reuse and DockerSandboxConfig().max_reuses == 50
    with pytest.raises(ValueError, match="max_reuses"):
        DockerSandboxConfig(max_reuses=0)
    with pytest.raises(ValueError, match="scratch_dirs"):
        DockerSandboxConfig(scratch_dirs=("/",))
    with pytest.raises(ValueError, match="scratch_dirs"):
        DockerSandboxConfig(scratch_dirs=("tmp",))
