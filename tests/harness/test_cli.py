"""``python -m harness`` as a real process against a real HTTP server on 127.0.0.1."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from openai_stub_server import StubServer, completion, error, ok

from harness.__main__ import EXIT_CODES, exit_code
from harness.status import ExitStatus

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def server() -> Iterator[StubServer]:
    with StubServer() as s:
        yield s


def cli(server: StubServer, *args: str, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    base_env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    return subprocess.run(
        [sys.executable, "-m", "harness", "--base-url", server.url + "/v1", "--model", "stub",
         *args],
        cwd=ROOT, env={**base_env, **(env or {})}, capture_output=True, text=True, timeout=120,
    )


def test_runs_a_task_and_streams_what_it_does(server: StubServer, tmp_path: Path) -> None:
    args = json.dumps({"path": "hello.txt", "content": "hello\n"})
    server.script = [ok(completion("I will write the file.", [("write_file", args)])),
                     ok(completion("Wrote hello.txt."))]
    out = cli(server, "--preset", "naive", "--workspace", str(tmp_path),
              "--api-key-env", "STUB_KEY", "write hello.txt", env={"STUB_KEY": "sk-1"})
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "hello.txt").read_text() == "hello\n"
    lines = out.stdout.splitlines()
    assert any(x.startswith("[turn 1] stub-model: I will write the file.") for x in lines)
    assert any(x.startswith("  -> write_file") and "hello.txt" in x for x in lines)
    assert any(x.startswith("  <- write_file [result]") for x in lines)
    assert lines[-1] == "Wrote hello.txt."
    assert any(x.startswith("[looplab] completed: 2 turns, 1 tool calls") for x in lines)
    assert all(h["authorization"] == "Bearer sk-1" for _, h in server.chat_requests())


def test_interventions_are_streamed(server: StubServer, tmp_path: Path) -> None:
    server.default = ok(completion(None, [("bash", '{"command": "echo again"}')]))
    out = cli(server, "--preset", "naive", "--workspace", str(tmp_path), "--max-turns", "8",
              "--set", "loop_detection.enabled=true", "--set", "loop_detection.critical_limit=1",
              "loop forever")
    assert out.returncode == EXIT_CODES[ExitStatus.CIRCUIT_BREAKER], out.stderr
    assert "  ! loop.warning" in out.stdout and "  ! loop.critical" in out.stdout
    assert "[LOOP DETECTED]" in out.stdout
    assert "[looplab] circuit_breaker:" in out.stdout


@pytest.mark.parametrize("preset, status", [
    ("naive", ExitStatus.PROVIDER_ERROR),
    ("looplab", ExitStatus.FALLBACKS_EXHAUSTED),
])
def test_auth_error_exit_codes(server: StubServer, tmp_path: Path, preset: str,
                               status: ExitStatus) -> None:
    server.default = error(401, "Incorrect API key provided")
    out = cli(server, "--preset", preset, "--workspace", str(tmp_path),
              "--set", "failover.enabled=" + ("true" if preset == "looplab" else "false"),
              "task")
    assert out.returncode == exit_code(status), out.stdout + out.stderr
    assert "  ! provider.error" in out.stdout and "kind=auth_error" in out.stdout


def test_fallback_model_and_cost_line(server: StubServer, tmp_path: Path) -> None:
    def by_model(payload, headers):
        if payload["model"] == "stub":
            return 429, {"error": {"message": "insufficient_quota"}}, {}
        return 200, completion("fallback finished", prompt_tokens=1_000_000,
                               completion_tokens=0), {}

    server.default = by_model
    out = cli(server, "--preset", "naive", "--workspace", str(tmp_path),
              "--fallback-model", "backup", "--set", "failover.enabled=true",
              "--set", "budget={enabled: true, price_per_mtok_in: 2.5}", "task")
    assert out.returncode == 0, out.stdout + out.stderr
    assert "  ! failover.switch old=stub new=backup kind=quota_exceeded" in out.stdout
    assert "[looplab] cost: $2.5000 (1,000,000 input / 0 output tokens)" in out.stdout


@pytest.mark.parametrize("args, needle", [
    (["--api-key-env", "NOT_SET_ANYWHERE", "t"], "--api-key-env NOT_SET_ANYWHERE"),
    (["--preset", "nope", "t"], "unknown preset 'nope'"),
    (["--set", "limits.max_turns=zero", "t"], "max_turns"),
    (["--set", "oops", "t"], "--set 'oops'"),
])
def test_bad_flags_exit_2_naming_the_flag(server: StubServer, tmp_path: Path, args: list[str],
                                          needle: str) -> None:
    out = cli(server, "--workspace", str(tmp_path), *args)
    assert out.returncode == 2 and needle in out.stderr
    assert server.requests == []


def test_every_status_has_a_distinct_exit_code() -> None:
    codes = [exit_code(s) for s in ExitStatus]
    assert len(set(codes)) == len(codes) and exit_code(ExitStatus.COMPLETED) == 0
    assert 2 not in codes  # reserved for usage errors
