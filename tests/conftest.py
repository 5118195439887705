"""Suite-wide switches: tests marked ``docker`` or ``browser`` need a Docker engine with the
sandbox image, or Chromium. Without them they are skipped with the reason, unless CI requires
them (``LOOPLAB_REQUIRE_DOCKER=1`` / ``LOOPLAB_REQUIRE_BROWSER=1``), where they run and fail."""

from __future__ import annotations

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


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    need_docker = any(item.get_closest_marker("docker") for item in items)
    if need_docker and not os.environ.get("LOOPLAB_REQUIRE_DOCKER") and not docker_ready():
        skip = pytest.mark.skip(reason="no Docker engine/sandbox image (run `make sandbox`)")
        for item in items:
            if item.get_closest_marker("docker"):
                item.add_marker(skip)
    if not os.environ.get("LOOPLAB_REQUIRE_BROWSER") and not shutil.which("chromium"):
        skip = pytest.mark.skip(reason="Chromium not installed (run `make browser`)")
        for item in items:
            if item.get_closest_marker("browser"):
                item.add_marker(skip)
