"""A realistic working session as data for ``harness_realistic.py``: ``bash`` calls and their
canned outputs, the same on every run.

Turn ``t`` of the session is ``session_turn(t)``: the command a model working on a service would
type and what the shell would print, drawn from a cycle of the kinds of calls real sessions are
made of - listings, recursive grep, whole-file reads, files written by here-document, pytest
runs with a failure and its traceback, ``sed -i`` and ``python3 -c`` one-liners, ``find | xargs``
pipelines, ``git log``, ``kubectl get pods`` polls of a rollout that makes progress, ``kubectl
logs``, a JSON API answer, a for-loop - and, every ``BIG_LOG_EVERY`` turns, a 200 KB application
log read whole. The outputs carry what real ones carry and what the harness's controls read:
clocks, durations, request ids, UUIDs, SHAs, pod names, temporary paths, ``N of M`` progress.

Parameters move with ``t`` (module, line numbers, counts), so most command lines are distinct
and a repeated one (a poll, a test re-run) returns a different output: a session that makes
progress, which loop detection must leave alone. No randomness: everything is a function of
``t``.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass

BIG_LOG_EVERY = 25
BIG_LOG_BYTES = 200_000
MODULES = ("billing", "orders", "auth", "search", "notify", "export", "ingest")


@dataclass(frozen=True)
class Turn:
    kind: str
    command: str
    output: str
    exit_code: int = 0


def _hex(seed: str, n: int = 40) -> str:
    return hashlib.sha256(seed.encode()).hexdigest()[:n]


def _uuid(seed: str) -> str:
    h = _hex(seed, 32)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:32]}"


def _clock(t: int, k: int = 0) -> str:
    s = 9 * 3600 + t * 37 + k
    return f"2026-03-{1 + t // 500:02d}T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}.{(t * 7919 + k) % 1000:03d}Z"


def _mod(t: int) -> str:
    return MODULES[(t // 13) % len(MODULES)]


def listing(t: int) -> Turn:
    m = _mod(t)
    rows = [f"total {96 + t % 40}", "drwxr-xr-x  5 dev dev  4096 Mar  3 09:12 .",
            "drwxr-xr-x 14 dev dev  4096 Mar  3 09:02 .."]
    for j in range(22):
        size = 300 + (t * 31 + j * 977) % 9000
        rows.append(f"-rw-r--r--  1 dev dev {size:5d} Mar  {1 + j % 3} {9 + j % 8:02d}:{(t + j * 7) % 60:02d} "
                    f"{m}_{['views', 'models', 'service', 'schema', 'tasks', 'utils'][j % 6]}{j // 6 or ''}.py")
    return Turn("listing", f"ls -la src/app/{m}", "\n".join(rows))


def grep(t: int) -> Turn:
    m = _mod(t)
    rows = [f"src/app/{m}/{f}.py:{40 + (t * 13 + j * 29) % 400}:    def handle_{m}_{j}(self, request, *, retries={j % 4}):"
            for j, f in enumerate(["views", "service", "tasks", "views", "api", "service"] * 3)]
    rows += [f"tests/test_{m}.py:{12 + j * 17}:    assert svc.handle_{m}_{j}(req).status == {200 + j % 3}" for j in range(5)]
    return Turn("grep", f'grep -rn "def handle_{m}" src/ tests/ --include=*.py', "\n".join(rows))


def _python_source(m: str, t: int, lines: int) -> list[str]:
    out = ["from __future__ import annotations", "", "import logging", "from dataclasses import dataclass", "",
           f"log = logging.getLogger('app.{m}')", ""]
    for j in range(lines // 8):
        out += ["@dataclass", f"class {m.title()}Step{j}:", f"    batch_size: int = {16 + (t + j) % 48}", "",
                "    def run(self, items: list[dict]) -> int:",
                f"        log.info('step {j}: %d of %d items', len(items), self.batch_size)",
                "        return sum(1 for item in items if item.get('ok'))", ""]
    return out


def read_source(t: int) -> Turn:
    m = _mod(t)
    return Turn("read", f"cat src/app/{m}/service.py", "\n".join(_python_source(m, t, 150)))


def heredoc(t: int) -> Turn:
    m = _mod(t)
    body = "\n".join(_python_source(m, t, 40))
    return Turn("heredoc", f"cat > src/app/{m}/step_{t}.py <<'EOF'\n{body}\nEOF", "")


def pytest_run(t: int) -> Turn:
    m = _mod(t)
    n = 40 + t % 30
    failed = t % 3 != 0
    dots = "".join("F" if failed and j == n // 2 else "." for j in range(n))
    rows = ["============================= test session starts ==============================",
            "platform linux -- Python 3.11.9, pytest-8.3.3, pluggy-1.5.0",
            "rootdir: /home/dev/app", "plugins: xdist-3.6.1, cov-5.0.0", f"collected {n} items", "",
            f"tests/test_{m}.py {dots[:60]} [{100 * min(n, 60) // n:3d}%]"]
    if n > 60:
        rows.append(f"tests/test_{m}.py {dots[60:]} [100%]")
    if failed:
        tmp = f"/tmp/pytest-of-dev/pytest-{t}/test_handle_{m}_{t % 5}0"
        rows += ["", "=================================== FAILURES ===================================",
                 f"__________________________ test_handle_{m}_{t % 5} ___________________________", "",
                 f"tmp_path = PosixPath('{tmp}')", "",
                 f"    def test_handle_{m}_{t % 5}(tmp_path):",
                 f"        svc = {m.title()}Service(root=tmp_path)",
                 f">       assert svc.handle_{m}_{t % 5}(make_request(id='{_uuid(str(t))}')).status == 200",
                 "E       AssertionError: assert 500 == 200",
                 f"E        +  where 500 = Response(status=500, request_id='req-{_hex(f'r{t}', 12)}').status", "",
                 f"tests/test_{m}.py:{80 + t % 200}: AssertionError",
                 "----------------------------- Captured log call ------------------------------"]
        rows += [f"ERROR    app.{m}:service.py:{100 + k * 7} {_clock(t, k)} retry {k + 1} of 3 failed: "
                 f"connection reset by 10.0.{t % 250}.{k + 2}:5432" for k in range(3)]
        rows += ["=========================== short test summary info ============================",
                 f"FAILED tests/test_{m}.py::test_handle_{m}_{t % 5} - AssertionError: assert 500 == 200",
                 f"========================= 1 failed, {n - 1} passed in {1 + t % 9}.{t * 37 % 100:02d}s ========================="]
    else:
        rows += ["", f"============================== {n} passed in {1 + t % 9}.{t * 37 % 100:02d}s =============================="]
    return Turn("pytest", f"python -m pytest tests/test_{m}.py -x -q -p no:cacheprovider", "\n".join(rows),
                1 if failed else 0)


def sed_edit(t: int) -> Turn:
    m = _mod(t)
    return Turn("sed", f"sed -i 's/retries={t % 4}/retries={t % 4 + 1}/g' src/app/{m}/config.py", "")


def kubectl_pods(t: int) -> Turn:
    rollout = t // 12
    ready = 1 + (t // 4) % 4
    rows = ["NAME                          READY   STATUS              RESTARTS      AGE     IP            NODE"]
    for j in range(6):
        name = f"api-{_hex(f'rs{rollout}', 10)}-{_hex(f'pod{rollout}{j}', 5)}"
        status = "Running" if j < ready else ("ContainerCreating" if j == ready else "Pending")
        rows.append(f"{name:<30}{'1/1' if j < ready else '0/1':<8}{status:<20}{j % 2} ({3 + t % 50}m ago)   "
                    f"{t % 60 + j}m{(t * 7) % 60}s  10.42.{j}.{(t + j) % 250:<5} node-{j % 3}")
    return Turn("kubectl", "kubectl get pods -n staging -l app=api -o wide", "\n".join(rows))


def kubectl_logs(t: int) -> Turn:
    rows = [f"{_clock(t, k)} INFO  [worker-{k % 4}] request_id={_hex(f'q{t}{k}', 16)} GET /api/v1/orders/{1000 + t * 3 + k} "
            f"200 {12 + (t * k) % 300}ms" for k in range(80)]
    return Turn("kubectl-logs", f"kubectl logs deploy/api -n staging --since={1 + t % 9}m --tail=80", "\n".join(rows))


def api_answer(t: int) -> Turn:
    job = _uuid(f"job{t // 3}")
    done = min(43, 3 + t % 41)
    body = (f'{{"id": "{job}", "state": "running", "processed": "{done} of 43", "updated_at": "{_clock(t)}", '
            f'"worker": "ingest-{_hex(f"w{t}", 8)}", "last_error": null, "trace_id": "{_hex(f"tr{t}", 32)}"}}')
    return Turn("curl", f"curl -s http://localhost:8080/api/jobs/{job}", body)


def git_log(t: int) -> Turn:
    m = _mod(t)
    rows = [f"{_hex(f'c{t}{j}', 7)} {m}: {['retry on reset', 'batch size from config', 'log the request id', 'typed errors'][j % 4]} (#{400 + t + j})"
            for j in range(15)]
    return Turn("git", f"git log --oneline -n 15 -- src/app/{m}", "\n".join(rows))


def one_liner(t: int) -> Turn:
    m = _mod(t)
    if t % 2:
        return Turn("python-c", f"python3 -c \"import json; d = json.load(open('data/{m}_{t % 17}.json')); "
                                f"print(sum(x['n'] for x in d), len(d))\"", f"{1000 + t * 17} {40 + t % 60}")
    rows = [f"  {200 + j * 131 + t % 97:5d} src/app/{MODULES[j]}/service.py" for j in range(4)]
    rows.append(f"  {sum(200 + j * 131 + t % 97 for j in range(4)):5d} total")
    return Turn("find-xargs", f"find src -name '*.py' -newer build/.stamp-{t % 11} | xargs wc -l | sort -n | tail -5",
                "\n".join(rows))


def for_loop(t: int) -> Turn:
    rows = [f"ok src/app/{m}/service.py" for m in MODULES[: 3 + t % 4]]
    return Turn("for-loop", 'for f in src/app/*/service.py; do python3 -m py_compile "$f" && echo "ok $f"; done '
                            f'2>&1 | head -{3 + t % 4}', "\n".join(rows))


def big_log(t: int) -> Turn:
    rows: list[str] = []
    size, k = 0, 0
    while size < BIG_LOG_BYTES:
        level = "ERROR" if k % 53 == 0 else ("WARN " if k % 11 == 0 else "INFO ")
        row = (f"{_clock(t, k)} {level} app.{MODULES[k % 7]}[{1200 + k % 8}]: request_id={_hex(f'b{t}{k}', 16)} "
               f"user={7000 + k % 300} took {5 + k * 13 % 900}ms rows={k % 50}")
        rows.append(row)
        size += len(row) + 1
        k += 1
    return Turn("big-log", f"cat logs/app-{t // BIG_LOG_EVERY}.log", "\n".join(rows))


CYCLE: tuple[Callable[[int], Turn], ...] = (
    listing, grep, read_source, pytest_run, heredoc, sed_edit, pytest_run, kubectl_pods,
    kubectl_logs, api_answer, git_log, one_liner, for_loop,
)


def session_turn(t: int) -> Turn:
    """Turn ``t`` (from 0) of the session."""
    if t % BIG_LOG_EVERY == BIG_LOG_EVERY - 1:
        return big_log(t)
    return CYCLE[t % len(CYCLE)](t)
