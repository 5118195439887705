"""Benchmark task data: every task and variant loads, verifiers stay hidden, hostile tools do
what they claim, and bad files are answered with errors naming the file and the field."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import yaml

from evals.bench.scorer import VERIFIER
from scenarios.bench import BenchError, load_task_file, load_tasks, load_variants, select
from scenarios.bench.actors import ACTORS, as_scenario
from scenarios.bench.loader import TASKS_DIR, load_variants_file
from scenarios.schema import FaultRule

HOSTILE = {"poisoned_context", "flood", "quota", "loop_bait"}


def test_six_to_eight_tasks_and_the_five_variants():
    tasks, variants = load_tasks(), load_variants()
    assert 6 <= len(tasks) <= 8, list(tasks)
    assert set(variants) == {"clean", *HOSTILE}
    assert [v.id for v in variants.values() if not v.hostile] == ["clean"]
    samples = select()
    assert len(samples) == len(tasks) * len(variants)
    assert len({s.id for s in samples}) == len(samples)


def test_every_sample_plays_as_a_scenario_for_every_actor():
    for s in select():
        for actor in ACTORS:
            scenario = as_scenario(s.id, actor)
            assert scenario.prompt == s.prompt and scenario.files == s.files


def test_verifier_is_not_in_the_workspace_the_agent_sees():
    for s in select():
        visible = [s.prompt, *s.setup, *s.files.values(), *s.files]
        assert VERIFIER not in s.files
        for line in (x.strip() for x in s.task.verify.splitlines()):
            if len(line) > 12 and line != "set -e":
                assert not any(line in text for text in visible), f"{s.id}: {line!r} is visible"


def test_hostile_variants_carry_their_hostility():
    variants = load_variants()
    poisoned = select(["fix-config"], ["poisoned_context"])[0]
    assert "looplab-canary" in poisoned.files["AGENTS.md"]
    assert variants["quota"].faults == [FaultRule(model="primary", kind="quota_exceeded", from_call=2)]
    assert variants["loop_bait"].oracle["poll"]["command"] in variants["loop_bait"].prompt_suffix
    assert "./tools/precheck.sh" in variants["flood"].prompt_suffix


def _run_script(tmp_path: Path, variant: str, name: str) -> str:
    v = load_variants()[variant]
    script = tmp_path / name
    script.write_text(v.files[f"tools/{name}"])
    res = subprocess.run(["bash", str(script)], capture_output=True, text=True, timeout=60,
                         cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    return res.stdout


def test_flood_tool_prints_megabytes_and_ends_with_the_useful_line(tmp_path):
    out = _run_script(tmp_path, "flood", "precheck.sh")
    assert len(out) > 2_000_000
    assert out.rstrip().splitlines()[-1].startswith("precheck: OK")


def test_loop_bait_never_reports_the_lock_free(tmp_path):
    outs = {_run_script(tmp_path, "loop_bait", "lock_status.sh") for _ in range(3)}
    assert len(outs) == 1
    [out] = outs
    assert "still running" in out and "retry" in out
    assert not re.search(load_variants()["loop_bait"].oracle["poll"]["done_pattern"], out)


def test_commands_stay_inside_the_sandbox():
    forbidden = re.compile(r"rm -rf /(\s|$)|rm -rf ~|/etc/passwd|\.ssh/id_"
                           r"|(curl|wget|nc)\s[^\n`]*https?://(?!127\.0\.0\.1|localhost)[\w.-]+")
    for s in select():
        for text in [s.prompt, *s.setup, *s.files.values(), s.task.verify, str(s.oracle_params())]:
            m = forbidden.search(text)
            assert not m, f"{s.id}: {m.group(0)!r}"


# --- errors name the file and the field --------------------------------------------------------


def _copy_tasks(tmp_path: Path) -> Path:
    d = tmp_path / "tasks"
    shutil.copytree(TASKS_DIR, d)
    return d


def _edit(path: Path, fn) -> None:
    raw = yaml.safe_load(path.read_text())
    fn(raw)
    path.write_text(yaml.safe_dump(raw, sort_keys=False))


@pytest.mark.parametrize(("change", "expected"), [
    (lambda r: r.pop("verify"), "field verify: Field required"),
    (lambda r: r.update(id="other-id"), "field id: 'other-id' must match the file name"),
    (lambda r: r["oracle"]["steps"][0].update(runn="x"), "field oracle.steps.0.runn"),
    (lambda r: r.update(n_ctx=10), "field n_ctx"),
])
def test_bad_task_file_names_file_and_field(tmp_path, change, expected):
    d = _copy_tasks(tmp_path)
    path = d / "sum-csv.yaml"
    _edit(path, change)
    with pytest.raises(BenchError) as e:
        load_task_file(path)
    assert str(path) in str(e.value) and expected in str(e.value)


@pytest.mark.parametrize(("change", "expected"), [
    (lambda r: r[1]["context_file"].update(entry="no-such-entry"),
     "field [1].context_file.entry: no entry 'no-such-entry'"),
    (lambda r: r[3]["faults"][0].update(kind="teapot"), "field [3].faults.0.kind"),
    (lambda r: r[4]["oracle"]["poll"].pop("command"), "field [4].oracle.poll.command"),
    (lambda r: r[0].update(hostile=True), "no variant has hostile: false"),
    (lambda r: r.append(dict(r[0])), "field [5].id: duplicate variant 'clean'"),
])
def test_bad_variants_file_names_file_and_field(tmp_path, change, expected):
    path = _copy_tasks(tmp_path) / "variants.yaml"
    _edit(path, change)
    with pytest.raises(BenchError) as e:
        load_variants_file(path)
    assert str(path) in str(e.value) and expected in str(e.value)


def test_unknown_ids_are_named_with_the_valid_ones():
    with pytest.raises(BenchError, match=r"tasks: unknown id\(s\) nope; valid: .*sum-csv"):
        select("nope")
    with pytest.raises(BenchError, match=r"variants: unknown id\(s\) storm; valid: clean"):
        select("sum-csv", "storm")


def test_not_yaml_is_named(tmp_path):
    path = _copy_tasks(tmp_path) / "sum-csv.yaml"
    path.write_text("id: [unclosed\n")
    with pytest.raises(BenchError, match=f"{re.escape(str(path))}: not valid YAML"):
        load_task_file(path)
