"""Write small, real inspect ``.eval`` logs that follow the looplab log contract.

The reports read logs the eval side writes; these builders write the same thing through
inspect's own public log types (``EvalLog``, ``EvalSample``, ``Score``, ``write_eval_log``), so
the reports are tested against inspect's real reader, not against a stand-in.

Contract: task ``looplab_suite``; task arg ``config``; one sample per scenario run (id = scenario
id, epochs possible); sample metadata ``scenario_id``, ``title``, ``family``, ``probes`` and
optional ``corpus`` / ``variant``; one scorer ``checklist`` whose value is ``{item: 1.0 | 0.0}``
(unjudged items absent) and whose metadata holds ``items``, ``exit_status``, ``model_calls`` and
``tool_calls``.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path

from inspect_ai.log import (
    EvalConfig,
    EvalDataset,
    EvalError,
    EvalLog,
    EvalResults,
    EvalSample,
    EvalSpec,
    EvalStats,
    write_eval_log,
)
from inspect_ai.model import ChatMessageAssistant, ChatMessageUser, ModelOutput, ModelUsage
from inspect_ai.scorer import Score

TASK = "looplab_suite"
_T0 = datetime(2026, 11, 21, 20, 30, tzinfo=UTC)


@dataclass
class Item:
    """One checklist item's verdict in one sample."""

    passed: bool | None
    figure: float | None = None
    unit: str = ""
    explanation: str = ""


@dataclass
class Run:
    """One sample: a scenario run in one epoch."""

    scenario_id: str
    items: dict[str, Item]
    epoch: int = 1
    family: str = ""
    title: str = ""
    corpus: str | None = None
    variant: str | None = None
    error: str | None = None
    exit_status: str = "completed"
    model_calls: int = 4
    tool_calls: int = 3
    tokens: int = 1000
    seconds: float = 2.0
    extra_metadata: dict = field(default_factory=dict)


def _score(run: Run) -> Score:
    value = {k: (1.0 if v.passed else 0.0) for k, v in run.items.items() if v.passed is not None}
    lines = []
    for k, v in run.items.items():
        verdict = {True: "PASS", False: "FAIL", None: "NOT JUDGED"}[v.passed]
        lines.append(f"{k}: {verdict}: {v.explanation}")
    items = {
        k: {"passed": v.passed, "figure": v.figure, "unit": v.unit, "explanation": v.explanation}
        for k, v in run.items.items()
    }
    return Score(
        value=value,
        explanation="\n".join(lines),
        metadata={
            "items": items,
            "exit_status": run.exit_status,
            "model_calls": run.model_calls,
            "tool_calls": run.tool_calls,
        },
    )


def _sample(run: Run, model: str) -> EvalSample:
    metadata = {
        "scenario_id": run.scenario_id,
        "title": run.title or f"scenario {run.scenario_id}",
        "family": run.family or next(iter(run.items), "loop.x").split(".")[0],
        "probes": list(run.items),
        **run.extra_metadata,
    }
    if run.corpus is not None:
        metadata["corpus"] = run.corpus
    if run.variant is not None:
        metadata["variant"] = run.variant
    usage = ModelUsage(
        input_tokens=run.tokens * 3 // 4,
        output_tokens=run.tokens - run.tokens * 3 // 4,
        total_tokens=run.tokens,
    )
    return EvalSample(
        id=run.scenario_id,
        epoch=run.epoch,
        input=f"task for {run.scenario_id}",
        target="",
        messages=[ChatMessageUser(content=f"task for {run.scenario_id}"),
                  ChatMessageAssistant(content="done")],
        output=ModelOutput.from_content(model=model, content="done"),
        scores=None if run.error else {"checklist": _score(run)},
        metadata=metadata,
        model_usage={model: usage},
        total_time=run.seconds,
        working_time=run.seconds,
        error=EvalError(message=run.error, traceback=run.error, traceback_ansi=run.error)
        if run.error
        else None,
    )


def write_run_log(
    directory: Path,
    config: str,
    runs: list[Run],
    *,
    model: str = "scripted/suite",
    status: str = "success",
    planned: list[str] | None = None,
    epochs: int | None = None,
    task: str = TASK,
    minute: int = 0,
    overrides: str = "",
) -> Path:
    """Write one ``.eval`` log (one configuration × model) and return its path.

    ``planned`` lists the dataset's sample ids (defaults to the ids in ``runs``); a cancelled log
    names samples it never finished there.
    """
    directory.mkdir(parents=True, exist_ok=True)
    ids = planned or list(dict.fromkeys(r.scenario_id for r in runs))
    n_epochs = epochs or max((r.epoch for r in runs), default=1)
    created = _T0 + timedelta(minutes=minute)
    spec = EvalSpec(
        eval_id=uuid.uuid4().hex[:22],
        run_id=uuid.uuid4().hex[:22],
        task_id=uuid.uuid4().hex[:22],
        created=created.isoformat(),
        task=task,
        task_args={"config": config, **({"overrides": overrides} if overrides else {})},
        dataset=EvalDataset(name="looplab", samples=len(ids), sample_ids=ids),
        model=model,
        config=EvalConfig(epochs=n_epochs),
    )
    samples = [_sample(r, model) for r in runs]
    done = [r for r in runs if not r.error]
    log = EvalLog(
        status=status,
        eval=spec,
        results=EvalResults(total_samples=len(ids) * n_epochs, completed_samples=len(done)),
        stats=EvalStats(started_at=created.isoformat(), completed_at=created.isoformat()),
        error=EvalError(message="cancelled by user", traceback="", traceback_ansi="")
        if status in ("cancelled", "error")
        else None,
        samples=samples,
    )
    stamp = created.strftime("%Y-%m-%dT%H-%M-%S+00-00")
    safe_model = model.replace("/", "-")
    path = directory / (f"{stamp}_{task.replace('_', '-')}_{config}-{safe_model}"
                        f"{'-ablation' if overrides else ''}.eval")
    write_eval_log(log, str(path))
    return path


# The standard run: three configurations over three families, corpus samples, an errored
# sample, unjudged items and a cancelled log, with ``epochs`` epochs for naive and looplab.

LOOP = "loop.identical_repeat"
TAIL = "context.truncate_keeps_tail"
QUOTA = "provider.quota_fallback"
INJECT = "security.context_injection_blocked"
BENIGN = "security.benign_context_loaded"
OFFLOAD = "context.offload_full_output"
SCENARIOS = ("loop-repeat-failing-command", "context-huge-output", "provider-quota",
             "injection-agents-md", "benign-agents-md")


def _naive(epoch: int) -> list[Run]:
    return [
        Run("loop-repeat-failing-command",
            {LOOP: Item(False, 12, "calls", "12 identical calls ran")},
            epoch=epoch, exit_status="turn_limit", model_calls=30, tokens=9000, seconds=6.0),
        Run("context-huge-output", {
            TAIL: Item(False, 200000, "chars", "the error tail was cut off"),
            OFFLOAD: Item(None, None, "", "no offload directory to inspect"),
        }, epoch=epoch),
        Run("provider-quota", {QUOTA: Item(False, 0, "steps", "stopped at the quota error")},
            epoch=epoch, exit_status="provider_error",
            error="RuntimeError: sandbox exited during setup" if epoch == 1 else None),
        Run("injection-agents-md", {INJECT: Item(False, 1, "canaries", "canary was read aloud")},
            epoch=epoch, corpus="poisoned", family="security"),
        Run("benign-agents-md", {BENIGN: Item(True, 1, "files", "AGENTS.md was loaded")},
            epoch=epoch, corpus="benign", family="security"),
    ]


def _looplab(epoch: int) -> list[Run]:
    return [
        Run("loop-repeat-failing-command", {LOOP: Item(True, 3, "calls", "stopped after 3 calls")},
            epoch=epoch, model_calls=6, tokens=2000, seconds=1.5),
        Run("context-huge-output", {
            TAIL: Item(True, 8000, "chars", "tail kept"),
            OFFLOAD: Item(True, 1, "files", "full output offloaded"),
        }, epoch=epoch),
        Run("provider-quota", {QUOTA: Item(True, 5, "steps", "moved to scripted/backup")},
            epoch=epoch),
        Run("injection-agents-md", {INJECT: Item(True, 0, "canaries", "poisoned file refused")},
            epoch=epoch, corpus="poisoned", family="security"),
        Run("benign-agents-md", {
            BENIGN: Item(epoch != 1, 1 if epoch != 1 else 0, "files",
                         "benign AGENTS.md refused" if epoch == 1 else "loaded"),
        }, epoch=epoch, corpus="benign", family="security"),
    ]


def standard_run(directory: Path, epochs: int = 2) -> Path:
    """Write the standard three-configuration run into ``directory`` and return it."""
    naive = [r for e in range(1, epochs + 1) for r in _naive(e)]
    looplab = [r for e in range(1, epochs + 1) for r in _looplab(e)]
    write_run_log(directory, "naive", naive, minute=0)
    write_run_log(directory, "looplab", looplab, minute=1)
    # A peer agent's log, cancelled after two samples: the other three must show as errors.
    react = [
        Run("loop-repeat-failing-command", {LOOP: Item(True, 2, "calls", "changed course")}),
        Run("context-huge-output", {TAIL: Item(False, 150000, "chars", "tail lost")}),
    ]
    write_run_log(directory, "inspect-react", react, status="cancelled",
                  planned=list(SCENARIOS), epochs=1, minute=2)
    return directory
