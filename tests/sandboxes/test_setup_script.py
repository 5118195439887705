"""sandboxes/setup.sh: syntax, options, exit codes and mirror discovery. These runs never touch a
real engine: DOCKER_HOST points at a socket that does not exist, which the script must not try
to 'fix' by installing or starting anything."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SETUP = ROOT / "sandboxes" / "setup.sh"


IMAGE = os.environ.get("LOOPLAB_SANDBOX_IMAGE") or "looplab-sandbox:latest"
"""The image this checkout's tests use (a shared engine may hold other checkouts' tags)."""


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items()
            if not k.startswith("LOOPLAB_") or k == "LOOPLAB_SANDBOX_IMAGE"}
    return subprocess.run(
        ["bash", str(SETUP), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**base, **env},
    )


def test_script_parses() -> None:
    result = subprocess.run(["bash", "-n", str(SETUP)], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr


def test_unknown_option_is_usage_error() -> None:
    result = _run("--frobnicate")
    assert result.returncode == 2
    assert "--frobnicate" in result.stderr and "--check" in result.stderr


def test_help_lists_options_and_exit_codes() -> None:
    result = _run("--help")
    assert result.returncode == 0
    assert "--check" in result.stdout and "Exit codes" in result.stdout


def test_check_without_engine_reports_not_ready() -> None:
    result = _run("--check", DOCKER_HOST="unix:///nonexistent.sock")
    assert result.returncode == 1
    assert "engine: not reachable" in result.stdout and "sandbox=local" in result.stdout


def test_setup_does_not_start_an_engine_for_a_foreign_docker_host() -> None:
    result = _run(DOCKER_HOST="unix:///nonexistent.sock")
    assert result.returncode == 3
    assert "DOCKER_HOST=unix:///nonexistent.sock" in result.stderr
    assert "sandbox=local" in result.stderr


@pytest.mark.parametrize(
    ("name", "text"),
    [
        (
            "sources.list.d/debian.sources",
            "Types: deb\n# a comment\nURIs: http://mirror.example/security\n"
            "Suites: bookworm-security\nComponents: main\n\n"
            "Types: deb deb-src\nURIs: http://mirror.example/debian\n"
            "Suites: bookworm bookworm-updates\nComponents: main\n",
        ),
        (
            "sources.list",
            "# comment\ndeb-src http://src.example/debian bookworm main\n"
            "deb [arch=amd64 signed-by=/k.gpg] http://mirror.example/debian bookworm main\n",
        ),
    ],
)
def test_mirror_is_read_from_apt_sources(tmp_path: Path, name: str, text: str) -> None:
    (tmp_path / "sources.list.d").mkdir()
    (tmp_path / name).write_text(text, encoding="utf-8")
    result = _run("--print-mirror", LOOPLAB_APT_DIR=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "http://mirror.example/debian"


def test_no_mirror_is_a_clear_failure(tmp_path: Path) -> None:
    (tmp_path / "sources.list").write_text("deb http://x.example/ubuntu jammy main\n")
    result = _run("--print-mirror", LOOPLAB_APT_DIR=str(tmp_path))
    assert result.returncode == 4
    assert "LOOPLAB_DEBIAN_MIRROR" in result.stderr


@pytest.mark.docker
def test_check_and_fast_path_on_a_ready_engine() -> None:
    ready = _run("--check")
    assert ready.returncode == 0, ready.stdout + ready.stderr
    assert "up to date" in ready.stdout

    missing = _run("--check", LOOPLAB_SANDBOX_IMAGE="looplab-sandbox:no-such-tag")
    assert missing.returncode == 1 and "missing" in missing.stdout

    again = _run()  # everything present: reports each step, builds nothing
    assert again.returncode == 0, again.stderr
    assert f"image: {IMAGE} up to date" in again.stdout
    assert "building" not in again.stdout
    # one witness (an inotify instance) per sandbox: as root the script lifts the per-user bound
    assert "inotify:" in again.stdout
    if os.geteuid() == 0:
        assert int(Path("/proc/sys/fs/inotify/max_user_instances").read_text()) >= 8192
