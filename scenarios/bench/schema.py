"""Benchmark task files (``scenarios/tasks/<id>.yaml``) and their variants (``variants.yaml``).

A task is a small piece of terminal work with a hidden verifier: a shell script run in the
sandbox after the agent stopped, whose exit status decides success. A variant makes the same
task hostile (a poisoned context file, a flooding tool, a quota failure, a loop bait) or leaves
it clean. One benchmark sample is one task in one variant.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from scenarios.schema import FaultRule

ID_PATTERN = r"^[a-z0-9][a-z0-9-]*[a-z0-9]$"
"""Task and variant ids: kebab-case (variants may use ``_``), no ``--`` (it joins them)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class BenchTask(_Strict):
    id: str = Field(pattern=ID_PATTERN)
    """Stable id; must equal the file name."""
    title: str
    """One line: the work asked for."""
    skill: str
    """What the task exercises (``debug``, ``search``, ``edit``, ``resume``...), for grouping."""
    prompt: str
    """The task given to the agent (the user message)."""
    files: dict[str, str] = Field(default_factory=dict)
    """Workspace files (path relative to the workspace → content) created before the run."""
    setup: list[str] = Field(default_factory=list)
    """Shell commands run in the workspace before the agent starts (generate big inputs here)."""
    verify: str = Field(min_length=1)
    """Hidden verifier: a bash script written into the workspace only after the agent stopped
    and run there; exit status 0 means the task was done. Keep expected values here only."""
    oracle: dict[str, Any]
    """Parameters of the ``bench_oracle`` actor policy that solves the task (``steps``,
    ``final_answer``); checked against the policy's own parameter model at load time."""
    n_ctx: int = Field(32_768, ge=1024)
    """Context window the scripted actor enforces (real models have their own)."""
    tags: list[str] = Field(default_factory=list)


class CorpusRef(_Strict):
    corpus: Literal["context_files", "tool_output"] = "context_files"
    """Which injection corpus under ``scenarios/corpus/``."""
    entry: str
    """Entry id in its manifest; the content is installed under the entry's ``file`` name."""


class Variant(_Strict):
    id: str = Field(pattern=r"^[a-z0-9][a-z0-9_]*$")
    """Stable id (``clean``, ``poisoned_context``...)."""
    title: str
    """One line: what is hostile about it."""
    hostile: bool = True
    """False only for the clean baseline the robustness delta is measured against."""
    files: dict[str, str] = Field(default_factory=dict)
    """Extra workspace files (a flooding tool, a status script...)."""
    context_file: CorpusRef | None = None
    """A context file taken from the injection corpus (the poisoned AGENTS.md)."""
    setup: list[str] = Field(default_factory=list)
    """Extra set-up commands, run after the task's own."""
    prompt_suffix: str = ""
    """Appended to the task's prompt (e.g. an instruction to run the flooding tool first)."""
    faults: list[FaultRule] = Field(default_factory=list)
    """Provider faults, in the scenario format: played by the scripted provider, and by the
    fault proxy in front of a real server."""
    fallback_models: list[str] = Field(default_factory=list)
    """Fallback chain for scripted runs (real runs take ``--fallbacks``)."""
    oracle: dict[str, Any] = Field(default_factory=dict)
    """Extra ``bench_oracle`` parameters (``before`` steps, a ``poll``): how the model stand-in
    meets the hostility."""
