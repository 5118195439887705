"""Benchmark tasks: small terminal tasks with hidden verifiers, each in a clean and in hostile
variants (data in ``scenarios/tasks/``)."""

from scenarios.bench.loader import (
    TASKS_DIR,
    BenchError,
    BenchSample,
    get_sample,
    load_task_file,
    load_tasks,
    load_variants,
    load_variants_file,
    select,
)
from scenarios.bench.schema import BenchTask, Variant

__all__ = [
    "TASKS_DIR", "BenchError", "BenchSample", "BenchTask", "Variant", "get_sample",
    "load_task_file", "load_tasks", "load_variants", "load_variants_file", "select",
]
