"""Peer harnesses driven the way ``harness_overhead`` drives looplab: an instant scripted model
that always asks for one call to a no-op tool, so what is timed is each harness's own work.

Each function returns the harness's per-turn overhead in microseconds (the time from the moment
one model call returned to the moment the next one began) or raises ``PeerUnavailable`` saying
why the peer could not run (not installed, or failed).

- inspect's ``react()`` with ``mockllm`` (in an ``eval`` with one sample: ``react`` needs an
  active sample). Every output carries token usage: without it mockllm counts tokens with a
  tokenizer it downloads, which fails offline.
- mini-swe-agent's ``DefaultAgent`` with its ``DeterministicModel`` test model, its default
  templates, and its local environment with an ``execute`` that does nothing (the no-op tool).
"""

from __future__ import annotations

import logging
import tempfile
import time
from collections.abc import Callable, Iterator
from typing import Any


class PeerUnavailable(Exception):
    """The peer could not be run here; the message says why."""


def gaps_us(starts: list[float], ends: list[float]) -> list[float]:
    """Per-turn overhead: from the end of model call i to the start of call i + 1."""
    return [(s - e) * 1e6 for e, s in zip(ends, starts[1:], strict=False)]


# --- inspect react() -----------------------------------------------------------------------------

def inspect_react_us(turns: int) -> list[float]:
    try:
        from inspect_ai import Task
        from inspect_ai import eval as inspect_eval
        from inspect_ai.agent import react
        from inspect_ai.dataset import Sample
        from inspect_ai.model import ModelOutput, ModelUsage, get_model
        from inspect_ai.tool import tool
    except ImportError as e:  # an optional peer: its absence is reported, not fatal
        raise PeerUnavailable(f"inspect_ai not importable: {e}") from e

    @tool
    def bench_noop() -> Callable[..., Any]:
        async def execute(i: int) -> str:
            """Does nothing (benchmark only).

            Args:
                i: A counter.
            """
            return "ok"

        return execute

    starts: list[float] = []
    ends: list[float] = []

    def outputs() -> Iterator[ModelOutput]:
        usage = ModelUsage(input_tokens=20, output_tokens=5, total_tokens=25)
        for i in range(turns + 2):
            starts.append(time.perf_counter())
            name, args = ("bench_noop", {"i": i}) if i <= turns else ("submit", {"answer": "done"})
            out = ModelOutput.for_tool_call("mockllm/model", name, args)
            out.usage = usage
            ends.append(time.perf_counter())
            yield out

    model = get_model("mockllm/model", custom_outputs=outputs())
    task = Task(dataset=[Sample(input="benchmark")], solver=react(tools=[bench_noop()]))
    with tempfile.TemporaryDirectory(prefix="looplab-bench-inspect-") as log_dir:
        logs = inspect_eval(task, model=model, log_dir=log_dir, display="none", score=False,
                            log_level="error")
    if logs[0].status != "success" or len(starts) < turns + 2:
        raise PeerUnavailable(f"inspect react() run ended early ({logs[0].status}, "
                              f"{len(starts)} model calls): {logs[0].error}")
    return gaps_us(starts, ends)[:turns]


# --- mini-swe-agent ------------------------------------------------------------------------------

def mini_swe_agent_us(turns: int) -> list[float]:
    try:
        import yaml
        from minisweagent import package_dir
        from minisweagent.agents.default import DefaultAgent
        from minisweagent.environments.local import LocalEnvironment
        from minisweagent.models.test_models import DeterministicModel, make_output
    except ImportError as e:  # an optional peer (the `dev` extra installs it)
        raise PeerUnavailable(f"mini-swe-agent not installed ({e}); "
                              "pip install 'mini-swe-agent>=1,<3'") from e
    logging.getLogger("agent").setLevel(logging.WARNING)
    starts: list[float] = []
    ends: list[float] = []

    class NoopEnvironment(LocalEnvironment):
        """The local environment (its template variables, its serialisation) with a no-op
        ``execute``: the benchmark's tool."""

        def execute(self, action: dict[str, Any], cwd: str = "", *, timeout: int | None = None
                    ) -> dict[str, Any]:
            return {"output": "ok", "returncode": 0, "exception_info": ""}

    class TimedModel(DeterministicModel):
        def query(self, messages: list[dict[str, Any]], **kwargs: Any) -> dict[str, Any]:
            starts.append(time.perf_counter())
            out = super().query(messages, **kwargs)
            ends.append(time.perf_counter())
            return out

    outputs = [make_output(f"step {i}", [{"command": f"noop {i}"}], cost=0.0)
               for i in range(turns + 1)]
    agent_cfg = yaml.safe_load((package_dir / "config" / "default.yaml").read_text())["agent"]
    agent_cfg.update(step_limit=turns + 1, cost_limit=0, output_path=None)
    agent = DefaultAgent(TimedModel(outputs=outputs), NoopEnvironment(), **agent_cfg)
    result = agent.run("benchmark")
    if len(starts) < turns + 1:
        raise PeerUnavailable(f"mini-swe-agent run ended early after {len(starts)} calls: {result}")
    return gaps_us(starts, ends)[:turns]


PEERS: dict[str, Callable[[int], list[float]]] = {
    "inspect-react": inspect_react_us,
    "mini-swe-agent": mini_swe_agent_us,
}
