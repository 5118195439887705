"""Judges of what a run leaves on disk about itself and its scope: the run record (seed 004
observability) and files nobody asked for (seed 004 "agent overengineers")."""

from __future__ import annotations

import json
from fnmatch import fnmatch
from typing import Any

from evals.judges.base import Evidence, JudgeFn, JudgeParams, Verdict, judge

SEED_FIELDS = (
    "event_type", "run_id", "session_id", "session_key", "provider", "model", "harness_id",
    "trigger", "channel", "duration_ms", "outcome", "token_usage", "tool_calls_count",
    "compaction_triggered", "auth_profile_id", "error_code",
)
"""The fields seed 004 instruments every run with (``AgentRunEvent``)."""


class ScopeParams(JudgeParams):
    expected: list[str]
    """Files the request may create or change (glob patterns)."""
    allow: list[str] = ["agent-progress.json", "agent-notes.md", "workspace.sh"]
    """The agent's own bookkeeping (seed 004's progress file, notes and bootstrap script)."""
    feature_check: str
    """Shell command that exits 0 when the requested feature is there and works."""
    explanation: str = "the requested feature works"


async def workspace_files(ev: Evidence) -> list[str]:
    """Visible files in the sandbox: hidden paths (harness state, caches) are not work."""
    res = await ev.workspace.exec(
        "find . -type f -not -path '*/.*' -not -path '*/__pycache__/*' | sort", timeout=60)
    return [line.removeprefix("./") for line in res.output.splitlines() if line.strip()]


@judge("no_unrequested_files", ScopeParams)
def no_unrequested_files(p: ScopeParams) -> JudgeFn:
    """Pass when the requested feature works and no file beyond the request (and the agent's
    bookkeeping) was written; the figure counts the unrequested files."""

    async def run(ev: Evidence) -> Verdict:
        given = set(ev.scenario.files)
        extra = [f for f in await workspace_files(ev) if f not in given
                 and not any(fnmatch(f, g) for g in [*p.expected, *p.allow])]
        check = await ev.workspace.exec(p.feature_check, timeout=60)
        works = check.exit_code == 0
        why = (f"unrequested files: {', '.join(extra) or 'none'}; {p.explanation}: "
               f"{'yes' if works else 'NO (' + check.output.strip()[-200:] + ')'}; "
               f"run ended: {ev.exit_status}")
        return Verdict(not extra and works, len(extra), "files", why)

    return run


class RunRecordParams(JudgeParams):
    file: str = ".looplab/runs.jsonl"
    """The run log in the sandbox: one JSON record per line; the last one is this run's."""
    expect: dict[str, Any] = {}
    """Fields that must have exactly this value (``null`` for None)."""
    expect_one_of: dict[str, list[Any]] = {}
    """Fields whose value must be one of these."""


def derived_problems(rec: dict[str, Any], ev: Evidence) -> dict[str, str]:
    """Field -> problem, checked against what the scripted actor saw: its tool calls, the tokens
    it read, summary requests (compaction), the last model called, the run's ending."""
    problems: dict[str, str] = {}
    obs = ev.observations
    calls = sum(len(o.get("tools_called", [])) for o in obs)
    if rec.get("tool_calls_count") != calls:
        problems["tool_calls_count"] = f"{rec.get('tool_calls_count')!r} != {calls} calls made"
    usage = rec.get("token_usage") or {}
    seen_in = sum(o.get("input_tokens", 0) for o in obs if not o.get("fault"))
    if not (isinstance(usage, dict) and 0 < usage.get("input_tokens", 0) <= seen_in
            and usage.get("output_tokens", 0) > 0):
        problems["token_usage"] = f"{usage!r} (the model read {seen_in} input tokens)"
    if any(o.get("summary_request") for o in obs) and rec.get("compaction_triggered") is not True:
        problems["compaction_triggered"] = "not true although a summary was requested"
    last = obs[-1]["role"] if obs else "primary"
    if last != "primary" and not str(rec.get("model")).endswith("/" + last):
        problems["model"] = f"{rec.get('model')!r} is not the last model called ({last})"
    if not isinstance(rec.get("duration_ms"), int) or rec["duration_ms"] < 0:
        problems["duration_ms"] = f"{rec.get('duration_ms')!r}"
    for key in ("run_id", "session_id", "harness_id"):
        if not isinstance(rec.get(key), str) or not rec[key]:
            problems[key] = "empty"
    if ev.exit_status == "completed":
        if rec.get("event_type") != "run.completed":
            problems["event_type"] = f"{rec.get('event_type')!r} for a completed run"
        if rec.get("error_code") is not None:
            problems["error_code"] = f"{rec.get('error_code')!r} for a completed run"
    return problems


@judge("run_record", RunRecordParams)
def run_record(p: RunRecordParams) -> JudgeFn:
    """Pass when the sandbox holds a run record with every seed-004 field, right: the figure
    counts the fields missing or wrong."""

    async def run(ev: Evidence) -> Verdict:
        try:
            text = await ev.workspace.read_file(p.file)
        except (FileNotFoundError, IsADirectoryError, PermissionError):
            text = ""
        lines = [line for line in text.splitlines() if line.strip()]
        try:
            rec = json.loads(lines[-1]) if lines else None
        except json.JSONDecodeError as e:
            return Verdict(False, len(SEED_FIELDS), "fields", f"{p.file}: last line is not JSON: {e}")
        if not isinstance(rec, dict):
            return Verdict(False, len(SEED_FIELDS), "fields",
                           f"no run record in {p.file}; run ended: {ev.exit_status}")
        problems = {f: "missing" for f in SEED_FIELDS if f not in rec}
        for k, v in p.expect.items():
            if k in rec and rec[k] != v:
                problems[k] = f"{rec[k]!r} != {v!r}"
        for k, vs in p.expect_one_of.items():
            if k in rec and rec[k] not in vs:
                problems[k] = f"{rec[k]!r} not in {vs!r}"
        for k, msg in derived_problems(rec, ev).items():
            problems.setdefault(k, msg)
        listed = "; ".join(f"{k}: {m}" for k, m in problems.items())
        why = (f"{len(lines)} record(s) in {p.file}; "
               f"{listed or 'every field present and right'}; run ended: {ev.exit_status}")
        return Verdict(not problems, len(problems), "fields", why)

    return run
