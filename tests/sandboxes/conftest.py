"""Docker-marked tests here need a reachable engine and the sandbox image. Without them they are
skipped with the reason, unless LOOPLAB_REQUIRE_DOCKER is set (CI), where they run and fail."""

from __future__ import annotations

import os
from functools import cache

import pytest


@cache
def _docker_not_ready() -> str | None:
    """Why the engine/image are not usable, or None when they are."""
    from sandboxes.config import DEFAULT_IMAGE
    from sandboxes.docker_engine import SandboxNotReadyError, check_ready

    try:
        check_ready(DEFAULT_IMAGE)
    except SandboxNotReadyError as err:
        return str(err)
    return None


@pytest.fixture(autouse=True)
def _skip_without_docker(request: pytest.FixtureRequest) -> None:
    if request.node.get_closest_marker("docker") is None or os.environ.get(
        "LOOPLAB_REQUIRE_DOCKER"
    ):
        return
    reason = _docker_not_ready()
    if reason:
        pytest.skip(f"needs Docker (set LOOPLAB_REQUIRE_DOCKER=1 to fail instead): {reason}")
