"""Harness specs: a harness under test described as data (``sandboxes/harnesses/<id>/harness.yaml``).

A spec says how the harness's image is built from ``looplab-sandbox`` (pinned requirements
installed on the host and copied in), how it is launched with the task, which provider API it
speaks through inspect's sandbox agent bridge, its action dialect, and how it finishes. Specs
are found in ``sandboxes/harnesses/`` and in every folder named by ``LOOPLAB_HARNESSES``
(``os.pathsep``-separated), so a user adds a harness by adding one folder.
"""

from __future__ import annotations

import os
import re
from functools import cache
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

REPO = Path(__file__).resolve().parents[2]
SPECS_DIR = REPO / "sandboxes" / "harnesses"
SPEC_FILE = "harness.yaml"
HOME_IN_IMAGE = "/opt/looplab/harness"
"""Where the spec folder (launchers, ``site/`` with the installed requirements, ``project/``
with copied project packages) lies inside the image."""

DIALECTS = ("tools", "fenced-shell", "code", "text")
"""Action dialects (how the harness expects the model to act): ``tools`` native tool calls
(also harnesses that replay the history as text but take tool calls); ``fenced-shell`` a shell
command in a fenced block of the reply (mini-swe-agent's text mode); ``code`` Python code
actions (smolagents' CodeAgent); ``text`` plain text turns only."""

APIS = ("openai-chat", "openai-responses", "anthropic", "google")
_REQ_LINE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]*(\[[A-Za-z0-9,._-]+\])?==[A-Za-z0-9.+!_-]+$")


class SpecError(ValueError):
    """A harness spec that cannot be loaded or used (the message names file and field)."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class ImageSpec(_Strict):
    """How the harness's image is built (always FROM looplab-sandbox, offline)."""

    requirements: str | None = None
    """A pip requirements file in the spec folder, every line ``name==version``: installed on the
    host with ``pip install --target site`` for CPython 3.11 manylinux wheels, then copied in."""
    dockerfile: str | None = None
    """A Dockerfile in the spec folder (default: ``sandboxes/harnesses/Dockerfile.default``).
    It gets ``BASE_IMAGE`` and ``HARNESS_HOME`` as build args; the build context holds the
    spec folder, ``site/`` and ``project/``."""
    project: tuple[str, ...] = ()
    """looplab packages copied into ``project/`` (e.g. ``harness`` for the reference harness)."""
    npm: tuple[str, ...] = ()
    """npm packages (``name@version``) installed on the host with ``npm install --prefix npm``
    and copied in (CLI agents); ``npm/node_modules/.bin`` is on the PATH."""


class FinishSpec(_Strict):
    """How a run of the harness ends."""

    timeout_s: float = Field(600.0, gt=0, le=3600)
    """Wall-clock limit of one run, start-up aside; a harness still running at
    ``timeout_s`` + its start-up allowance is stopped (status ``timeout``)."""
    start_s: float = Field(30.0, ge=0, le=3600)
    """Start-up allowance: the time the harness may take from launch to its first model request
    on an idle machine. It is scaled by the machine's load (``load_factor``: the 1-minute load
    average per CPU, between 1 and ``MAX_LOAD_FACTOR``) and added to ``timeout_s``, so a slow
    start on a busy machine does not eat the run's own time (74-82 s to the first request of a
    Python harness at load 14 on 2 CPUs)."""
    model_call_limit: int = Field(80, ge=1, le=10_000)
    """Model calls after which the bridge answers every further call with an error (a harness
    that never stops by itself ends with status ``cut_off``)."""
    exit_statuses: dict[int, str] = Field(default_factory=lambda: {0: "completed"})
    """Process exit code → run status (``completed``, ``turn_limit``...); other codes: ``crashed``
    (``error`` is kept for a bug of looplab's own harness: the sample is then an error)."""
    how: str = "the process exits when the agent is done"
    """One line: how the harness decides it is done (shown in reports)."""


MAX_LOAD_FACTOR = 8.0
"""The most a start-up allowance is stretched by the machine's load."""


def load_factor() -> float:
    """The 1-minute load average per CPU of this machine (where the sandboxes run with the local
    Docker engine), between 1 and ``MAX_LOAD_FACTOR``."""
    try:
        per_cpu = os.getloadavg()[0] / (os.cpu_count() or 1)
    except OSError:  # no load average on this platform
        per_cpu = 1.0
    return min(MAX_LOAD_FACTOR, max(1.0, per_cpu))


def run_limit_s(finish: FinishSpec, factor: float | None = None) -> int:
    """The wall-clock limit of one run: ``timeout_s`` plus the start-up allowance at the
    machine's load (``factor``: ``load_factor()`` when left out)."""
    return int(finish.timeout_s + finish.start_s * (load_factor() if factor is None else factor))


class HarnessSpec(_Strict):
    """One harness under test, run as a process inside the sandbox against the bridge."""

    id: str = Field(pattern=r"^[a-z0-9][a-z0-9-]*$")
    """Stable id (kebab-case), the same as the folder name; used in ``CONFIGS=``."""
    description: str
    """One line: what the harness is and how it is configured."""
    api: Literal["openai-chat", "openai-responses", "anthropic", "google"] = "openai-chat"
    """The provider API it speaks (all are served by the bridge on ``{bridge_url}``)."""
    dialect: str = "tools"
    """How it expects the model to act: one of ``DIALECTS``."""
    launch: tuple[str, ...]
    """The command (argv, no shell) with placeholders: ``{task}`` the task text,
    ``{task_file}`` a file holding it, ``{base_url}`` the OpenAI-style base URL (``.../v1``),
    ``{bridge_url}`` the bridge root, ``{model}`` the model name (``inspect``), ``{workdir}``,
    ``{home}`` the spec folder inside the image; as whole arguments, ``{conditions}`` the
    scenario's deployment conditions (``conditions_flag key=value`` pairs) and ``{fallbacks}``
    its fallback models (``fallback_flag name`` pairs)."""
    env: dict[str, str] = Field(default_factory=dict)
    """Environment of the process (placeholders as in ``launch``), on top of the defaults
    (``OPENAI_BASE_URL``, ``OPENAI_API_KEY``, ``ANTHROPIC_BASE_URL``, ``HOME``...)."""
    conditions_flag: str = "--set"
    """The flag ``{conditions}`` puts before each ``key=value`` deployment condition."""
    fallback_flag: str = "--fallback-model"
    """The flag ``{fallbacks}`` puts before each fallback model name of the scenario."""
    own_context_tokens: int = Field(0, ge=0)
    """Tokens of the harness's own that every request carries (its instructions and tool
    definitions), added to each scenario's context window for this harness: a scenario's window
    is meant for the conversation, and a deployment picks a model whose window holds the
    harness's own text. Leave 0 unless the harness cannot start inside the scenarios' windows
    (default 16,384 tokens): then set it near its first request's size, which the eval log's
    first model call shows (codex-cli: about 16,700)."""
    image: ImageSpec = Field(default_factory=ImageSpec)
    finish: FinishSpec = Field(default_factory=FinishSpec)
    no_surface: dict[str, str] = Field(default_factory=dict)
    """Checklist item ids (or family prefixes like ``sessions.``) the harness offers nothing
    for → the reason; those items are reported not applicable."""
    folder: Path = Field(default=Path("."), exclude=True)
    """The spec's folder (set by the loader)."""

    @field_validator("dialect")
    @classmethod
    def _known_dialect(cls, value: str) -> str:
        if value not in DIALECTS:
            raise ValueError(f"unknown dialect {value!r}; valid: {', '.join(DIALECTS)}")
        return value

    @field_validator("launch")
    @classmethod
    def _non_empty(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value or not value[0]:
            raise ValueError("launch must name a program")
        return value

    def no_surface_reason(self, item_id: str) -> str | None:
        """Why the harness has no surface for ``item_id``, or None if it has one."""
        for key, reason in self.no_surface.items():
            if item_id == key or (key.endswith(".") and item_id.startswith(key)):
                return reason
        return None


def check_requirements(path: Path) -> list[str]:
    """The requirement lines of ``path``; every one must pin ``name==version``."""
    lines = [ln.split("#", 1)[0].strip() for ln in path.read_text(encoding="utf-8").splitlines()]
    reqs = [ln for ln in lines if ln]
    bad = [ln for ln in reqs if not _REQ_LINE.match(ln)]
    if bad:
        raise SpecError(f"{path}: requirements must be pinned as name==version, got {bad[:3]}")
    return reqs


def load_spec(folder: Path) -> HarnessSpec:
    """The spec in ``folder/harness.yaml``; a bad file raises ``SpecError`` naming it."""
    path = folder / SPEC_FILE
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError) as e:
        raise SpecError(f"{path}: cannot read harness spec: {e}") from e
    if not isinstance(data, dict):
        raise SpecError(f"{path}: a harness spec is a mapping of fields")
    try:
        spec = HarnessSpec.model_validate({**data, "folder": folder})
    except ValidationError as e:
        raise SpecError(f"{path}: invalid harness spec: {e}") from e
    if spec.id != folder.name:
        raise SpecError(f"{path}: id {spec.id!r} must equal the folder name {folder.name!r}")
    for field in ("requirements", "dockerfile"):
        name = getattr(spec.image, field)
        if name is not None and not (folder / name).is_file():
            raise SpecError(f"{path}: image.{field}: {name!r} is not a file in {folder}")
    if spec.image.requirements:
        check_requirements(folder / spec.image.requirements)
    return spec


def spec_folders() -> list[Path]:
    roots = [SPECS_DIR, *(Path(p) for p in os.environ.get("LOOPLAB_HARNESSES", "").split(os.pathsep) if p)]
    found: list[Path] = []
    for root in roots:
        if (root / SPEC_FILE).is_file():
            found.append(root)
        elif root.is_dir():
            found.extend(sorted(d for d in root.iterdir() if (d / SPEC_FILE).is_file()))
    return found


@cache
def _load_all(key: str) -> tuple[dict[str, HarnessSpec], dict[str, SpecError]]:
    # A broken spec is set aside under its folder name (its id, when it is right), so that one
    # bad folder blocks only the runs that select it.
    specs: dict[str, HarnessSpec] = {}
    broken: dict[str, SpecError] = {}
    for folder in spec_folders():
        try:
            spec = load_spec(folder)
            if spec.id in specs:
                raise SpecError(f"{folder}: harness id {spec.id!r} is already defined in "
                                f"{specs[spec.id].folder}")
        except SpecError as e:
            broken.setdefault(folder.name, e)
            continue
        specs[spec.id] = spec
    return specs, broken


def load_specs() -> dict[str, HarnessSpec]:
    """Every harness spec that loads, by id (cached per ``LOOPLAB_HARNESSES`` value)."""
    return _load_all(os.environ.get("LOOPLAB_HARNESSES", ""))[0]


def broken_specs() -> dict[str, SpecError]:
    """The spec folders that do not load, by folder name, with the error naming the file."""
    return _load_all(os.environ.get("LOOPLAB_HARNESSES", ""))[1]


def harness_ids() -> list[str]:
    return list(load_specs())


def get_spec(harness_id: str) -> HarnessSpec:
    """The spec ``harness_id``; a broken one raises its own error, an unknown one lists the valid."""
    specs = load_specs()
    if harness_id in specs:
        return specs[harness_id]
    if harness_id in broken_specs():
        raise broken_specs()[harness_id]
    raise SpecError(f"unknown harness spec {harness_id!r}; valid: {', '.join(specs) or '(none)'}")


def with_spec_folders(configs: str) -> str:
    """``configs`` (comma-separated) with every item that is a folder holding ``harness.yaml``
    replaced by the spec's id, that folder put first on ``LOOPLAB_HARNESSES`` (for this process
    and the ones it starts): ``--config path/to/my-agent`` works without exporting anything."""
    out = []
    for item in configs.split(","):
        folder = Path(item).expanduser()
        if os.sep in item or item.startswith("."):
            if not (folder / SPEC_FILE).is_file():
                raise SpecError(f"{item}: not a harness spec folder (no {SPEC_FILE} in it)")
            folder = folder.resolve()
            paths = [p for p in os.environ.get("LOOPLAB_HARNESSES", "").split(os.pathsep) if p]
            if str(folder) not in paths:
                os.environ["LOOPLAB_HARNESSES"] = os.pathsep.join([str(folder), *paths])
            item = load_spec(folder).id
        out.append(item)
    return ",".join(out)
