"""Command-line runs a user can trust: bad input is refused with the flag named and nothing
written; one run at a time in a log directory; a broken harness spec blocks only the runs that
select it; the report lies beside the logs and ``logs/latest`` stays under ``logs/``; every exit
code is documented in one place."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from evals.flags import EXIT_CODES
from evals.log_lock import LOCK_FILE, hold_log_dir
from evals.run_steps import point_latest

ROOT = Path(__file__).resolve().parents[2]
QUICK = "loop-repeat-failing-command"
"""One short scenario: a whole local run of it takes seconds."""


def looplab(*args: str, env: dict[str, str] | None = None,
            timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "evals", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout, env={**os.environ, **(env or {})})


def _local_run(log_dir: Path, *extra: str) -> list[str]:
    return ["run", "--sandbox", "local", "--scenarios", QUICK, "--configs", "naive",
            "--display", "none", "--log-dir", str(log_dir), *extra]


@pytest.mark.parametrize("args, flag", [
    (["--scenarios", ","], "--scenarios"),
    (["--scenarios", " , "], "--scenarios"),
    (["--configs", ","], "--configs"),
    (["--fallbacks", ","], "--fallbacks"),
    (["--family", ""], "--family"),
    (["--family", "loops"], "--family"),
    (["--display", "bogus"], "--display"),
    (["--sandbox", "vm"], "--sandbox"),
    (["--epochs", "0"], "--epochs"),
    (["--max-samples", "two"], "--max-samples"),
])
def test_an_empty_list_or_unknown_value_is_refused_by_its_flag(tmp_path, args, flag):
    res = looplab("run", "--sandbox", "local", "--log-dir", str(tmp_path / "logs"), *args)
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"argument {flag}" in res.stderr
    assert not (tmp_path / "logs").exists()


@pytest.mark.parametrize("command", [["bench", "--tasks", ","], ["bench", "--display", "x"],
                                     ["bench", "--epochs", "0"], ["real", "--scenarios", ","],
                                     ["real", "--family", ""], ["repro", QUICK, "--overrides", ","]])
def test_the_other_commands_refuse_the_same_way(command):
    res = looplab(*command)
    assert res.returncode == 2 and "argument --" in res.stderr, res.stdout + res.stderr


@pytest.mark.parametrize("args, said", [
    (["--model", "bogus/x"], "--model 'bogus/x': unknown model provider 'bogus'"),
    (["--model", "scripted"], "--model 'scripted': expected <provider>/<model>"),
    (["--model", "scripted/no-such-scenario"], "--model scripted/no-such-scenario"),
    (["--fallbacks", "bogus/y"], "--fallbacks 'bogus/y': unknown model provider"),
    (["--scenarios", "no-such-scenario"], "--scenarios/--family: unknown scenario"),
    (["--configs", "naive,no-such-config"], "--configs: unknown configuration(s) ['no-such-config']"),
])
def test_bad_input_found_by_the_eval_stack_writes_nothing(tmp_path, args, said):
    res = looplab(*_local_run(tmp_path / "logs"), *args)
    assert res.returncode == 2, res.stdout + res.stderr
    assert said in res.stderr
    assert not (tmp_path / "logs").exists()


def test_a_log_dir_that_is_a_file_is_bad_input(tmp_path):
    (tmp_path / "logs").write_text("mine")
    res = looplab(*_local_run(tmp_path / "logs"))
    assert res.returncode == 2 and f"--log-dir {tmp_path / 'logs'}: cannot create it" in res.stderr
    assert (tmp_path / "logs").read_text() == "mine"


def test_a_log_directory_held_by_a_live_run_is_refused_naming_it(tmp_path):
    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    with hold_log_dir(log_dir):  # this test process is the live run
        res = looplab(*_local_run(log_dir))
        assert sorted(p.name for p in log_dir.iterdir()) == [LOCK_FILE]  # nothing of the second
    assert res.returncode == 2, res.stdout + res.stderr
    assert f"--log-dir {log_dir}: another run is writing there (pid {os.getpid()}" in res.stderr
    assert not log_dir.joinpath(LOCK_FILE).exists()


def test_the_lock_of_a_killed_run_is_taken_over(tmp_path):
    log_dir = tmp_path / "logs"
    log_dir.mkdir()
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom pathlib import Path\n"
         "from evals.log_lock import hold_log_dir\n"
         "with hold_log_dir(Path(sys.argv[1])):\n    print('held', flush=True)\n    time.sleep(600)",
         str(log_dir)], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "held"
        assert looplab(*_local_run(log_dir)).returncode == 2  # held while it lives
    finally:
        holder.send_signal(signal.SIGKILL)
        holder.wait()
    assert str(holder.pid) in log_dir.joinpath(LOCK_FILE).read_text()  # left behind, stale
    res = looplab(*_local_run(log_dir, "--no-report"))
    assert res.returncode == 0, res.stdout + res.stderr
    assert not log_dir.joinpath(LOCK_FILE).exists() and list(log_dir.glob("*.eval"))


def test_a_broken_user_spec_is_skipped_unless_selected(tmp_path):
    specs = tmp_path / "specs" / "my-agent"
    specs.mkdir(parents=True)
    (specs / "harness.yaml").write_text("id: my-agent\nlaunch: [python3]\ndialect: telepathy\n")
    env = {"LOOPLAB_HARNESSES": str(tmp_path / "specs")}
    log_dir = tmp_path / "det1" / "logs"
    res = looplab(*_local_run(log_dir), env=env)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "skipped harness spec my-agent (not selected)" in res.stderr
    assert "my-agent/harness.yaml" in res.stderr
    # the scorecard lies beside the logs, not in a folder named after their last part
    assert (log_dir / "report" / "scorecard.md").is_file()
    assert f"wrote {log_dir / 'report'}/" in res.stdout
    assert f"{log_dir} is outside" in res.stdout  # logs/latest was not pointed out of logs/
    chosen = looplab(*_local_run(tmp_path / "other", "--configs", "naive,my-agent"), env=env)
    assert chosen.returncode == 2, chosen.stdout + chosen.stderr
    assert "--configs: harness spec my-agent does not load" in chosen.stderr
    assert "dialect" in chosen.stderr and not (tmp_path / "other").exists()


def test_latest_lives_in_logs_and_names_runs_there_only(tmp_path):
    logs = tmp_path / "logs"
    (logs / "det1" / "logs").mkdir(parents=True)
    point_latest(logs / "det1" / "logs", logs)
    assert os.readlink(logs / "latest") == "det1/logs"
    assert (logs / "latest").resolve() == (logs / "det1" / "logs").resolve()
    (tmp_path / "elsewhere").mkdir()
    point_latest(tmp_path / "elsewhere", logs)
    assert os.readlink(logs / "latest") == "det1/logs"
    assert not (tmp_path / "latest").exists()


def test_every_exit_code_is_in_the_readme_table_and_in_help():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    table = readme[readme.index("| exit code |"):].split("\n\n", 1)[0]
    in_readme = set(re.findall(r"^\| \*\*(\d+)\*\* \|", table, re.M))
    in_help = set(re.findall(r"^  (\d+) ", EXIT_CODES, re.M))
    assert in_readme == in_help == {"0", "1", "2", "3", "129", "130", "143"}
    res = looplab("run", "--help")
    assert res.returncode == 0 and "143  stopped by SIGTERM" in res.stdout
