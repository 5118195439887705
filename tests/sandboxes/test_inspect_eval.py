"""A real inspect eval on the looplab-docker sandbox: task_init, Sample.files, exec through
`sandbox()`, and cleanup at the end, driven by inspect itself (no model call is made)."""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.solver import Generate, TaskState, solver
from inspect_ai.util import SandboxEnvironmentSpec, sandbox
from sandbox_helpers import container_exists

from sandboxes.config import DockerSandboxConfig
from sandboxes.docker_provider import SANDBOX_NAME, LooplabDockerSandbox

pytestmark = pytest.mark.docker


@solver
def run_in_sandbox():
    async def solve(state: TaskState, generate: Generate) -> TaskState:
        box = sandbox()  # inspect hands out a proxy that records events
        result = await box.exec(["bash", "-c", 'cat given.txt; echo "$PROBE"; ls /sys/class/net'])
        state.metadata["container_id"] = box.as_type(LooplabDockerSandbox).container_id
        state.metadata["stdout"] = result.stdout
        return state

    return solve


def test_inspect_eval_runs_on_looplab_docker(tmp_path: Path) -> None:
    config = DockerSandboxConfig(env={"PROBE": "from-config"})
    task = Task(
        dataset=[Sample(input="x", files={"given.txt": "hello\n"})],
        solver=run_in_sandbox(),
        sandbox=SandboxEnvironmentSpec(SANDBOX_NAME, config),
    )
    (log,) = eval(task, model="mockllm/model", log_dir=str(tmp_path), display="none")
    assert log.status == "success", log.error
    assert log.samples is not None
    sample = log.samples[0]
    assert sample.metadata["stdout"].split() == ["hello", "from-config", "lo"]
    assert not container_exists(sample.metadata["container_id"])
    # The log records the config; it must come back as our model.
    assert log.eval.sandbox is not None and log.eval.sandbox.config == config
