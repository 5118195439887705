"""Call keys and volatile-token masking (loop detection by meaning), and the switches' defaults
that keep the seed presets' detectors as they were."""

from __future__ import annotations

import pytest

from harness import get_preset
from harness.config import LoopDetectionConfig
from harness.controls.loop_detectors import CallRecord, cycle, detect
from harness.controls.loop_names import name_keys, same_tool
from harness.controls.loop_normalise import call_key, mask_volatile, shell_key


@pytest.mark.parametrize("a, b", [
    ("grep -r -n foo .", "grep -nr foo ."),
    ("ls -l -a", "ls -al"),
    ("pytest  -x   tests", "pytest -x tests"),
    ("make --jobs=4 --keep-going", "make --keep-going --jobs=4"),
    ("././run.sh -k db", "./run.sh -k db"),
    ("./run.sh", "run.sh"),
    ("/usr/local/bin/pytest -q", "pytest -q"),
    ("sh ./run.sh", "./run.sh"),
    ("command ./run.sh", "run.sh"),
    ("bash -c 'make lint'", "make lint"),
    ("head -n5 f", "head -n 5 f"),
    ("ls ./src/", "ls src"),
    ("grep -n \"x\" f", "grep -n x f"),
])
def test_same_meaning_same_key(a: str, b: str) -> None:
    assert shell_key(a) == shell_key(b)


@pytest.mark.parametrize("a, b", [
    ("cp a b", "cp b a"),
    ("head -n 5 f", "head -n 6 f"),
    ("git log", "git status"),
    ("rm -r x", "rm x"),
    ("./a/run.sh", "./b/run.sh"),
    ("/opt/a/run.sh", "/srv/a/run.sh"),
    ("python3 a.py", "python3 b.py"),
    ("bash -c 'make a'", "bash -c 'make b'"),
    ("git -- -x", "git -x"),
])
def test_different_meaning_different_key(a: str, b: str) -> None:
    assert shell_key(a) != shell_key(b)


def test_call_key_ignores_name_case_and_key_order() -> None:
    assert call_key("Read_File", {"path": "a", "limit": 1}) == call_key("read_file", {"limit": 1, "path": "a"})
    assert call_key("readFile", {}) == call_key("read-file", {}) == call_key("READ.FILE ", {})


@pytest.mark.parametrize("a, b, same", [
    ("run_tests", "RunTests", True),
    ("functions.run_tests", "tools/run-tests", True),
    ("mcp__ci__run_tests", "runTests", True),
    ("HTTPGet", "http_get", True),
    ("functions.read_file", "functions.write_file", False),
    ("read.file", "write.file", False),
    ("mcp__gh__create_issue", "mcp__gh__list_issues", False),
    ("search_web", "web_search", False),
])
def test_tool_names_compared_by_words_and_namespace(a: str, b: str, same: bool) -> None:
    assert same_tool(name_keys(a), name_keys(b)) is same


@pytest.mark.parametrize("a, b", [
    ("2026-11-23T10:00:01Z job running", "2026-11-23T10:00:09Z job running"),
    ("still running after 3.2s", "still running after 14.8s"),
    ("worker pid 4102 alive", "worker pid 4399 alive"),
    ("obj at 0x7f3a0c10", "obj at 0x7f3a9c10"),
    ("[check #3] pending", "[check #4] pending"),
    ("AGE=1m13s running", "AGE=2m0s running"),
    ("request_id=00000000 running", "request_id=9e3779b1 running"),
    ("up 3 min, load average: 0.39, 0.40, 0.41", "up 4 min, load average: 0.12, 0.40, 0.38"),
    ("Date: Tue, 24 Nov 2026 01:13:03 GMT ok", "Date: Wed, 25 Nov 2026 01:14:00 GMT ok"),
])
def test_volatile_tokens_are_masked(a: str, b: str) -> None:
    assert mask_volatile(a) == mask_volatile(b)


@pytest.mark.parametrize("a, b", [
    ("progress 40%", "progress 60%"),
    ("3/10 shards done", "4/10 shards done"),
    ("state=PENDING", "state=RUNNING"),
    ("pending jobs: 3", "pending jobs: 2"),
    ("loss 0.35", "loss 0.31"),
    ("foo.py:12:30: E501", "foo.py:14:30: E501"),
])
def test_progress_is_not_masked(a: str, b: str) -> None:
    assert mask_volatile(a) != mask_volatile(b)


def _records(pattern: str, repeats: int) -> list[CallRecord]:
    return [CallRecord(tool=c, args_hash=c, result_hash="r") for c in pattern * repeats]


def test_cycle_of_three_found_only_when_switched_on() -> None:
    window = _records("abc", 3)
    on = LoopDetectionConfig(enabled=True, cycle_max_length=4)
    assert cycle(window, on) is not None
    assert detect(window, LoopDetectionConfig(enabled=True, identical_repeat=False), []) is None


def test_seed_presets_keep_byte_comparison() -> None:
    for name in ("seed000", "seed001", "seed004"):
        cfg = get_preset(name).loop_detection
        assert not cfg.normalise_calls and not cfg.mask_volatile_output and cfg.cycle_max_length == 2


def test_a_result_that_echoes_its_call_is_compared_without_the_echo() -> None:
    from harness.controls.loop_normalise import without_echo

    a = without_echo("[FROM bash: ./q.sh --all --verbose]\nqueue: 3", {"command": "./q.sh --all --verbose"})
    b = without_echo("[FROM bash: ./q.sh --verbose --all]\nqueue: 3", {"command": "./q.sh --verbose --all"})
    assert a == b
    c = without_echo("[FROM bash: ./q.sh --all]\nqueue: 3", {"command": "./q.sh --all "})
    d = without_echo("[FROM bash: ./q.sh --all]\nqueue: 3", {"command": "./q.sh  --all"})
    assert c == d == without_echo("[FROM bash: ./q.sh --all]\nqueue: 3", {"command": "./q.sh --all"})


def test_a_cycle_of_polls_with_unchanged_results_is_a_cycle_when_results_are_compared() -> None:
    window = [CallRecord(tool=c, args_hash=c, result_hash="r", poll=True) for c in "abc" * 3]
    assert cycle(window, LoopDetectionConfig(enabled=True, cycle_max_length=4, identical_repeat_same_output=True))
    assert cycle(window, LoopDetectionConfig(enabled=True, cycle_max_length=4)) is None


def test_a_huge_output_is_masked_at_both_ends() -> None:
    middle = ("x" * 99 + "\n") * 1_000
    a = mask_volatile(f"at 12:00:01\n{middle}took 3s")
    b = mask_volatile(f"at 12:09:59\n{middle}took 41s")
    assert a == b and a.count("x") == middle.count("x")
    assert mask_volatile(f"at 12:00:01\n{middle}took 3s\n") != mask_volatile(f"at 12:00:01\n{middle}3 failed\n")


# --- round 4: path forms, `--k v` with `--k=v`, animation ---------------------------------------

@pytest.mark.parametrize("a, b, same", [
    ("./notes/a.txt", "notes/a.txt", True),
    ("notes//a.txt", "notes/./a.txt", True),
    ("tmp/../notes/a.txt", "notes/a.txt", True),
    ("docs/", "docs", True),
    ("/ws/notes/a.txt", "notes/a.txt", True),  # under the workspace root /ws
    ("$PWD/notes/a.txt", "notes/a.txt", True),
    ("../a.txt", "a.txt", False),
    ("/etc/a.txt", "etc/a.txt", False),
    ("README.md", "readme.md", False),
    ("s/a//", "s/a", False),  # a sed expression, not a path
    ("https://x.org//api", "https://x.org/api", False),
])
def test_paths_compared_by_normal_form(a: str, b: str, same: bool) -> None:
    from harness.shell.meaning import path_key

    assert (path_key(a, "/ws") == path_key(b, "/ws")) is same
    assert (shell_key(f"cat {a}", "/ws") == shell_key(f"cat {b}", "/ws")) is same


def test_long_flag_values_bind_only_when_asked() -> None:
    """``--env prod`` alone may be a switch and an operand; bound (another call spelled
    ``--env=prod``) it is the flag's value."""
    assert shell_key("./q.sh --env prod") != shell_key("./q.sh --env=prod")
    bind = frozenset({"--env"})
    assert shell_key("./q.sh --env prod", bind=bind) == shell_key("./q.sh --env=prod", bind=bind)
    assert shell_key("./q.sh --env dev", bind=bind) != shell_key("./q.sh --env=prod", bind=bind)
    assert shell_key("./q.sh --env -x", bind=bind) != shell_key("./q.sh --env=-x", bind=bind)


@pytest.mark.parametrize("a, b", [
    ("⠋ deploying (2/5 healthy)", "⠙ deploying (2/5 healthy)"),
    ("◐ syncing", "◓ syncing"),
    ("Installing |", "Installing /"),
    ("[.] job running", "[O] job running"),
    ("waiting.", "waiting..."),
    ("[<=>    ] 3.4 MB/s", "[  <=>  ] 0.2 MB/s"),
    (" 50%|█████     | 5/10 [00:12<00:13,  2.10it/s]", " 50%|█████     | 5/10 [00:31<00:31,  0.83s/it]"),
    ("build 40% ETA 1m20s", "build 40% eta --:--"),
])
def test_animation_is_masked(a: str, b: str) -> None:
    assert mask_volatile(a) == mask_volatile(b)


@pytest.mark.parametrize("a, b", [
    ("[##      ]", "[###     ]"),
    (" 50%|█████     | 5/10", " 60%|██████    | 6/10"),
    ("⠋ 3/10 done", "⠙ 4/10 done"),
    ("[✓] tests", "[✗] tests"),
    ("- [ ] ship", "- [x] ship"),
    ("3 pending", "2 pending"),
    ("waiting...", "ready."),
])
def test_progress_behind_animation_is_kept(a: str, b: str) -> None:
    assert mask_volatile(a) != mask_volatile(b)
