"""Auth profiles with per-reason cooldowns (seed 004 "auth profile rotation").

A profile is one credential for one model: the router holds several ``(model, profile)`` entries
per model name and asks the pool which to use. Time comes from an injectable clock so cooldowns
can be tested without sleeping.

Source: seed 004, ``mark_failure`` cooldowns and ``resolve_profile_order`` "soonest-expiry selection".
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from harness.config import FailoverConfig
from harness.events import subsystem_logger

log = subsystem_logger("auth-profiles")

Clock = Callable[[], float]


@dataclass
class AuthProfile:
    id: str
    """Credential id (e.g. the name of the environment variable holding the key)."""
    model: str
    """The model name this profile calls."""
    consecutive_failures: int = 0
    cooldown_expires_at: float | None = None
    """Clock time until which the profile should not be used."""
    last_error: str | None = None


class ProfilePool:
    """Failure bookkeeping and ordering for auth profiles (seed 004 ``mark_failure`` and
    ``resolve_profile_order``)."""

    def __init__(self, config: FailoverConfig, clock: Clock = time.monotonic) -> None:
        self.config = config
        self.clock = clock

    def is_cooling(self, profile: AuthProfile) -> bool:
        return profile.cooldown_expires_at is not None and self.clock() < profile.cooldown_expires_at

    def remaining(self, profile: AuthProfile) -> float:
        """Seconds until the profile's cooldown expires (0 when it is not cooling)."""
        if profile.cooldown_expires_at is None:
            return 0.0
        return max(0.0, profile.cooldown_expires_at - self.clock())

    def cooldown_for(self, kind: str, retry_after: float | None = None) -> float:
        if retry_after is not None and self.config.honour_retry_after:
            return max(0.0, retry_after)
        return self.config.cooldowns_s.get(kind, self.config.default_cooldown_s)

    def mark_failure(
        self, profile: AuthProfile, kind: str, retry_after: float | None = None
    ) -> float:
        """Record a failure; returns the cooldown it started, in seconds."""
        cooldown = self.cooldown_for(kind, retry_after)
        profile.consecutive_failures += 1
        profile.cooldown_expires_at = self.clock() + cooldown
        profile.last_error = kind
        log.info("profile %s failed (%s): cooling down %.1fs (%d in a row)",
                 profile.id, kind, cooldown, profile.consecutive_failures)
        return cooldown

    def mark_success(self, profile: AuthProfile) -> None:
        profile.consecutive_failures = 0
        profile.cooldown_expires_at = None
        profile.last_error = None

    def order(self, profiles: list[AuthProfile]) -> list[AuthProfile]:
        """Usable profiles, fewest consecutive failures first; when every profile is cooling,
        all of them, soonest expiry first (stable: ties keep the configured order)."""
        active = [p for p in profiles if not self.is_cooling(p)]
        if active:
            return sorted(active, key=lambda p: p.consecutive_failures)
        return sorted(profiles, key=lambda p: p.cooldown_expires_at or float("inf"))
