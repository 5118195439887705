"""Where a harness spec sample's time goes, beside the floor (``make bench-specs``).

For each spec, the eval (``looplab_suite``: scripted actor, Docker sandbox, the model relay) runs
a two-call scenario and a many-turn one, one sample at a time, in one task (as a matrix run
does: the second sample may reuse the first one's container). Then the **floor**, measured in
the same run: the same harness in the same image with the same limits, against an instant
server in its container that replays the answers the eval gave (``floor_server.py``), with no
eval around it: container create and start, then the harness from launch to exit.

Phases of an eval sample (from its events and the harness timing in its store):
``init`` sample start until the sandbox is ready (container taken from the warm pool),
``setup`` until the harness is launched (workspace set-up), ``start`` launch until the first
model request, ``calls`` first request until the last answer, ``exit`` until the harness
exited, ``after`` until the sample ended (scoring). Floor: ``container``, ``start``, ``calls``,
``exit``. ``turn`` is the time from one model request to the next, averaged over the run.

Targets (issue 23): the two-call sample at most 1.5x its floor; each further turn at most
30 ms over the floor's. Figures depend on the machine's load: say it with them.

    python benchmarks/spec_phases.py [--specs a,b|all] [--two-call ID] [--turns ID] [--repeat N]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

TWO_CALL = "security-rm-rf-data"
MANY_TURNS = "loop-repeat-failing-command"
FLOOR_DIR = "/opt/looplab-floor"


@dataclass
class Run:
    """One harness run: phase name → seconds, and the model requests' arrival times."""

    phases: dict[str, float]
    arrivals: list[float] = field(default_factory=list)
    serves: list[float] = field(default_factory=list)
    """Seconds the eval took to answer each request (eval runs only)."""
    answers: list[dict[str, Any]] = field(default_factory=list)
    note: str = ""
    cpu: float | None = None
    """Floor runs: CPU seconds the container used (the harness's own work, nearly all of it)."""

    def total(self) -> float:
        return sum(self.phases.values())

    def turn(self) -> float | None:
        a = self.arrivals
        return (a[-1] - a[0]) / (len(a) - 1) if len(a) > 1 else None


# --- the eval ------------------------------------------------------------------------------------

def eval_runs(spec_id: str, scenarios: list[str], log_dir: Path) -> tuple[dict[str, Run], float, float]:
    """Run the scenarios in one task, one sample at a time; → runs by scenario, the eval's wall
    time and the CPU seconds the eval process used (set-up and finish included)."""
    from evals.evaluate import SUITE_OPTIONS, run_evals
    from evals.harnesses import model_relay
    from evals.task import looplab_suite

    answers: list[tuple[float, dict[str, Any]]] = []
    model_relay.ANSWER_TAP = lambda arrived, request, answer: answers.append((arrived, answer))
    try:
        task = looplab_suite(config=spec_id, scenarios=",".join(scenarios), sandbox="docker")
        t0, cpu0 = time.monotonic(), time.process_time()
        # as every looplab run calls inspect (evals.evaluate), one sample at a time
        [log] = run_evals(task, model="scripted/suite", log_dir=log_dir, max_samples=1,
                          display="none", **SUITE_OPTIONS)
        wall, cpu = time.monotonic() - t0, time.process_time() - cpu0
    finally:
        model_relay.ANSWER_TAP = None
    runs: dict[str, Run] = {}
    for sample in log.samples or []:
        runs[str(sample.id)] = _eval_run(sample, answers)
    return runs, wall, cpu


def _eval_run(sample: Any, answers: list[tuple[float, dict[str, Any]]]) -> Run:
    from evals.state import HarnessRun, in_log

    run = in_log(HarnessRun, sample)
    timing = {"launched": run.launched, "exited": run.exited, "requests": run.requests}
    if sample.error is not None or run.launched is None or run.exited is None:
        why = sample.error.message.splitlines()[0][:120] if sample.error else "no harness timing"
        return Run({}, note=f"not measured: {why}")
    events = sample.events
    start, end = events[0].timestamp.timestamp(), events[-1].timestamp.timestamp()
    ready = next((e.timestamp.timestamp() for e in events
                  if e.event == "span_end" and e.timestamp.timestamp() > start), start)
    requests = timing["requests"]
    first = requests[0][0] if requests else timing["exited"]
    last = requests[-1][1] if requests else timing["exited"]
    phases = {"init": ready - start, "setup": timing["launched"] - ready,
              "start": first - timing["launched"], "calls": last - first,
              "exit": timing["exited"] - last, "after": end - timing["exited"]}
    # this sample's answers: those given between its launch and its harness's exit
    mine = [a for t, a in answers if timing["launched"] <= t <= timing["exited"]]
    return Run(phases, [r[0] for r in requests], answers=mine,
               serves=[r[1] - r[0] for r in requests])


# --- the floor -----------------------------------------------------------------------------------

def floor_run(spec_id: str, scenario_id: str, answers: list[dict[str, Any]]) -> Run:
    """The harness against an instant server replaying ``answers``, no eval around it."""
    from evals.harnesses.image import ensure_image
    from evals.harnesses.launch import TASK_FILE, command_for, environment
    from evals.harnesses.spec import get_spec
    from sandboxes.config import DockerSandboxConfig
    from sandboxes.docker_agent import attach_exec
    from sandboxes.docker_engine import api_client, create_container, remove_container
    from sandboxes.docker_files import read_via_archive, write_via_archive
    from scenarios.loader import get_scenario

    spec, scenario = get_spec(spec_id), get_scenario(scenario_id)
    # No tmpfs mounts: the floor writes the scenario's files with the archive API, which cannot
    # reach into a tmpfs (the eval's sandbox writes them through its command agent instead).
    config = DockerSandboxConfig(image=ensure_image(spec, log=False), memory="2g", pids_limit=512,
                                 tmpfs=())
    t0 = time.time()
    container_id, _ = create_container(config, "looplab-floor")
    started = time.time()
    server = None
    try:
        for name in ("model_relay_server.py",):
            write_via_archive(container_id, f"{FLOOR_DIR}/{name}",
                              (ROOT / "sandboxes" / name).read_bytes())
        write_via_archive(container_id, f"{FLOOR_DIR}/floor_server.py",
                          (ROOT / "benchmarks" / "floor_server.py").read_bytes())
        write_via_archive(container_id, f"{FLOOR_DIR}/answers.json", json.dumps(answers).encode())
        api = api_client()
        _write(api, container_id, TASK_FILE, scenario.prompt.encode())
        _workspace(api, container_id, scenario)
        server, sock = attach_exec(api, container_id, ["python3", f"{FLOOR_DIR}/floor_server.py",
                                                       f"{FLOOR_DIR}/answers.json", "13131"])
        _wait_for(sock, b"ready")
        workdir = "/workspace" + (f"/{scenario.workdir.strip('/')}" if scenario.workdir else "")
        argv = command_for(spec, scenario.prompt, workdir, scenario.harness,
                           [f.removeprefix("scripted/") for f in scenario.fallback_models])
        script = (f'mkdir -p "$HOME" {workdir}; exec timeout -k 5 {int(spec.finish.timeout_s)} '
                  '"$@" >/tmp/looplab-harness.log 2>&1 </dev/null')
        launched = time.time()
        exec_id = api.exec_create(container_id, ["bash", "-c", script, "harness", *argv],
                                  environment=environment(spec, workdir), workdir="/workspace")["Id"]
        api.exec_start(exec_id)
        exited = time.time()
        code = api.exec_inspect(exec_id).get("ExitCode")
        usage = api.stats(container_id, stream=False)["cpu_stats"]["cpu_usage"]["total_usage"]
        raw = read_via_archive(container_id, f"{FLOOR_DIR}/answers.json.times")
        arrivals = [float(x) for x in raw.decode().split()]
    finally:
        if server is not None:
            server.close()
        remove_container(container_id)
    first = arrivals[0] if arrivals else exited
    last = arrivals[-1] if arrivals else exited
    phases = {"container": started - t0, "start": first - launched, "calls": last - first,
              "exit": exited - last}
    return Run(phases, arrivals, note="" if code == 0 else f"exit {code}", cpu=usage / 1e9)


def _workspace(api: Any, container_id: str, scenario: Any) -> None:
    """The scenario's files and set-up commands, as the eval's set-up makes them (untimed):
    the harness's tool calls then do the same work in the floor as in the eval."""
    from sandboxes.config import AGENT_USER
    from sandboxes.docker_io import run_exec

    for path, content in scenario.files.items():
        _write(api, container_id, f"/workspace/{path}", content.encode())
    for command in scenario.setup:
        out = run_exec(api, container_id, ["bash", "-c", command], stdin=None,
                       workdir="/workspace", env=None, user=AGENT_USER, deadline_s=120,
                       output_limit=1 << 20)
        if out.returncode != 0:
            raise RuntimeError(f"floor set-up of {scenario.id}: {command[:80]!r} failed: "
                               f"{out.stderr.decode(errors='replace')[-300:]}")


def _write(api: Any, container_id: str, path: str, data: bytes) -> None:
    """Write a file as the eval does (as ``agent``, the harness's user), through an exec: the
    engine's archive API writes below a tmpfs mount (/workspace, /tmp), where nothing sees it."""
    from sandboxes.config import AGENT_USER
    from sandboxes.docker_io import run_exec

    out = run_exec(api, container_id, ["sh", "-c", 'mkdir -p "$(dirname "$1")" && cat > "$1"',
                                       "sh", path], stdin=data, workdir="/", env=None,
                   user=AGENT_USER, deadline_s=120, output_limit=1 << 16)
    if out.returncode != 0:
        raise RuntimeError(f"floor set-up: cannot write {path}: "
                           f"{out.stderr.decode(errors='replace')[-300:]}")


def _wait_for(sock: Any, marker: bytes, timeout_s: float = 60) -> None:
    sock.settimeout(timeout_s)
    seen = b""
    while marker not in seen:
        chunk = sock.recv(65536)
        if not chunk:
            raise RuntimeError(f"the floor server ended before it said {marker!r}: {seen[-300:]!r}")
        seen += chunk


# --- the transport alone -------------------------------------------------------------------------

RTT_CLIENT = """
import http.client, json, time
c = http.client.HTTPConnection('127.0.0.1', 13131)
times = []
for _ in range(200):
    t = time.perf_counter(); c.request('POST', '/v1/x', b'{}'); c.getresponse().read()
    times.append(time.perf_counter() - t)
times.sort(); print(json.dumps([times[len(times) // 2], times[int(len(times) * 0.9)]]))
"""


def relay_round_trip() -> tuple[float, float]:
    """Median and 90th percentile of one request through the relay and back, the host
    answering at once (no model): what the transport adds to each model call."""
    from sandboxes.config import DockerSandboxConfig
    from sandboxes.docker_engine import api_client, create_container, remove_container
    from sandboxes.docker_io import run_exec
    from sandboxes.model_relay import ModelRelay

    container_id, _ = create_container(DockerSandboxConfig(), "looplab-floor")
    relay = None
    try:
        relay = ModelRelay.start(api_client(), container_id)
        answer = relay.answer
        relay.attach(lambda m: answer({"id": m["id"], "status": 200, "body": "{}",
                                       "headers": [["Content-Type", "application/json"]]}))
        out = run_exec(api_client(), container_id, ["python3", "-c", RTT_CLIENT], stdin=None,
                       workdir="/", env=None, user=None, deadline_s=300, output_limit=1 << 16)
        median, p90 = json.loads(out.stdout)
        return median, p90
    finally:
        if relay is not None:
            relay.close()
        remove_container(container_id)


# --- the table -----------------------------------------------------------------------------------

EVAL_PHASES = ("init", "setup", "start", "calls", "exit", "after")
FLOOR_PHASES = ("container", "start", "calls", "exit")


def _median_run(runs: list[Run]) -> Run | None:
    ok = [r for r in runs if r.phases]
    return sorted(ok, key=Run.total)[len(ok) // 2] if ok else None


def _ms(x: float | None) -> str:
    return "-" if x is None else f"{x * 1000:.0f}"


def report_spec(spec_id: str, evals: list[dict[str, Run]], floors: dict[str, list[Run]],
                two_call: str, many: str) -> list[str]:
    rows = []
    for scenario in (two_call, many):
        ev = _median_run([e[scenario] for e in evals if scenario in e])
        fl = _median_run(floors.get(scenario, []))
        if ev is None or fl is None:
            why = next((r.note for e in evals for r in [e.get(scenario)] if r and r.note), "")
            rows.append(f"{spec_id:20} {scenario:29} not measured {why}")
            continue
        cells = " ".join(f"{ev.phases[p]:6.2f}" for p in EVAL_PHASES)
        fcells = " ".join(f"{fl.phases[p]:6.2f}" for p in FLOOR_PHASES)
        ratio = ev.total() / fl.total() if fl.total() else float("nan")
        et, ft = ev.turn(), fl.turn()
        over = _ms(et - ft) if et is not None and ft is not None else "-"
        serve = _ms(statistics.median(ev.serves[1:])) if len(ev.serves) > 1 else "-"
        rows.append(f"{spec_id:20} {scenario:29} {len(ev.arrivals):3} | {cells} | {ev.total():6.2f} "
                    f"| {fcells} | {fl.total():6.2f} | {ratio:5.2f}x | {_ms(et):>5} {_ms(ft):>5} "
                    f"{over:>5} | {_ms(ev.serves[0]):>5} {serve:>5} | {fl.cpu or 0:5.1f}"
                    f"{('  ' + fl.note) if fl.note else ''}")
    return rows


def header() -> list[str]:
    e = " ".join(f"{p:>6}" for p in EVAL_PHASES)
    f = " ".join(f"{p[:6]:>6}" for p in FLOOR_PHASES)
    return [f"{'spec':20} {'scenario':29} {'req':>3} | {e} | {'sample':>6} | {f} | {'floor':>6} "
            f"| {'ratio':>6} | {'turn':>5} {'floor':>5} {'over':>5} | {'serve':>5} {'then':>5} "
            f"| {'cpu':>5}",
            "(seconds; turn, floor turn, over and serve in ms; ratio = sample / floor; serve: the "
            "eval's time to answer the first request, then the median of the others; cpu: CPU "
            "seconds of the floor's container, the harness's own work)"]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--specs", default="all", help="comma-separated spec ids, or all")
    p.add_argument("--two-call", default=TWO_CALL)
    p.add_argument("--turns", default=MANY_TURNS, help="the many-turn scenario")
    p.add_argument("--repeat", type=int, default=1, help="runs of each (medians are shown)")
    p.add_argument("--log-dir", default="", help="keep the eval logs here (default: thrown away)")
    args = p.parse_args(argv)
    from evals.harnesses.image import ensure_image
    from evals.harnesses.spec import load_specs

    specs = list(load_specs()) if args.specs == "all" else args.specs.split(",")
    print(f"load average {os.getloadavg()[0]:.1f} at start; specs: {', '.join(specs)}", flush=True)
    for spec_id in specs:
        ensure_image(load_specs()[spec_id])
    median, p90 = relay_round_trip()
    print(f"relay round trip, host answering at once: {median * 1000:.1f} ms median, "
          f"{p90 * 1000:.1f} ms 90th percentile (200 requests)", flush=True)
    print("\n".join(header()), flush=True)
    # The many-turn sample first: the two-call one then runs as in a matrix run, in a process
    # that has served model calls before (the first call of a process imports and builds what
    # inspect's handlers need; the `serve` column shows it).
    scenarios = [args.turns, args.two_call]
    with tempfile.TemporaryDirectory() as tmp:
        logs = Path(args.log_dir or tmp)
        for spec_id in specs:
            evals, floors, costs = [], {s: [] for s in scenarios}, []
            for i in range(args.repeat):
                runs, wall, cpu = eval_runs(spec_id, scenarios, logs / f"{spec_id}-{i}")
                evals.append(runs)
                costs.append((wall, cpu))
                for scenario, run in runs.items():
                    if run.answers:
                        floors[scenario].append(floor_run(spec_id, scenario, run.answers))
            for row in report_spec(spec_id, evals, floors, args.two_call, args.turns):
                print(row, flush=True)
            wall, cpu = sorted(costs)[len(costs) // 2]
            print(f"{spec_id:20} the eval of both samples: {wall:.1f} s wall, {cpu:.1f} s CPU in "
                  "the eval process (set-up and finish included)", flush=True)
    print(f"load average {os.getloadavg()[0]:.1f} at the end", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
