"""Builds the system prompt for a run.

Today: the configured prompt file. This is the seam for the tiered prompt (frozen / session-stable
/ volatile with a cache boundary), context files (AGENTS.md...) and the skills index.
"""

from __future__ import annotations

from harness.config import HarnessConfig
from harness.prompts import load_prompt
from harness.workspace import Workspace


async def build_system_prompt(config: HarnessConfig, workspace: Workspace) -> str:
    return load_prompt(config.system_prompt)
