"""Run and report, for every command line (``looplab run``, ``repro``, ``bench``, ``real``).

Each run picks its configurations, brings up the sandbox, runs the evals into a log directory,
writes the report and, when the run is complete, points ``logs/latest`` at it. The command lines
(``evals.cli``, ``evals.bench.cli``, ``evals.realmodel.run``) only parse arguments and call the
``run_*`` functions here with the parsed arguments; the steps every run shares (configurations,
models, sandbox, log directory, outcome, report, ``logs/latest``) are ``evals.run_steps``.

Bad input raises ``RunError`` before anything runs or is written (the command line prints it and
exits 2); so does a log directory another run holds (``evals.log_lock``). The scorecard goes
beside the logs (``<log dir>/report/``); ``logs/latest`` names the last complete run under
``logs/``.

Importing this module imports inspect and the whole eval stack (seconds): the command lines
import it once their arguments parsed, so ``--help`` and a bad flag answer at once.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from evals.bench.task import looplab_bench
from evals.cluster.shards import ShardRun, forwarded_env, plan, shard_size
from evals.evaluate import SUITE_OPTIONS, run_evals
from evals.harnesses.configs import is_spec
from evals.harnesses.spec import broken_specs
from evals.library import load_library
from evals.realmodel.metrics import scrape
from evals.realmodel.server import (
    RealModelError,
    annotate,
    prefix_figures,
    reset_prefix_cache,
    resolve,
)
from evals.repro import repro
from evals.run_steps import (
    EXIT_ERRORED,
    ROOT,
    RunError,
    check_model,
    check_models,
    ensure_sandbox,
    finish,
    held_log_dir,
    new_log_dir,
    preload_report,
    run_outcome,
    select_configs,
    select_scenarios,
    stamp,
    write_report,
)
from evals.stopping import EXIT_INTERRUPTED, STOPPING, stop_children
from evals.task import PEERS, agent_for, configurations, looplab_suite
from harness.presets import get_preset
from scenarios.bench import BenchError
from scenarios.bench import select as select_bench

# --- the scenario suite (``looplab run``, ``repro``) --------------------------------------------

def run_suite(args: argparse.Namespace) -> int:
    """Scenarios × configurations in one process, split over ``args.processes``, or spread over
    the Ray cluster at ``args.ray`` (``evals.cluster``): only where the evals run differs."""
    configs = select_configs(args.configs)
    chosen = select_scenarios(args.scenarios, args.family, args.suite)
    check_models(args.model, args.fallbacks)
    base_urls, proxies = url_list(args.model_base_url), url_list(args.proxy)
    if not args.ray and (len(base_urls) > 1 or len(proxies) > 1):
        raise RunError("--model-base-url/--proxy: several URLs are shared among the shards of a "
                       "cluster run (--ray); on one machine give one")
    if args.ray and args.sandbox != "docker":
        raise RunError(f"--ray runs the sandboxes in Docker on the cluster's nodes; --sandbox "
                       f"{args.sandbox} is for one machine")
    cluster = connect_cluster(args.ray) if args.ray else None
    if not args.no_setup:
        if cluster is not None:
            cluster.prepare(forwarded_env(dict(os.environ)))
        else:
            ensure_sandbox(args.sandbox, getattr(args, "sandbox_check", None))
    if args.split_child:  # one process of a split run: its parent holds the log directory
        return run_configs(args, configs, chosen, new_log_dir(args.log_dir, stamp()), None)
    with held_log_dir(args.log_dir, stamp()) as log_dir:
        if cluster is None and args.processes > 1 and len(configs) > 1:
            return run_split(args, configs, len(chosen), log_dir)
        return run_configs(args, configs, chosen, log_dir, cluster)


def run_configs(args: argparse.Namespace, configs: list[str], chosen: list, log_dir: Path,
                cluster: Any) -> int:
    """The configurations in this process, all at once, or as shards on ``cluster``; then the
    report."""
    n_scenarios = len(chosen)
    print(f"looplab: {n_scenarios} scenarios × {len(configs)} configurations "
          f"({', '.join(configs)}) on {args.model}, sandbox={args.sandbox}; logs: {log_dir}", flush=True)
    t0 = time.monotonic()
    interrupted = False
    if cluster is not None:
        logs, where, interrupted = cluster_evals(cluster, args, configs, [s.id for s in chosen],
                                                 log_dir)
        expected = len(logs)  # one per shard: a shard that handed no log back has a stand-in
    else:
        base_urls, proxies = url_list(args.model_base_url), url_list(args.proxy)
        tasks = [looplab_suite(config=c, scenarios=args.scenarios, family=args.family,
                               sandbox=args.sandbox, fallbacks=args.fallbacks,
                               proxy=proxies[0] if proxies else "", suite=args.suite)
                 for c in configs]
        logs = run_evals(tasks, model=args.model, log_dir=log_dir, max_samples=args.max_samples,
                         display=args.display, epochs=args.epochs,
                         model_base_url=base_urls[0] if base_urls else None, **SUITE_OPTIONS)
        expected, where = len(tasks), ""
    wall = time.monotonic() - t0
    rc = run_outcome(logs, expected)
    if interrupted:  # Ctrl-C stopped the cluster's shards, whatever their logs say
        rc = EXIT_INTERRUPTED
    if not args.no_report and logs:  # an incomplete run gets a scorecard too, marked as such
        report_rc = write_report(log_dir)
        rc = rc or report_rc
    if args.split_child:  # one process of a split run: its parent prints the totals
        print(f"looplab: {', '.join(configs)} finished in {wall:.1f} s", flush=True)
    else:
        print(f"looplab: suite wall time {wall:.1f} s ({n_scenarios} scenarios × {len(configs)} "
              f"configurations × {args.epochs} epoch(s){where}); logs in {log_dir}")
        finish(log_dir, rc)
    return rc


def url_list(text: str) -> tuple[str, ...]:
    """``--model-base-url`` / ``--proxy``: comma-separated URLs."""
    return tuple(u.strip() for u in (text or "").split(",") if u.strip())


def connect_cluster(address: str) -> Any:
    """The Ray cluster at ``address`` (``--ray``), with the nodes that offer Docker."""
    try:
        # Only here: a run without --ray never imports Ray (an optional extra).
        from evals.cluster.driver import RayCluster
    except ImportError as e:
        raise RunError(f"--ray needs Ray ({e}): install looplab's ray extra, e.g. "
                       "`.venv/bin/pip install -e '.[ray]'`") from e
    return RayCluster(address)


def cluster_evals(cluster: Any, args: argparse.Namespace, configs: list[str],
                  scenario_ids: list[str], log_dir: Path) -> tuple[list, str, bool]:
    """The run's shards on ``cluster`` (``evals.cluster``): their logs, one per shard, the
    banner's words for where they ran, and whether Ctrl-C stopped them."""
    size = shard_size(len(scenario_ids), len(configs), cluster.cpus, args.shard_size)
    # Heaviest configurations first, so the longest shards do not start last.
    shards = plan(sorted(configs, key=cost_weight, reverse=True), scenario_ids, size,
                  base_urls=url_list(args.model_base_url), proxies=url_list(args.proxy))
    run = ShardRun(model=args.model, sandbox=args.sandbox, epochs=args.epochs,
                   max_samples=args.max_samples, fallbacks=args.fallbacks,
                   env=forwarded_env(dict(os.environ)))
    print(f"looplab: {len(shards)} shards of at most {size} scenarios on {cluster.describe()}",
          flush=True)
    logs, interrupted = cluster.run(shards, run, log_dir)
    return logs, f", {len(shards)} shards on {len(cluster.nodes)} Ray node(s)", interrupted


def cost_weight(config: str) -> int:
    """Relative eval cost of a configuration: a fixed part per sample plus one per enabled
    control (fitted to one full-matrix run: about 12 : 1). Peers count as five controls."""
    if config in PEERS:
        return 12 + 5
    if is_spec(config):  # a harness process and the model bridge in each container
        return 40
    dump = get_preset(config).model_dump()
    return 12 + sum(1 for v in dump.values() if isinstance(v, dict) and v.get("enabled"))


def balanced_groups(configs: list[str], n: int) -> list[list[str]]:
    """Split ``configs`` over ``n`` processes, heaviest first onto the lightest process."""
    groups: list[list[str]] = [[] for _ in range(n)]
    loads = [0] * n
    for config in sorted(configs, key=cost_weight, reverse=True):
        i = loads.index(min(loads))
        groups[i].append(config)
        loads[i] += cost_weight(config)
    return [g for g in groups if g]


def run_split(args: argparse.Namespace, configs: list[str], n_scenarios: int,
              log_dir: Path) -> int:
    """Run the configurations in ``args.processes`` processes writing to one log directory
    (inspect's eval loop uses one core; a second process uses the second), then one report.
    The first process shows inspect's display; the others run quietly and say when done. A
    signal to this process stops the children first (``evals.stopping``)."""
    n = min(args.processes, len(configs))
    groups = balanced_groups(configs, n)
    print(f"looplab: {n_scenarios} scenarios × {len(configs)} configurations "
          f"({', '.join(configs)}) on {args.model}, sandbox={args.sandbox}, in {n} processes "
          f"({' | '.join(','.join(g) for g in groups)}); logs: {log_dir}", flush=True)
    given = {"--scenarios": args.scenarios, "--family": args.family, "--suite": args.suite,
             "--fallbacks": args.fallbacks,
             "--model-base-url": args.model_base_url, "--proxy": args.proxy}
    common = ["--sandbox", args.sandbox, "--model", args.model, "--epochs", str(args.epochs),
              *[part for flag, value in given.items() if value for part in (flag, value)],
              "--max-samples", str(max(1, args.max_samples // n)), "--log-dir", str(log_dir),
              "--processes", "1", "--no-report", "--no-setup", "--split-child"]
    t0 = time.monotonic()
    preloading = None if args.no_report else preload_report()
    procs: list[subprocess.Popen] = []
    try:
        for i, group in enumerate(groups):
            display = (args.display or "full") if i == 0 else "none"
            procs.append(subprocess.Popen([sys.executable, "-m", "evals", "run", "--configs",
                                           ",".join(group), "--display", display, *common],
                                          cwd=ROOT))
        codes = [p.wait() for p in procs]
    except KeyboardInterrupt:
        stop_children(procs)  # they remove their sandboxes and keep their logs
        raise
    wall = time.monotonic() - t0
    if preloading is not None:
        preloading.join()
    report_rc = 0 if args.no_report else write_report(log_dir)
    print(f"looplab: suite wall time {wall:.1f} s ({n_scenarios} scenarios × {len(configs)} "
          f"configurations × {args.epochs} epoch(s), {n} processes); logs in {log_dir}")
    rc = split_outcome(codes) or report_rc
    if any(codes):
        print(f"looplab: {sum(1 for c in codes if c)} of {n} processes did not finish cleanly "
              f"(exit codes {', '.join(map(str, codes))})", file=sys.stderr)
    finish(log_dir, rc)
    return rc


def split_outcome(codes: list[int]) -> int:
    """One exit code for a split run: an interrupt wins (130, also when a child stopped on
    SIGTERM or SIGHUP or died of SIGINT, SIGTERM or SIGHUP), then any other failure (1)."""
    stopped = {EXIT_INTERRUPTED, *(128 + s for s in STOPPING), -signal.SIGINT,
               *(-s for s in STOPPING)}
    if any(c in stopped for c in codes):
        return EXIT_INTERRUPTED
    return EXIT_ERRORED if any(codes) else 0


def run_repro(args: argparse.Namespace) -> int:
    """One scenario on one configuration, with a readable transcript (``evals.repro``)."""
    if len(select_configs(args.config, "--config")) != 1:
        raise RunError(f"--config {args.config!r}: one configuration")
    check_model(args.model)
    if args.overrides:  # a bad key or value is an error before the engine is even checked
        agent_for(args.config, [], args.overrides)
    if args.sandbox in ("docker", "k8s"):
        ensure_sandbox(args.sandbox, getattr(args, "sandbox_check", None))
    return repro(args.scenario, args.config, sandbox=args.sandbox, model=args.model,
                 log_dir=args.log_dir or str(ROOT / "logs" / "repro"), overrides=args.overrides)


def run_list(args: argparse.Namespace) -> int:
    """``looplab list``: the configurations, then one line per scenario."""
    print("configurations:", ", ".join(configurations()))
    for name, error in broken_specs().items():
        print(f"looplab: skipped harness spec {name}: {error}", file=sys.stderr)
    for s in load_library().values():
        print(f"{s.id:45s} {s.family:14s} {', '.join(s.probes)}")
    return 0


# --- the benchmark (``looplab bench``) ----------------------------------------------------------

def run_bench(args: argparse.Namespace) -> int:
    """Benchmark tasks × variants × configurations, then ``python -m reports bench``."""
    configs = select_configs(args.configs)
    specs = [c for c in configs if is_spec(c)]
    if specs and args.overrides:
        raise RunError(f"--overrides: not supported for harness spec(s) {', '.join(specs)} "
                       "(change the spec's launch command instead)")
    try:
        chosen = select_bench(args.tasks or None, args.variants or None)  # fail early on bad ids
    except BenchError as e:
        raise RunError(f"--{str(e)}") from e
    real: dict = {}
    if args.real is not None:
        server = resolve(args.real)
        args.model, args.fallbacks, args.proxy = server.model, server.fallbacks, server.root
        if server.context_window:
            args.overrides = ",".join(filter(None, [args.overrides,
                                                    f"context_window={server.context_window}"]))
        # no client-side retries (the harness must see faults); bounded replies on a CPU
        real = {"model_args": {"max_retries": 0}, "max_tokens": args.max_tokens}
    check_models(args.model, args.fallbacks)
    ensure_sandbox(args.sandbox, getattr(args, "sandbox_check", None))
    try:
        tasks = [looplab_bench(config=c, tasks=args.tasks, variants=args.variants,
                               sandbox=args.sandbox, fallbacks=args.fallbacks, proxy=args.proxy,
                               overrides="" if is_spec(c) else args.overrides)
                 for c in configs]
    except ValueError as e:  # e.g. a harness spec with --sandbox local
        raise RunError(str(e).replace("task argument ", "--")) from e
    with held_log_dir(args.log_dir, f"bench-{stamp()}") as log_dir:
        return bench_in(args, tasks, len(chosen), configs, real, log_dir)


def bench_in(args: argparse.Namespace, tasks: list, n_samples: int, configs: list[str],
             real: dict, log_dir: Path) -> int:
    """The benchmark's evals into ``log_dir``, then its report."""
    print(f"looplab bench: {n_samples} samples (tasks × variants) × {len(configs)} "
          f"configurations ({', '.join(configs)}) on {args.model}, sandbox={args.sandbox}; "
          f"logs: {log_dir}", flush=True)
    t0 = time.monotonic()
    logs = run_evals(tasks, model=args.model, log_dir=log_dir, max_samples=args.max_samples,
                     display=args.display, epochs=args.epochs, **real)
    print(f"looplab bench: wall time {time.monotonic() - t0:.1f} s; logs in {log_dir}")
    rc = 0 if args.no_report else write_report(log_dir, "bench")
    failed = [lg for lg in logs if lg.status != "success"]
    if failed:
        print(f"looplab bench: {len(failed)} log(s) did not finish cleanly: "
              + ", ".join(f"{lg.eval.task_args.get('config')}={lg.status}" for lg in failed))
        return 1
    return rc


# --- scenarios against a real server (``looplab real``) -----------------------------------------

def real_configs(configs: list[str], everything: bool, sandbox: str) -> list[str]:
    """The configurations that can run against a real server through the fault proxy: presets and
    harness specs (Docker only). A peer's model calls bypass the proxy: ``all`` leaves peers out,
    naming one is refused."""
    peers = [c for c in configs if c in PEERS]
    if peers and not everything:
        raise RealModelError(f"--configs: {', '.join(peers)} cannot run through the fault proxy (a "
                             "peer's model calls do not go through a model chain looplab builds); "
                             "use presets or harness specs")
    specs = [c for c in configs if is_spec(c)]
    if specs and sandbox != "docker":
        raise RealModelError(f"--sandbox {sandbox}: harness specs ({', '.join(specs)}) run only in "
                             "the docker sandbox")
    return [c for c in configs if c not in PEERS]


def run_real(args: argparse.Namespace) -> int:
    """Scenarios against a real server, one configuration at a time so that the server's
    prefix-cache counters can be read before and after each one (``evals.realmodel.server``)."""
    configs = real_configs(select_configs(args.configs), args.configs.strip() == "all", args.sandbox)
    chosen = select_scenarios(args.scenarios, args.family)
    server = resolve(args.base_url, args.served_model)
    # The harness is told the served window, as a deployment would be.
    overrides = f"context_window={server.context_window}" if server.context_window else ""
    check_models(server.model, server.fallbacks)
    ensure_sandbox(args.sandbox, getattr(args, "sandbox_check", None))
    with held_log_dir(args.log_dir, f"real-{stamp()}") as log_dir:
        rc = real_in(args, configs, chosen, server, overrides, log_dir)
        finish(log_dir, rc)
        return rc


def real_in(args: argparse.Namespace, configs: list[str], chosen: list, server: Any,
            overrides: str, log_dir: Path) -> int:
    """Each configuration in turn into ``log_dir``, its prefix-cache figures written into its
    log; then the scorecard."""
    root, model, fallbacks = server.root, server.model, server.fallbacks
    print(f"looplab: {len(chosen)} scenarios × {len(configs)} configurations on {model} "
          f"(fallback: {fallbacks or 'none served'}) at {root}, through the fault proxy"
          f"{'' if not args.no_proxy else ' (off)'}; logs: {log_dir}", flush=True)
    t0, rc = time.monotonic(), 0
    for config in configs:
        reset = reset_prefix_cache(root)
        before = scrape(root)
        # A harness spec is told nothing beyond its launch command (no preset to override).
        task = looplab_suite(config=config, scenarios=",".join(s.id for s in chosen),
                             sandbox=args.sandbox, fallbacks=fallbacks,
                             overrides="" if is_spec(config) else overrides,
                             proxy="" if args.no_proxy else root)
        started = time.monotonic()
        # max_retries=0 for the OpenAI client (direct calls; proxied models set their own);
        # max_tokens bounds a small model's rambling, which on a CPU costs minutes per call.
        [log] = run_evals(task, model=model, log_dir=log_dir, max_samples=args.max_samples,
                          display=args.display, model_args={"max_retries": 0},
                          max_tokens=args.max_tokens)
        figures = {**prefix_figures(root, before, reset), "wall_s": round(time.monotonic() - started, 1)}
        annotate(log.location, figures)
        hr = figures["hit_rate"]
        print(f"looplab: {config}: {log.status}; prefix-cache hit rate "
              f"{'n/a (' + str(figures['reason']) + ')' if hr is None else f'{hr:.2f}'}; "
              f"{figures['wall_s']} s", flush=True)
        rc = rc or (0 if log.status == "success" else 1)
    if not args.no_report:
        rc = write_report(log_dir) or rc
    print(f"looplab: real-model wall time {time.monotonic() - t0:.1f} s; logs in {log_dir}")
    return rc
