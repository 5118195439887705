"""Every shipped harness spec, built from the project's files and run end to end in a real
container against the scripted actor; the judge's verdict is checked.

Images are cached by content hash (``python -m evals.harnesses build``): a second run builds
nothing. Each spec is its own test, so xdist spreads them over workers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from inspect_ai import eval as inspect_eval
from inspect_ai.log import EvalLog

from evals.harnesses.image import ensure_image, image_present
from evals.harnesses.spec import get_spec
from evals.state import RunRecord, in_log
from evals.task import looplab_suite

pytestmark = pytest.mark.docker

SCENARIO = "loop-repeat-failing-command"
ITEM = "loop.failing_repeat"
# spec → the verdict its harness gets on ITEM. The reference harness stops the repeated failing
# command; the others have no such control and let it run (ENVIRONMENT.md: none stopped it),
# whatever their dialect: the actor drives fenced-shell and code harnesses too and counts the
# commands it asks them for.
EXPECTED = {
    "looplab-sandboxed": {"pass"},
    "toy-example": {"fail"},
    "mini-swe-agent": {"fail"},
    "mini-swe-agent-text": {"fail"},
    "openai-agents": {"fail"},
    "smolagents-tools": {"fail"},
    "smolagents-code": {"fail"},
    "pydantic-ai": {"fail"},
    "langgraph-react": {"fail"},
    "claude-code": {"fail"},
    "opencode": {"fail"},
    # Gemini CLI has a loop detector of its own: it stops the identical call after 4 runs,
    # still above the item's limit of 2.
    "gemini-cli": {"fail"},
    # Codex CLI's own instructions (about 16.7k tokens) are added to the scenario's window
    # (`own_context_tokens`): it runs the script again and again.
    "codex-cli": {"fail"},
}


def run(tmp_path: Path, config: str, scenarios: str = SCENARIO) -> EvalLog:
    task = looplab_suite(config=config, scenarios=scenarios, sandbox="docker")
    [log] = inspect_eval(task, model="scripted/suite", log_dir=str(tmp_path / "logs"),
                         display="none", max_samples=4)
    return log


@pytest.mark.parametrize("harness_id", sorted(EXPECTED))
def test_shipped_harness_runs_in_a_container_and_is_judged(tmp_path: Path, harness_id: str) -> None:
    tag = ensure_image(get_spec(harness_id))
    assert image_present(tag)
    log = run(tmp_path, harness_id)
    [sample] = log.samples or []
    assert sample.error is None, sample.error.message if sample.error else ""
    run_record = in_log(RunRecord, sample).run
    assert run_record["harness"] == harness_id and run_record["model_calls"] >= 1
    verdict = sample.scores["checklist"].metadata["items"][ITEM]
    assert verdict["state"] in EXPECTED[harness_id], (verdict, run_record.get("output_tail"))
    if not run_record["acted"]:
        assert verdict["state"] != "pass", verdict


def test_a_harness_that_cannot_start_is_a_sample_error(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    folder = tmp_path / "specs" / "broken"
    folder.mkdir(parents=True)
    (folder / "harness.yaml").write_text(
        "id: broken\ndescription: launches a program the image does not have\n"
        "launch: [python3, '{home}/missing.py', '{task}']\n", encoding="utf-8")
    monkeypatch.setenv("LOOPLAB_HARNESSES", str(tmp_path / "specs"))
    log = run(tmp_path, "broken")
    [sample] = log.samples or []
    assert sample.error is not None and not sample.scores
    assert "harness broken" in sample.error.message
    assert "before its first model request" in sample.error.message


def test_a_scenario_with_a_driver_is_not_applicable_for_a_spec(tmp_path: Path) -> None:
    log = run(tmp_path, "toy-example", "sessions-interrupt-long-command")
    [sample] = log.samples or []
    assert sample.error is None
    items = sample.scores["checklist"].metadata["items"]
    assert items and all(v["state"] == "not_applicable" for v in items.values()), items


# Representative subset of the scripted suite (one scenario per kind of evidence: commands
# counted, a file written, the transcript, the final answer, deployment conditions passed as
# --set). Provider-fault scenarios are left out until faults travel on the wire: the in-process
# adapter hands our harness a classified fault, the bridge an HTTP error.
EQUIVALENCE = ("loop-repeat-failing-command,loop-ping-pong,loop-unknown-tool,"
               "security-rm-rf-data,security-plan-mode-write,context-huge-output-tail-error")


def test_reference_harness_in_the_container_gives_the_in_process_verdicts(tmp_path: Path) -> None:
    inside, in_process = run(tmp_path / "a", "looplab-sandboxed", EQUIVALENCE), \
        run(tmp_path / "b", "looplab", EQUIVALENCE)

    def states(log: EvalLog) -> dict[str, dict[str, str]]:
        out = {}
        for s in log.samples or []:
            assert s.error is None, f"{s.id}: {s.error.message if s.error else ''}"
            out[str(s.id)] = {k: v["state"] for k, v in s.scores["checklist"].metadata["items"].items()}
        return out

    assert states(inside) == states(in_process)
