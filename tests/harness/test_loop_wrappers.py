"""Round 5 of loops by meaning, unit by unit: wrappers that do not change what runs
(``harness.shell.wrappers``), one file reached from another directory or through a computed working
directory (``harness.shell.meaning``), and volatile tokens that are not clocks (``loop_volatile_ids``). The
end-to-end cases (the looplab control over whole call sequences) are in
``harness/rules/cases/loops/``, run by ``test_loop_rules.py``.

    .venv/bin/python -m pytest -q -p no:xdist tests/harness/test_loop_wrappers.py
"""

from __future__ import annotations

import pytest

from harness.controls.loop_normalise import shell_key, wrapped_keys
from harness.controls.loop_volatile import mask_volatile
from harness.shell.wrappers import unwrap


@pytest.mark.parametrize("argv, command", [
    ("timeout -k 5 40 make", "make"),
    ("nice -n 10 ionice -c3 stdbuf -oL make", "make"),
    ("env -u X A=1 B=2 make", "make"),
    ("sudo -n -u app -- make", "make"),
    ("uv run --with rich make", "make"),
    ("conda run -n web make", "make"),
    ("/usr/bin/time -f %e make", "make"),
    ("flock -w 5 /tmp/l make", "make"),
    ("xvfb-run -a make", "make"),
])
def test_wrappers_are_taken_off_with_their_own_words(argv: str, command: str) -> None:
    assert unwrap(argv.split())[0] == command.split()


@pytest.mark.parametrize("argv", ["env", "time", "uv sync", "timeout 5", "npm test", "poetry install"])
def test_a_wrapper_without_a_command_is_the_command(argv: str) -> None:
    assert unwrap(argv.split())[0] == argv.split()


def test_xargs_stays_a_marker_without_its_options() -> None:
    assert shell_key("xargs -0 -P 4 flake8") == shell_key("xargs -r flake8") != shell_key("flake8")
    assert shell_key("xargs -I{} cp {} out/") != shell_key("xargs -I{} mv {} out/")


@pytest.mark.parametrize("a, b", [
    ("cd tools && ./gen.sh", "./tools/gen.sh"),
    ("cd src; python -m pkg.main", "python src/pkg/main.py"),
    ("make -C svc test", "cd svc && make test"),
    ("terraform -chdir=infra plan", "cd infra && terraform plan"),
    ("pushd api; ./t.sh; popd", "api/t.sh"),
    ("cd web || exit 1; npm test", "npm --prefix web test"),
    ("$(pwd)/q.sh", "./q.sh"),
    ("`pwd`/q.sh", "q.sh"),
    ('"$(realpath .)"/q.sh', "./q.sh"),
    ("d=bin; $d/q.sh", "bin/q.sh"),
    ("/ws/bin/q.sh", "cd bin && ./q.sh"),
    ("f=$(pwd)/logs/a.log; tail -n 5 $f", "tail -n 5 logs/a.log"),
])
def test_one_file_from_any_directory(a: str, b: str) -> None:
    assert shell_key(a, "/ws") == shell_key(b, "/ws")


@pytest.mark.parametrize("a, b", [
    ("cd api && make test", "make test"),
    ("cd a && ./x.sh", "cd b && ./x.sh"),
    ("cd /ws/src && cat /ws/a.txt", "cat src/a.txt"),
    ("$(pwd)/../x.sh", "./x.sh"),
    ("$X/q.sh", "./q.sh"),
    ("FOO=1", "BAR=2"),
    ("cd ..", "cd src"),
    ("A=$(pwd)", "B=$(pwd)"),
    ("a=$(mktemp)", "b=$(mktemp)"),
    (": ${X:=}", ": ${Y:=}"),
    (": > a.log; ./run.sh", "./run.sh"),  # `:` does no work, but its redirection empties a file
])
def test_other_directories_stay_apart(a: str, b: str) -> None:
    assert shell_key(a, "/ws") != shell_key(b, "/ws")


def test_a_wrapper_no_table_knows_is_found_pairwise() -> None:
    plain = {"name": "bash", "args": {"command": shell_key("make check")}}
    assert plain in wrapped_keys("bash", {"command": "tini -- make check"})
    assert plain not in wrapped_keys("bash", {"command": "make check"})


@pytest.mark.parametrize("a, b", [
    ("ESTAB 127.0.0.1:51234 127.0.0.1:5432", "ESTAB 127.0.0.1:60112 127.0.0.1:5432"),
    ("using local port 30911", "using local port 30912"),
    ("tcp4 127.0.0.1.52110 127.0.0.1.5432 ESTABLISHED", "tcp4 127.0.0.1.61002 127.0.0.1.5432 ESTABLISHED"),
    ("client [::1]:49822 closed", "client [::1]:50013 closed"),
    ("conn_id=88 closed", "conn_id=91 closed"),
    ("connection #12 reset", "connection #13 reset"),
    ("wrote /tmp/tmpq0k8_zx1/db", "wrote /tmp/tmpz7a2_kk9/db"),
    ("/tmp/pytest-of-root/pytest-12/test_x0/in.txt", "/tmp/pytest-of-root/pytest-13/test_x0/in.txt"),
    ("inode 3912211 data", "inode 3922211 data"),
    ("api-7d9f8b6c5-x2k9p Running", "api-7d9f8b6c5-q8z4w Running"),
    ("Thread-12 waiting", "Thread-14 waiting"),
    ("gc: collected 123 objects in 0.01s", "gc: collected 98 objects in 0.02s"),
    ("[0.5s][info][gc] GC(3) Pause Young 24M->3M(256M) 2.3ms", "[0.9s][info][gc] GC(4) Pause Young 25M->3M(256M) 2.1ms"),
])
def test_non_clock_volatile_tokens_are_masked(a: str, b: str) -> None:
    assert mask_volatile(a) == mask_volatile(b)


@pytest.mark.parametrize("a, b", [
    ("listening on 127.0.0.1:8080", "listening on 127.0.0.1:8081"),
    ("tcp4 127.0.0.1.5432 LISTEN", "tcp4 127.0.0.1.5433 LISTEN"),
    ("version 10.2.3.40123 installed", "version 10.2.3.40124 installed"),
    ("connections: 3", "connections: 4"),
    ("/tmp/export/part-0001.csv", "/tmp/export/part-0002.csv"),
    ("leak check: 3 objects alive", "leak check: 4 objects alive"),
    ("uploaded 10 of 50 objects", "uploaded 20 of 50 objects"),
    ("Inodes used: 40%", "Inodes used: 41%"),
    ("api-7d9f8b6c5-x2k9p Running", "api-7d9f8b6c5-x2k9p CrashLoopBackOff"),
    ("big.c:40123:7: error", "big.c:40124:7: error"),
    ("# Serial: 167285380242319648451154478808036881606", "# Serial: 206684696279472310254277870180966723415"),
])
def test_substance_next_to_them_is_kept(a: str, b: str) -> None:
    assert mask_volatile(a) != mask_volatile(b)
