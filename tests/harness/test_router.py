"""Model router: profile rotation, cooldowns, fallback chain, handoff, typed endings."""

from __future__ import annotations

import asyncio
from pathlib import Path

from harness import Agent, ExitStatus, HarnessConfig, LocalWorkspace
from harness.controls.base import Control
from harness.model import ProviderError
from harness.prompts import load_prompt
from harness.router import ModelRouter
from harness.testing import FunctionModel, call

FAILOVER = {"enabled": True}


class Clock:
    def __init__(self) -> None:
        self.now = 0.0
        self.slept: list[float] = []

    def __call__(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.slept.append(seconds)
        self.now += seconds


def model(name: str, profile: str | None = None, faults: list[ProviderError | None] | None = None,
          answer: str = "done") -> FunctionModel:
    """Raises the scheduled faults in order (``None``: answer), then answers ``answer``."""
    queue = list(faults or [])

    def fn(messages, tools):
        fault = queue.pop(0) if queue else None
        if fault is not None:
            raise fault
        return f"{answer} by {name}/{profile}"

    m = FunctionModel(fn, name=name)
    m.profile_id = profile  # an auth profile: one credential of this model
    return m


def agent(models, tmp_path: Path, clock: Clock, **failover) -> Agent:
    cfg = HarnessConfig(failover={**FAILOVER, **failover})
    a = Agent(cfg, models, LocalWorkspace(tmp_path))
    a.router = ModelRouter(models, cfg.failover, clock=clock, sleep=clock.sleep)
    return a


def rate_limit(retry_after: float | None = None) -> ProviderError:
    return ProviderError("rate_limit", "slow down", status=429, retry_after=retry_after)


def quota() -> ProviderError:
    return ProviderError("quota_exceeded", "daily quota used", status=429)


def test_rate_limit_rotates_to_the_next_profile_of_the_same_model(tmp_path: Path) -> None:
    clock = Clock()
    a, b = model("m1", "key-a", [rate_limit()]), model("m1", "key-b")
    res = asyncio.run(agent([a, b], tmp_path, clock).run("t"))
    assert res.status == ExitStatus.COMPLETED and res.message == "done by m1/key-b"
    assert any(e.type == "auth.rotate" and e.data["new"] == "key-b" for e in res.events)
    cooldown = next(e for e in res.events if e.type == "auth.cooldown")
    assert cooldown.data == {"profile": "key-a", "kind": "rate_limit", "seconds": 60.0,
                             "failures": 1}
    assert clock.slept == []  # rotation, not waiting


def test_quota_on_every_profile_falls_back_with_a_handoff_note(tmp_path: Path) -> None:
    clock = Clock()
    p1, p2 = model("primary", "k1", [quota()]), model("primary", "k2", [quota()])
    fb = model("fallback", "k1")
    res = asyncio.run(agent([p1, p2, fb], tmp_path, clock).run("t"))
    assert res.status == ExitStatus.COMPLETED and res.message == "done by fallback/k1"
    switch = next(e for e in res.events if e.type == "failover.switch")
    assert switch.data == {"old": "primary", "new": "fallback", "kind": "quota_exceeded"}
    note = fb.inputs[0][-1]
    assert note.role == "user" and note.origin == "harness"
    text = " ".join(note.content.split())
    assert "You (fallback) are now the orchestrator" in text
    assert "quota_exceeded" in text
    assert load_prompt("failover_handoff.md").split("{")[0] in note.content


def test_non_retriable_error_stops_without_trying_fallbacks(tmp_path: Path) -> None:
    clock = Clock()
    bad = ProviderError("bad_request", "invalid 'tools' schema", status=400)
    p1, p2, fb = model("primary", "k1", [bad]), model("primary", "k2"), model("fallback")
    res = asyncio.run(agent([p1, p2, fb], tmp_path, clock).run("t"))
    assert res.status == ExitStatus.PROVIDER_ERROR and "bad_request" in res.message
    assert p2.calls == 0 and fb.calls == 0


def test_exhaustion_ends_typed_and_keeps_the_transcript(tmp_path: Path) -> None:
    clock = Clock()
    turns = {"n": 0}

    def first(messages, tools):
        turns["n"] += 1
        if turns["n"] == 1:
            return [call("bash", command="echo progress > progress.txt")]
        raise quota()

    m1 = FunctionModel(first, name="m1")
    m2 = model("m2", None, [rate_limit()] * 5)
    res = asyncio.run(agent([m1, m2], tmp_path, clock).run("long task"))
    assert res.status == ExitStatus.FALLBACKS_EXHAUSTED
    assert "m1#0 (quota_exceeded)" in res.message and "m2#0 (rate_limit)" in res.message
    assert [m.role for m in res.messages][:4] == ["system", "user", "assistant", "tool"]
    assert (tmp_path / "progress.txt").exists()


def test_without_failover_a_rate_limit_ends_the_run(tmp_path: Path) -> None:
    clock = Clock()
    a, b = model("m1", "key-a", [rate_limit()]), model("m1", "key-b")
    res = asyncio.run(agent([a, b], tmp_path, clock, enabled=False).run("t"))
    assert res.status == ExitStatus.PROVIDER_ERROR and b.calls == 0


def test_all_cooling_waits_for_retry_after_within_max_wait(tmp_path: Path) -> None:
    clock = Clock()
    only = model("m1", "k", [rate_limit(retry_after=5)])
    res = asyncio.run(agent([only], tmp_path, clock, max_wait_s=120).run("t"))
    assert res.status == ExitStatus.COMPLETED and clock.slept == [5]
    clock2 = Clock()
    only = model("m1", "k", [rate_limit(retry_after=5)])
    res = asyncio.run(agent([only], tmp_path, clock2, max_wait_s=0).run("t"))
    assert res.status == ExitStatus.FALLBACKS_EXHAUSTED and clock2.slept == []


def test_all_cooling_picks_the_profile_that_expires_soonest(tmp_path: Path) -> None:
    clock = Clock()
    a = model("m1", "a", [ProviderError("auth_error", "revoked", status=401)])  # 300 s
    b = model("m1", "b", [ProviderError("overloaded", "busy", status=529)])     # 30 s
    res = asyncio.run(agent([a, b], tmp_path, clock, max_wait_s=600).run("t"))
    assert res.status == ExitStatus.COMPLETED and res.message == "done by m1/b"
    assert clock.slept == [30]


def test_cooldowns_outlive_the_run_and_expire_on_the_clock(tmp_path: Path) -> None:
    clock = Clock()
    primary = model("primary", "k", [quota()])
    fb = model("fallback", "k")
    ag = agent([primary, fb], tmp_path, clock)
    assert asyncio.run(ag.run("one")).message == "done by fallback/k"
    assert primary.calls == 1
    res = asyncio.run(ag.run("two"))  # primary still cooling (3600 s): not even tried
    assert res.message == "done by fallback/k" and primary.calls == 1
    clock.now += 3600
    assert asyncio.run(ag.run("three")).message == "done by primary/k"


def test_retries_on_the_same_profile_honour_retry_after(tmp_path: Path) -> None:
    clock = Clock()
    m = model("m1", "k", [rate_limit(retry_after=3)])
    res = asyncio.run(agent([m], tmp_path, clock, max_attempts_per_model=2,
                            backoff_s=1).run("t"))
    assert res.status == ExitStatus.COMPLETED and clock.slept == [3]


class OverflowRepair(Control):
    name = "repair"

    def __init__(self) -> None:
        self.repairs = 0

    async def on_provider_error(self, run, error) -> bool:
        if error.kind != "context_overflow":
            return False
        self.repairs += 1
        return True


def test_one_repair_per_call_then_context_overflow(tmp_path: Path) -> None:
    overflow = ProviderError("context_overflow", "maximum context length", status=400)
    clock = Clock()
    for faults, status in (([overflow], ExitStatus.COMPLETED),
                           ([overflow, overflow], ExitStatus.CONTEXT_OVERFLOW)):
        repair = OverflowRepair()
        m = model("m1", None, faults)
        cfg = HarnessConfig(failover=FAILOVER)
        a = Agent(cfg, [m], LocalWorkspace(tmp_path), controls=[repair])
        a.router = ModelRouter([m], cfg.failover, clock=clock, sleep=clock.sleep)
        res = asyncio.run(a.run("t"))
        assert res.status == status and repair.repairs == 1


def test_profile_id_is_recorded_on_the_run(tmp_path: Path) -> None:
    clock = Clock()
    a, b = model("m1", "key-a", [rate_limit()]), model("m1", "key-b")
    ag = agent([a, b], tmp_path, clock)
    res = asyncio.run(ag.run("t"))
    errors = [e.data["profile"] for e in res.events if e.type == "provider.error"]
    assert errors == ["key-a"] and ag.router.model is b


def down(n: int = 1000) -> list[ProviderError | None]:
    return [ProviderError("timeout", "connection refused") for _ in range(n)]


def test_retry_budget_ends_a_dead_server_typed_within_its_seconds(tmp_path: Path) -> None:
    clock = Clock()
    dead = model("m1", "k", down())
    res = asyncio.run(agent([dead], tmp_path, clock, max_wait_s=60, retry_budget_s=100,
                            cooldowns_s={"timeout": 15}).run("t"))
    assert res.status == ExitStatus.FALLBACKS_EXHAUSTED and "retry budget spent" in res.message
    assert clock.now <= 100 and sum(clock.slept) == clock.now
    assert dead.calls == 7  # t = 0, 15, ... 90; a wait to 105 would pass the budget
    spent = next(e for e in res.events if e.type == "failover.budget_spent")
    assert spent.data["failures"] == 7 and "timeout" in spent.data["last"]


def test_max_failed_attempts_counts_over_profiles_and_models(tmp_path: Path) -> None:
    clock = Clock()
    models = [model("m1", "a", down()), model("m1", "b", down()), model("m2", "a", down())]
    res = asyncio.run(agent(models, tmp_path, clock, max_wait_s=1000, max_failed_attempts=5,
                            cooldowns_s={"timeout": 1}).run("t"))
    assert res.status == ExitStatus.FALLBACKS_EXHAUSTED and "max_failed_attempts 5" in res.message
    assert sum(m.calls for m in models) == 5


def test_budget_is_per_model_call_and_a_success_resets_it(tmp_path: Path) -> None:
    clock = Clock()
    flaky = model("m1", "k", [ProviderError("overloaded", "busy", retry_after=30), None,
                              ProviderError("overloaded", "busy", retry_after=30), None],
                  answer="ok")
    a = agent([flaky], tmp_path, clock, max_wait_s=60, retry_budget_s=40)
    first = asyncio.run(a.run("t"))
    second = asyncio.run(a.run("t"))
    assert (first.status, second.status) == (ExitStatus.COMPLETED, ExitStatus.COMPLETED)
    assert clock.slept == [30, 30]


def test_a_retry_after_beyond_the_budget_is_not_waited_for(tmp_path: Path) -> None:
    clock = Clock()
    limited = model("m1", "k", [rate_limit(retry_after=50)])
    res = asyncio.run(agent([limited], tmp_path, clock, max_wait_s=60, retry_budget_s=20)
                      .run("t"))
    assert res.status == ExitStatus.FALLBACKS_EXHAUSTED and clock.slept == []
    assert "would pass retry_budget_s 20" in res.message


def test_seed_defaults_have_no_budget() -> None:
    cfg = HarnessConfig(failover=FAILOVER).failover
    assert (cfg.retry_budget_s, cfg.max_failed_attempts) == (None, None)
