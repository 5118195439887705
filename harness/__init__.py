"""looplab's reference agent harness: the system under test.

Pure Python (pydantic only). It never imports inspect, docker, scenarios or evals, so it can be
used on its own (``python -m harness`` against any OpenAI-compatible server).
"""

from harness.config import HarnessConfig
from harness.loop import Agent, RunResult
from harness.messages import Message, ToolCall
from harness.model import Model, ModelReply, Usage
from harness.presets import PRESETS, get_preset, preset_names
from harness.status import ExitStatus
from harness.workspace import ExecResult, LocalWorkspace, Workspace

__all__ = [
    "Agent",
    "ExecResult",
    "ExitStatus",
    "HarnessConfig",
    "LocalWorkspace",
    "Message",
    "Model",
    "ModelReply",
    "PRESETS",
    "RunResult",
    "ToolCall",
    "Usage",
    "Workspace",
    "get_preset",
    "preset_names",
]
