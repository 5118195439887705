"""Fixtures for the reports tests: real inspect logs written by ``logbuilder``."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

# logbuilder sits next to this file; make it importable whatever pytest's import mode is.
if str(Path(__file__).parent) not in sys.path:
    sys.path.insert(0, str(Path(__file__).parent))

import logbuilder  # noqa: E402

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def standard_logs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The standard run (3 configurations, 2 epochs, corpus, errored and cancelled samples)."""
    return logbuilder.standard_run(tmp_path_factory.mktemp("logs") / "20261121-203000")


@pytest.fixture(scope="session")
def standard_run(standard_logs: Path):
    from reports.load import load_run

    return load_run(standard_logs)


def _run_cli(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([sys.executable, "-m", "reports", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=300)


@pytest.fixture
def cli():
    """``cli(*args)``: run ``python -m reports ARGS`` in a real subprocess."""
    return _run_cli
