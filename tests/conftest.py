"""Suite-wide switches: tests marked ``docker``, ``browser``, ``vllm`` or ``ray`` need a Docker
engine with the sandbox image, Chromium, the vLLM environment (``.venv-vllm``) or Ray (the ``ray``
extra, which ``make test`` installs). Without them they are skipped with the reason, unless CI
requires them (``LOOPLAB_REQUIRE_DOCKER=1`` / ``LOOPLAB_REQUIRE_BROWSER=1`` /
``LOOPLAB_REQUIRE_VLLM=1`` / ``LOOPLAB_REQUIRE_RAY=1``), where they run and fail."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from functools import cache
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


@cache
def docker_ready() -> bool:
    try:
        res = subprocess.run(["bash", str(ROOT / "sandboxes" / "setup.sh"), "--check"],
                             capture_output=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return res.returncode == 0


def _keep_xdist_groups(config: pytest.Config, items: list[pytest.Item]) -> None:
    """``--dist loadgroup`` sends a group's tests to one worker by a ``@group`` suffix on their
    node ids. pytest-xdist 3.8 writes it to ``item._nodeid``, which pytest 9 no longer reads (the
    id is ``item._id``): every group was spread over all workers, so the family tests of one
    family waited on each other's cached eval and each worker could start its own Ray cluster.
    Until xdist follows, the suffix is written where pytest reads it."""
    try:
        from _pytest.nodeid import coerce_node_id  # pytest >= 9 (older ones read _nodeid)
    except ImportError:
        return
    if not config.getoption("loadgroup", default=False):
        return
    for item in items:
        names = {str(m.args[0] if m.args else m.kwargs.get("name", "default"))
                 for m in item.iter_markers("xdist_group")}
        if names and "@" not in item.nodeid:
            item._id = coerce_node_id(f"{item.nodeid}@{'_'.join(sorted(names))}")  # type: ignore[attr-defined]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    _keep_xdist_groups(config, items)
    need_docker = any(item.get_closest_marker("docker") for item in items)
    if need_docker and not os.environ.get("LOOPLAB_REQUIRE_DOCKER") and not docker_ready():
        skip = pytest.mark.skip(reason="no Docker engine/sandbox image (run `make sandbox`)")
        for item in items:
            if item.get_closest_marker("docker"):
                item.add_marker(skip)
    vllm_py = ROOT / ".venv-vllm" / "bin" / "python"
    if not os.environ.get("LOOPLAB_REQUIRE_VLLM") and not vllm_py.exists():
        skip = pytest.mark.skip(reason="no vLLM environment (run `make vllm-env`)")
        for item in items:
            if item.get_closest_marker("vllm"):
                item.add_marker(skip)
    if not os.environ.get("LOOPLAB_REQUIRE_RAY") and importlib.util.find_spec("ray") is None:
        skip = pytest.mark.skip(reason="Ray not installed (pip install -e '.[ray]'; make test does)")
        for item in items:
            if item.get_closest_marker("ray"):
                item.add_marker(skip)
    if not os.environ.get("LOOPLAB_REQUIRE_BROWSER") and not shutil.which("chromium"):
        skip = pytest.mark.skip(reason="Chromium not installed (run `make browser`)")
        for item in items:
            if item.get_closest_marker("browser"):
                item.add_marker(skip)
