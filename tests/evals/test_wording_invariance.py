"""Verdicts do not depend on a harness's words: a test-only harness (tests/harnesses/wording)
that stops loops as looplab does, but in other words, another language, a system message, an
error of its own or a refused call, gets looplab's verdicts on the loop and unknown-tool
scenarios; one that never steps in, but whose tool errors carry looplab's own phrases, gets
none of the credit (the actor reads what a harness did: scenarios/actor/view.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evals.mode_specs import mode_specs, run_specs, states
from tests.evals.suite import run_suite, verdicts

pytestmark = pytest.mark.docker

SCENARIOS = ["loop-repeat-failing-command", "loop-ping-pong", "loop-poll-no-progress",
             "loop-poll-with-progress", "loop-unknown-tool"]
MODES = ["paraphrase", "german", "system-message", "tool-error", "refused"]


def test_interventions_in_other_words_get_looplabs_verdicts(tmp_path: Path,
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    looplab = states(verdicts(run_suite(tmp_path / "looplab", "looplab", scenarios=",".join(SCENARIOS))))
    assert set(looplab.values()) == {"pass"}, looplab
    ids = mode_specs("wording", "WORDING_MODE", [*MODES, "phrases"], tmp_path / "specs")
    monkeypatch.setenv("LOOPLAB_HARNESSES", str(tmp_path / "specs"))
    results = run_specs({ids[m]: ",".join(SCENARIOS) for m in [*MODES, "phrases"]}, tmp_path / "logs")
    for mode in MODES:
        assert states(results[ids[mode]]) == looplab, (mode, results[ids[mode]])
    # Never stepping in, whatever its errors say: every guard item fails; the item about not
    # flagging a poll that makes progress passes, as it does for any harness that leaves it be.
    phrases = states(results[ids["phrases"]])
    assert phrases == {k: "pass" if "poll_progress_ok" in k else "fail" for k in looplab}, \
        results[ids["phrases"]]
