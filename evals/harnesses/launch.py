"""How a harness spec is launched in its container: the argv with its placeholders filled in,
its environment, and the command root runs to start it as the sandbox's unprivileged user.

Shared by the samples (``evals.harnesses.bridge_agent``) and ``looplab check-harness``
(``evals.harnesses.check``); it imports no eval stack, so the check starts in a second.
"""

from __future__ import annotations

import json
from typing import Any

from evals.harnesses.spec import HOME_IN_IMAGE, HarnessSpec
from sandboxes.config import AGENT_USER
from sandboxes.model_relay import RELAY_PORT

HARNESS_PORT = RELAY_PORT
"""What the harness talks to: the container's model relay (the port of inspect's own bridge)."""
LOG = "/tmp/looplab-harness.log"
TASK_FILE = "/tmp/looplab-task.txt"
MODEL = "inspect"


def flatten(conditions: dict[str, Any], prefix: str = "") -> list[str]:
    """``{"a": {"b": 1}}`` → ``["a.b=1"]`` (leaves as YAML scalars; lists and maps as JSON)."""
    out: list[str] = []
    for key, value in conditions.items():
        path = f"{prefix}{key}"
        if isinstance(value, dict) and value:
            out.extend(flatten(value, f"{path}."))
        else:
            out.append(f"{path}={json.dumps(value) if isinstance(value, list | dict) else value}")
    return out


def command_for(spec: HarnessSpec, task: str, workdir: str, conditions: dict[str, Any],
                fallbacks: list[str]) -> list[str]:
    """The launch argv with its placeholders filled in."""
    values = placeholder_values(workdir) | {"{task}": task}
    argv: list[str] = []
    for arg in spec.launch:
        if arg == "{conditions}":
            argv += [x for item in flatten(conditions) for x in (spec.conditions_flag, item)]
        elif arg == "{fallbacks}":
            argv += [x for name in fallbacks for x in (spec.fallback_flag, name)]
        else:
            for key, value in values.items():
                arg = arg.replace(key, value)
            argv.append(arg)
    return argv


def placeholder_values(workdir: str) -> dict[str, str]:
    return {"{task_file}": TASK_FILE, "{base_url}": f"http://127.0.0.1:{HARNESS_PORT}/v1",
            "{bridge_url}": f"http://127.0.0.1:{HARNESS_PORT}", "{model}": MODEL, "{workdir}": workdir,
            "{home}": HOME_IN_IMAGE}


def environment(spec: HarnessSpec, workdir: str) -> dict[str, str]:
    values = placeholder_values(workdir)
    env = {"OPENAI_BASE_URL": values["{base_url}"], "OPENAI_API_KEY": "looplab",
           "ANTHROPIC_BASE_URL": values["{bridge_url}"], "ANTHROPIC_API_KEY": "looplab",
           "GOOGLE_GEMINI_BASE_URL": values["{bridge_url}"], "GEMINI_API_KEY": "looplab",
           "LOOPLAB_MODEL": MODEL, "LOOPLAB_TASK_FILE": TASK_FILE,
           # HOME in a scratch dir: a harness writing its config there keeps the container reusable
           "HOME": "/tmp/looplab-home", "LITELLM_LOCAL_MODEL_COST_MAP": "True",
           "NO_COLOR": "1", "TERM": "dumb", "PYTHONUNBUFFERED": "1"}
    for key, value in spec.env.items():
        for name, v in values.items():
            value = value.replace(name, v)
        env[key] = value
    return env



def launch_argv(limit: int, argv: list[str]) -> list[str]:
    """The command root runs in the sandbox to launch the harness ``argv`` for at most ``limit``
    seconds, its output in ``LOG``. Root starts it and waits for it: the harness's parent
    (`timeout`) is root's, so the harness cannot end its own run early by killing what waits for
    it. It runs as `agent` (setpriv), its OOM score raised first (its children inherit it)."""
    script = (f"install -d -o {AGENT_USER} -g {AGENT_USER} \"$HOME\" && "
              "echo 1000 > /proc/self/oom_score_adj && "
              f"exec timeout -k 5 {limit} setpriv --reuid={AGENT_USER} --regid={AGENT_USER} "
              f"--init-groups -- \"$@\" >{LOG} 2>&1 </dev/null")
    return ["bash", "-c", script, "harness", *argv]
