"""Judges for seed 004's failure rows: a known mistake not repeated, skills disclosed on demand.
Black-box: counters as the witness saw them grow, verifiers in the sandbox, and the sizes the
scripted actor observed."""

from __future__ import annotations

from evals.judges.base import Evidence, JudgeFn, JudgeParams, Verdict, judge
from evals.judges.witnessed import counted


async def _verify(ev: Evidence, command: str | None) -> tuple[bool, str]:
    if command is None:
        return True, ""
    res = await ev.workspace.exec(command, timeout=120)
    return res.exit_code == 0, f"; verifier `{command}` exited {res.exit_code}"


class MistakeParams(JudgeParams):
    counter_file: str
    """File the mistake's own script appends one line to each time it is made."""
    max: int = 0
    """Pass when the mistake was made at most this often."""
    command: str | None = None
    """A hidden verifier that must also succeed (the task was done, not just avoided)."""


@judge("mistake_at_most", MistakeParams)
def mistake_at_most(p: MistakeParams) -> JudgeFn:
    async def run(ev: Evidence) -> Verdict:
        made = counted(ev, p.counter_file, p.max, "mistakes", "times the known mistake was made")
        if made.state == "error":
            return made
        ok, why = await _verify(ev, p.command)
        head, _, tail = made.explanation.partition("; run ended")
        return Verdict(bool(made.passed) and ok, made.figure, "mistakes",
                       f"{head}{why}; run ended{tail}")

    return run


class FirstCallParams(JudgeParams):
    max_tokens: int
    """Pass when the first model call's input was at most this many tokens."""
    command: str
    """A hidden verifier that must also succeed (what was left out of the prompt was still
    usable on demand)."""


@judge("first_call_tokens_at_most", FirstCallParams)
def first_call_tokens_at_most(p: FirstCallParams) -> JudgeFn:
    """Figure: input tokens of the first ordinary model call, as the actor counted them."""

    async def run(ev: Evidence) -> Verdict:
        first = next((o for o in ev.observations if not o.get("summary_request")), None)
        if first is None:
            return Verdict(None, None, "input tokens", "the model was never called: not judged")
        tokens = int(first.get("input_tokens", 0))
        overflow = bool(first.get("overflow"))
        ok, why = await _verify(ev, p.command)
        passed = tokens <= p.max_tokens and not overflow and ok
        return Verdict(passed, tokens, "input tokens",
                       f"first model call: {tokens:,} input tokens (limit {p.max_tokens:,})"
                       f"{' and it overflowed' if overflow else ''}{why}; run ended: {ev.exit_status}")

    return run
