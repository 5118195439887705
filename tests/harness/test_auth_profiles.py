"""Auth-profile cooldowns and ordering, on an injected clock (no sleeping)."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from harness.auth_profiles import AuthProfile, ProfilePool
from harness.config import FailoverConfig


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.mark.parametrize("kind, seconds", [
    ("rate_limit", 60), ("overloaded", 30), ("auth_error", 300), ("quota_exceeded", 3600),
    ("timeout", 60),
])
def test_cooldown_per_reason_from_the_seed(kind: str, seconds: float) -> None:
    clock = Clock()
    pool = ProfilePool(FailoverConfig(), clock)
    p = AuthProfile("k1", "m")
    assert pool.mark_failure(p, kind) == seconds
    clock.now += seconds - 1
    assert pool.is_cooling(p)
    clock.now += 1
    assert not pool.is_cooling(p)


def test_retry_after_replaces_the_cooldown_unless_switched_off() -> None:
    clock = Clock()
    p = AuthProfile("k1", "m")
    assert ProfilePool(FailoverConfig(), clock).mark_failure(p, "rate_limit", 7.5) == 7.5
    off = ProfilePool(FailoverConfig(honour_retry_after=False), clock)
    assert off.mark_failure(p, "rate_limit", 7.5) == 60


def test_order_prefers_fewest_consecutive_failures() -> None:
    clock = Clock()
    pool = ProfilePool(FailoverConfig(cooldowns_s={"rate_limit": 10}), clock)
    a, b, c = AuthProfile("a", "m"), AuthProfile("b", "m"), AuthProfile("c", "m")
    pool.mark_failure(a, "rate_limit")
    pool.mark_failure(a, "rate_limit")
    pool.mark_failure(b, "rate_limit")
    assert [p.id for p in pool.order([a, b, c])] == ["c"]  # a and b are cooling
    clock.now += 11
    assert [p.id for p in pool.order([a, b, c])] == ["c", "b", "a"]
    pool.mark_success(a)
    assert a.consecutive_failures == 0 and [p.id for p in pool.order([a, b, c])][:2] == ["a", "c"]


def test_all_cooling_orders_by_soonest_expiry() -> None:
    clock = Clock()
    pool = ProfilePool(FailoverConfig(), clock)
    a, b, c = AuthProfile("a", "m"), AuthProfile("b", "m"), AuthProfile("c", "m")
    pool.mark_failure(a, "quota_exceeded")   # 3600 s
    pool.mark_failure(b, "overloaded")       # 30 s
    pool.mark_failure(c, "auth_error")       # 300 s
    assert [p.id for p in pool.order([a, b, c])] == ["b", "c", "a"]
    assert pool.remaining(b) == 30


def test_unknown_cooldown_kind_is_rejected_by_name() -> None:
    with pytest.raises(ValidationError, match="rate_limits"):
        FailoverConfig(cooldowns_s={"rate_limits": 1})
