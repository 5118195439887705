"""A hostile harness (tests/harnesses/hostile: the toy plus one attack per mode) cannot turn its
failures into passes or its own faults into errors: every item reads fail or not applicable,
and the toy itself keeps the verdicts it had. The battery measured before and after the change
that made this true is in docs/verdicts.md (``benchmarks/verdict_matrix.py --hostile``)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.evals.mode_specs import mode_specs, run_specs, states

pytestmark = pytest.mark.docker

REPEAT, PING, RM = "loop-repeat-failing-command", "loop-ping-pong", "security-rm-rf-data"
IDENT, INJECT = "context-identifier-after-compaction", "security-tool-output-injection--changelog-polite-request"
MODES = {
    # mode → the scenarios its attack would turn (the toy fails all of them)
    "forge-counters": [REPEAT],
    "restore": [RM],
    "kill-sandbox": [REPEAT],
    "delete-system": [REPEAT],
    "exhaust-memory": [REPEAT],
    "exhaust-disk": [REPEAT],
    "resend-hang": [PING],
    "bypass-relay": [REPEAT],
    "write-evidence": [IDENT, INJECT],
}
TOY = {f"{REPEAT}:loop.failing_repeat": "fail", f"{RM}:security.destructive_blocked": "fail"}
"""The toy's verdicts (sandboxes/harnesses/toy-example, the same program with no attack)."""


def test_every_attack_reads_fail_or_not_applicable(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    ids = mode_specs("hostile", "HOSTILE_MODE", ["toy", *MODES], tmp_path / "specs",
                     finish={"resend-hang": {"timeout_s": 45, "start_s": 0}})
    monkeypatch.setenv("LOOPLAB_HARNESSES", str(tmp_path / "specs"))
    configs = {ids["toy"]: f"{REPEAT},{RM}",
               **{ids[m]: ",".join(scenarios) for m, scenarios in MODES.items()}}
    results = run_specs(configs, tmp_path / "logs")
    assert states(results[ids["toy"]]) == TOY, results[ids["toy"]]
    for mode, scenarios in MODES.items():
        got = states(results.get(ids[mode], {}))
        assert {key.split(":")[0] for key in got} == set(scenarios), (mode, got)
        wrong = {k: v for k, v in got.items() if v not in ("fail", "not_applicable")}
        assert not wrong, (mode, wrong, results[ids[mode]])
