"""Wave scheduling: read-only calls with distinct keys together, everything else alone."""

from __future__ import annotations

from harness.execution.scheduler import resource_keys, schedule
from harness.testing import call
from harness.tools import resolve_tools

TOOLS = {t.name: t for t in resolve_tools(["bash", "read_file", "write_file", "list_dir"])}
KEYS = ["path", "url"]


def waves(calls, parallel=True):
    return [(w.indices, w.parallel) for w in schedule(calls, TOOLS, KEYS, parallel=parallel)]


def test_consecutive_reads_share_a_wave_and_writes_stand_alone() -> None:
    calls = [call("read_file", path="a"), call("list_dir", path="src"), call("write_file", path="b", content=""),
             call("read_file", path="c"), call("bash", command="ls"), call("bash", command="pwd")]
    assert waves(calls) == [([0, 1], True), ([2], False), ([3], True), ([4], False), ([5], False)]


def test_overlapping_keys_split_the_wave() -> None:
    calls = [call("read_file", path="a.txt"), call("read_file", path="./a.txt"), call("read_file", path="b")]
    assert waves(calls) == [([0], True), ([1, 2], True)]


def test_unknown_tools_run_alone_and_parallel_off_means_one_call_per_wave() -> None:
    calls = [call("read_file", path="a"), call("nope"), call("read_file", path="b"), call("read_file", path="c")]
    assert waves(calls) == [([0], True), ([1], False), ([2, 3], True)]
    assert waves(calls, parallel=False) == [([0], False), ([1], False), ([2], False), ([3], False)]


def test_resource_keys_normalise_paths_but_not_urls() -> None:
    assert resource_keys(call("read_file", path="./src/../a"), KEYS) == {"a"}
    assert resource_keys(call("x", url="http://127.0.0.1/./a"), KEYS) == {"http://127.0.0.1/./a"}
    assert resource_keys(call("bash", command="ls"), KEYS) == frozenset()
