"""Compaction's pure pieces: pair-safe cuts, chunking, identifier and progress extraction,
the timeout formula, and reading the window from a provider error."""

from __future__ import annotations

import random

from harness.compaction.compactor import compaction_timeout
from harness.compaction.identifiers import extract_identifiers, verify_summary
from harness.compaction.split import plan_compaction, safe_cut, split_by_token_share, tail_start
from harness.config import CompactionConfig
from harness.controls.compaction import window_from_error
from harness.messages import Message, ToolCall, estimate_tokens, unpaired_tool_messages


def assert_pairs_intact(messages: list[Message]) -> None:
    problem = unpaired_tool_messages(messages)
    assert problem is None, problem


def _random_history(rng: random.Random, n: int) -> list[Message]:
    msgs = [Message.system("s"), Message.user("task")]
    k = 0
    while len(msgs) < n:
        if rng.random() < 0.3:
            msgs.append(Message(role="assistant", content="thinking " * rng.randint(1, 50)))
            continue
        calls = [ToolCall(id=f"t{k + j}", name="bash") for j in range(rng.randint(1, 3))]
        k += len(calls)
        msgs.append(Message(role="assistant", tool_calls=calls))
        msgs += [Message.tool(c, "out " * rng.randint(1, 300)) for c in calls]
    return msgs


def test_cuts_are_pair_safe_on_random_histories() -> None:
    rng = random.Random(7)
    for _ in range(200):
        msgs = _random_history(rng, rng.randint(3, 40))
        for keep in range(0, 6):
            start = tail_start(msgs, keep)
            assert safe_cut(msgs, start)
            assert start <= max(0, len(msgs) - keep)
            plan = plan_compaction(msgs, keep)
            assert plan.head + plan.middle + plan.tail == msgs
        chunks = split_by_token_share(msgs[1:], rng.randint(1, 5), lambda m: estimate_tokens([m]))
        assert [m for c in chunks for m in c] == msgs[1:]
        for c in chunks:
            assert_pairs_intact(c)


def test_identifier_extraction_kinds() -> None:
    text = ("commit 3f2a9c1e8b7d at 10.0.3.17:8443, see https://ci.example.com/b/42 and "
            "/etc/app/config.yaml; API_KEY_ID=k-77; id a3f8b2c1-4e7d-4c2b-9a1e-0f1e2d3c4b5a; "
            "and/or 1234567 defaced")
    found = dict((t, k) for k, t in extract_identifiers(text))
    assert found["3f2a9c1e8b7d"] == "sha" and found["10.0.3.17:8443"] == "ip"
    assert found["https://ci.example.com/b/42"] == "url" and found["/etc/app/config.yaml"] == "path"
    assert found["a3f8b2c1-4e7d-4c2b-9a1e-0f1e2d3c4b5a"] == "uuid"
    assert "and/or" not in found and "1234567" not in found and "defaced" not in found
    assert "API_KEY_ID=k-77" in found


def test_verify_summary_keeps_only_the_latest_progress_line() -> None:
    src = "processed 16 of 43 files\nprocessed 17 of 43 files\nunrelated"
    v = verify_summary("we processed some files", [src], identifiers=False)
    assert v.missing_progress == ["processed 17 of 43 files"]
    assert verify_summary("processed 17 of 43", [src], identifiers=False).block == ""


def test_timeout_scales_with_context_size() -> None:
    cfg = CompactionConfig()
    assert compaction_timeout(cfg, 0) == 120
    assert compaction_timeout(cfg, 50_000) == 170
    assert compaction_timeout(cfg, 10_000_000) == 320  # capped at 200k tokens



def test_window_is_read_from_provider_errors() -> None:
    msg = "This model's maximum context length is 4,096 tokens. However, you requested 5000 tokens."
    assert window_from_error(msg) == 4096
    assert window_from_error("context length exceeded") is None


def test_verify_summary_on_a_multi_megabyte_output_restores_the_most_recent_identifiers() -> None:
    # ~4 MB of checksum lines (10^5 identifiers): the block restores the cap's worth of the most
    # recent ones, and a URL (a more opaque kind) still ranks first. This output once took
    # minutes (a rescan of the whole text per identifier) and froze every other sample.
    lines = [f"shard {i:06d} checksum {i * 7919 % 16**12:012x}" for i in range(150_000)]
    lines.insert(149_000, "mirror at https://mirror.example.org/shards/latest")
    result = verify_summary("All shards were checked.", ["\n".join(lines)], max_identifiers=10)
    assert result.missing_identifiers[0] == "https://mirror.example.org/shards/latest"
    expected_latest = [f"{i * 7919 % 16**12:012x}" for i in range(149_999, 149_990, -1)]
    assert result.missing_identifiers[1:] == expected_latest
    assert "shard 149999 checksum" in result.block
