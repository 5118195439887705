"""What every run does, whichever command line starts it (``evals.runs``): pick configurations
and scenarios, check the models, bring up the sandbox, make and hold the log directory, judge the
run's outcome from its logs, write the report and point ``logs/latest``.

Bad input raises ``RunError`` before anything runs or is written (the command line prints it and
exits 2). Exit codes of a run: 0 complete, 1 a sample errored or a log did not finish, 130
interrupted (143 SIGTERM, 129 SIGHUP: ``evals.stopping``).
"""

from __future__ import annotations

import subprocess
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any

from inspect_ai._util.entrypoints import ensure_entry_points  # no public API lists providers
from inspect_ai._util.registry import registry_find, registry_unqualified_name

from evals.bench.provider import PROVIDER
from evals.harnesses.spec import broken_specs
from evals.library import load_library, select
from evals.log_lock import hold_log_dir
from evals.sandbox_check import ready as sandbox_ready
from evals.scripted_provider import check_model_name
from evals.stopping import EXIT_INTERRUPTED
from evals.task import configurations
from sandboxes.k8s_values import missing_prerequisites
from scenarios.bench.actors import ACTORS
from scenarios.loader import ScenarioError

ROOT = Path(__file__).resolve().parent.parent
SETUP = ROOT / "sandboxes" / "setup.sh"
LOGS = ROOT / "logs"
"""Home of the default log directories and of ``logs/latest``."""
EXIT_ERRORED = 1
EXIT_BAD_INPUT = 2
SHOW_ERRORS = 10
"""Errored samples named on stderr (the rest are counted)."""


class RunError(ValueError):
    """Bad input to a run, found before anything ran: the command line prints it, exits 2."""


# --- what every run does ------------------------------------------------------------------------

def select_configs(text: str, flag: str = "--configs") -> list[str]:
    """``--configs``: comma-separated configurations, or ``all``. A harness spec that does not
    load is an error when named, and otherwise said and left out."""
    names = [c.strip() for c in text.split(",") if c.strip()]
    broken = broken_specs()
    named = [c for c in names if c in broken]
    if named:
        raise RunError(f"{flag}: harness spec {named[0]} does not load: {broken[named[0]]}")
    for name, error in broken.items():
        print(f"looplab: skipped harness spec {name} (not selected): {error}", file=sys.stderr)
    if names == ["all"]:
        return configurations()
    unknown = [c for c in names if c not in configurations()]
    if unknown or not names:
        raise RunError(f"{flag}: unknown configuration(s) {unknown}; valid: {', '.join(configurations())}")
    return names


def select_scenarios(ids: str, family: str, suite: str = "all") -> list:
    """``--scenarios``, ``--family`` and ``--suite`` (every scenario when all are left out)."""
    load_library()  # a damaged scenario file is named by its own error
    try:
        return select(ids or None, family or None, suite)
    except ScenarioError as e:  # an unknown id would list all 721: `looplab list` shows them
        raise RunError(f"--scenarios/--family: {str(e).split('; valid ids:')[0]} "
                       "(`looplab list` lists them)") from e


def check_model(model: str, flag: str = "--model") -> None:
    """``provider/name`` with a provider inspect knows (its own or an entry point's, such as
    ``scripted``), checked before a log directory is made; a scripted name names a scenario,
    role or actor."""
    provider, _, name = model.partition("/")
    if not provider or not name:
        raise RunError(f"{flag} {model!r}: expected <provider>/<model>, e.g. scripted/suite")
    ensure_entry_points()
    if not registry_find(lambda info: info.type == "modelapi"
                         and registry_unqualified_name(info) == provider):
        raise RunError(f"{flag} {model!r}: unknown model provider {provider!r} (inspect's "
                       "providers, scripted, scripted-bench)")
    if provider == "scripted":
        check_model_name(name)
    if provider == PROVIDER and name not in ACTORS:
        raise RunError(f"{flag} {model!r}: unknown actor; valid: "
                       + ", ".join(f"{PROVIDER}/{a}" for a in ACTORS))


def check_models(model: str, fallbacks: str) -> None:
    check_model(model)
    for fallback in filter(None, fallbacks.split(",")):
        check_model(fallback.strip(), "--fallbacks")


def ensure_sandbox(kind: str, check: Any = None) -> None:
    """Bring up the Docker engine and image (idempotent); say clearly when that is impossible.
    ``check``: the read-only readiness check the command line started (``evals.sandbox_check``):
    when it found everything ready, there is nothing to do."""
    if kind == "k8s":
        missing = missing_prerequisites()
        if missing:
            raise RunError("sandbox=k8s needs " + "; ".join(missing)
                           + ". Step by step: sandboxes/README.md (Kubernetes).")
        print("looplab: sandbox=k8s: sandboxes are pods on the current kubeconfig context.",
              flush=True)
        return
    if kind != "docker":
        print(f"looplab: sandbox={kind}: commands run directly on this machine, without isolation.",
              file=sys.stderr)
        return
    if sandbox_ready(check):
        print("looplab: Docker engine up, sandbox image current (sandboxes/setup.sh --check)",
              flush=True)
        return
    print("looplab: checking the Docker engine and sandbox image (sandboxes/setup.sh)...", flush=True)
    res = subprocess.run(["bash", str(SETUP)], cwd=ROOT)
    if res.returncode != 0:
        raise RunError("no usable Docker engine or sandbox image (see above). Without Docker, run "
                       "the scripted suite unisolated with: make eval SANDBOX=local")


def new_log_dir(given: str, default_name: str) -> Path:
    """``given`` (``--log-dir``), else ``logs/<default_name>``, created."""
    path = Path(given).resolve() if given else LOGS / default_name
    try:
        path.mkdir(parents=True, exist_ok=True)
    except OSError as e:  # a file of that name, no permission: bad input, said in one line
        raise RunError(f"--log-dir {path}: cannot create it ({e.strerror})") from e
    return path


@contextmanager
def held_log_dir(given: str, default_name: str) -> Iterator[Path]:
    """``new_log_dir``, held by this run while the block lasts (``evals.log_lock``)."""
    log_dir = new_log_dir(given, default_name)
    with hold_log_dir(log_dir):
        yield log_dir


def stamp() -> str:
    return datetime.now().strftime("%Y%m%d-%H%M%S")


def run_outcome(logs: list, expected: int) -> int:
    """0 when every log finished and no sample errored; 130 when the run was interrupted
    (inspect hands back fewer logs than tasks, or cancelled ones); 1 otherwise. Says which
    logs and samples did not finish, on stderr."""
    if len(logs) < expected:
        print(f"looplab: interrupted: {expected - len(logs)} of {expected} configuration(s) "
              "returned no log", file=sys.stderr)
        return EXIT_INTERRUPTED
    unfinished = [lg for lg in logs if lg.status != "success"]
    errored = [(lg, s) for lg in logs for s in (lg.samples or []) if s.error is not None]
    for lg in unfinished:
        why = f": {lg.error.message.splitlines()[0]}" if lg.error and lg.error.message else ""
        print(f"looplab: {lg.eval.task} ended {lg.status}{why} ({lg.location})", file=sys.stderr)
    for lg, sample in errored[:SHOW_ERRORS]:
        first = (sample.error.message.strip().splitlines() or ["error"])[0][:200]
        print(f"looplab: errored sample {lg.eval.task} / {sample.id} epoch {sample.epoch}: {first}",
              file=sys.stderr)
    if len(errored) > SHOW_ERRORS:
        print(f"looplab: ... and {len(errored) - SHOW_ERRORS} more errored sample(s)", file=sys.stderr)
    if errored:
        print(f"looplab: {len(errored)} sample(s) errored: they are not counted as pass or fail",
              file=sys.stderr)
    if any(lg.status == "cancelled" for lg in unfinished):
        return EXIT_INTERRUPTED
    return EXIT_ERRORED if unfinished or errored else 0


def write_report(log_dir: Path, kind: str = "scorecard") -> int:
    """``python -m reports <kind> LOG_DIR`` (``scorecard`` or ``bench``: written beside the
    logs, in ``LOG_DIR/report/``) in this process, where inspect and the eval stack are loaded
    already; its exit code."""
    from reports.cli import main as reports_main  # pandas and matplotlib: only for a report

    return reports_main([kind, str(log_dir)])


def preload_report() -> threading.Thread:
    """Import the report's modules in the background (a split run's parent does while its
    children run), so the scorecard is written the moment the run ends."""
    def load() -> None:
        import reports.cli  # noqa: F401
        import reports.scorecard  # noqa: F401

    thread = threading.Thread(target=load, name="looplab-report-preload", daemon=True)
    thread.start()
    return thread


def point_latest(log_dir: Path, logs: Path = LOGS) -> None:
    """``logs/latest`` → ``log_dir`` when that lies under ``logs/`` (a run elsewhere leaves it:
    the README's ``logs/latest`` never leads out of ``logs/``)."""
    latest = logs / "latest"
    try:
        target = log_dir.resolve().relative_to(logs.resolve())
    except ValueError:
        print(f"looplab: {log_dir} is outside {logs}: logs/latest was left where it was")
        return
    try:
        if latest.is_symlink() or latest.exists():
            latest.unlink()
        latest.symlink_to(target)
    except OSError:
        pass  # a convenience only


def finish(log_dir: Path, rc: int) -> None:
    """``logs/latest`` names the last *complete* run only."""
    if rc == 0:
        point_latest(log_dir)
    else:
        print(f"looplab: the run is incomplete (exit {rc}); logs/latest was left where it was",
              file=sys.stderr)
