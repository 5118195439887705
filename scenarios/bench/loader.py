"""Load benchmark tasks and variants, with errors that name the file and the field."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ValidationError

from scenarios.actor.policies.bench import BenchOracleParams
from scenarios.bench.schema import BenchTask, Variant
from scenarios.corpus import load_corpus

TASKS_DIR = Path(__file__).resolve().parent.parent / "tasks"
VARIANTS_FILE = "variants.yaml"
"""The variants live next to the tasks; every other ``*.yaml`` there is a task."""


class BenchError(ValueError):
    pass


def _format(path: Path, e: ValidationError, prefix: str = "") -> str:
    lines = [f"{path}: invalid benchmark data"]
    for err in e.errors():
        loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
        lines.append(f"  field {prefix}{loc}: {err['msg']}")
    return "\n".join(lines)


def _read_yaml(path: Path) -> Any:
    try:
        return yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as e:
        raise BenchError(f"{path}: not valid YAML: {e}") from e
    except OSError as e:
        raise BenchError(f"{path}: cannot read: {e}") from e


def _validate(path: Path, model: type[BaseModel], raw: Any, prefix: str = "") -> Any:
    try:
        return model.model_validate(raw)
    except ValidationError as e:
        raise BenchError(_format(path, e, prefix)) from e


def load_task_file(path: Path) -> BenchTask:
    raw = _read_yaml(path)
    if not isinstance(raw, dict):
        raise BenchError(f"{path}: expected a mapping at top level")
    task: BenchTask = _validate(path, BenchTask, raw)
    if path.stem != task.id:
        raise BenchError(f"{path}: field id: {task.id!r} must match the file name {path.stem!r}")
    _check_oracle(path, "oracle", task.oracle)
    return task


def _check_oracle(path: Path, field: str, params: dict[str, Any]) -> None:
    # The oracle is named in data; a typo in its steps should fail at load time, naming the field.
    if field == "oracle":
        _validate(path, BenchOracleParams, params, prefix="oracle.")
    else:
        _validate(path, BenchOracleParams, {"steps": [], **params}, prefix=f"{field}.")


def load_variants_file(path: Path) -> dict[str, Variant]:
    raw = _read_yaml(path)
    if not isinstance(raw, list) or not raw:
        raise BenchError(f"{path}: expected a non-empty list of variants")
    out: dict[str, Variant] = {}
    for i, entry in enumerate(raw):
        variant: Variant = _validate(path, Variant, entry, prefix=f"[{i}].")
        if variant.id in out:
            raise BenchError(f"{path}: field [{i}].id: duplicate variant {variant.id!r}")
        if "steps" in variant.oracle:
            raise BenchError(f"{path}: field [{i}].oracle.steps: the solution belongs to the task")
        _check_oracle(path, f"[{i}].oracle", variant.oracle)
        if variant.context_file is not None:
            _corpus_file(path, i, variant)
        out[variant.id] = variant
    if not any(not v.hostile for v in out.values()):
        raise BenchError(f"{path}: no variant has hostile: false (the clean baseline)")
    return out


def _corpus_file(path: Path, i: int, variant: Variant) -> tuple[str, str]:
    ref = variant.context_file
    assert ref is not None
    found = [e for e in load_corpus(ref.corpus) if e.id == ref.entry]
    if not found:
        raise BenchError(f"{path}: field [{i}].context_file.entry: no entry {ref.entry!r} in the "
                         f"{ref.corpus} corpus")
    return found[0].file or f"corpus-{ref.entry}.txt", found[0].content(ref.corpus)


@cache
def load_tasks(directory: Path = TASKS_DIR) -> dict[str, BenchTask]:
    """All tasks in ``directory`` by id (sorted)."""
    if not directory.is_dir():
        raise BenchError(f"task directory {directory} does not exist")
    paths = [p for p in sorted(directory.glob("*.yaml")) if p.name != VARIANTS_FILE]
    if not paths:
        raise BenchError(f"task directory {directory} holds no task files")
    return {t.id: t for t in (load_task_file(p) for p in paths)}


@cache
def load_variants(directory: Path = TASKS_DIR) -> dict[str, Variant]:
    path = directory / VARIANTS_FILE
    if not path.exists():
        raise BenchError(f"{path} does not exist")
    return load_variants_file(path)


@dataclass(frozen=True)
class BenchSample:
    """One task in one variant: what the sandbox, the agent and the verifier get."""

    task: BenchTask
    variant: Variant

    @property
    def id(self) -> str:
        return f"{self.task.id}--{self.variant.id}"

    @property
    def prompt(self) -> str:
        suffix = self.variant.prompt_suffix.strip()
        return f"{self.task.prompt.strip()}\n\n{suffix}" if suffix else self.task.prompt.strip()

    @property
    def files(self) -> dict[str, str]:
        files = {**self.task.files, **self.variant.files}
        if self.variant.context_file is not None:
            name, content = _corpus_file(TASKS_DIR / VARIANTS_FILE, 0, self.variant)
            files[name] = content
        return files

    @property
    def setup(self) -> list[str]:
        return [*self.task.setup, *self.variant.setup]

    def oracle_params(self) -> dict[str, Any]:
        return {**self.task.oracle, **self.variant.oracle}


def _split(value: str | list[str] | None) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [v.strip() for v in value.split(",") if v.strip()]
    return [v.strip() for v in value if v.strip()]


def select(tasks: str | list[str] | None = None, variants: str | list[str] | None = None,
           directory: Path = TASKS_DIR) -> list[BenchSample]:
    """Samples for comma-separated task and variant ids (all of each when empty), task-major."""
    all_tasks, all_variants = load_tasks(directory), load_variants(directory)
    task_ids, variant_ids = _split(tasks) or list(all_tasks), _split(variants) or list(all_variants)
    for flag, ids, known in (("tasks", task_ids, all_tasks), ("variants", variant_ids, all_variants)):
        unknown = [i for i in ids if i not in known]
        if unknown:
            raise BenchError(f"{flag}: unknown id(s) {', '.join(unknown)}; valid: {', '.join(known)}")
    return [BenchSample(all_tasks[t], all_variants[v]) for t in task_ids for v in variant_ids]


def get_sample(sample_id: str, directory: Path = TASKS_DIR) -> BenchSample:
    task_id, sep, variant_id = sample_id.partition("--")
    if not sep:
        raise BenchError(f"benchmark sample id {sample_id!r} is not <task>--<variant>")
    [sample] = select([task_id], [variant_id], directory)
    return sample
