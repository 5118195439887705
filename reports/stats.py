"""Paired statistics for comparisons (numpy only): exact McNemar test and a bootstrap interval.

Both work on *paired* observations (same scenario, same epoch, same item under two
configurations), so a difference that one lucky epoch produced is not read as a real one.
"""

from __future__ import annotations

from dataclasses import dataclass
from math import comb

import numpy as np

BOOTSTRAP_RESAMPLES = 10_000
BOOTSTRAP_SEED = 20_261_121
"""Fixed seed: the same logs always give the same interval."""


@dataclass(frozen=True)
class McNemar:
    """Exact McNemar test on paired pass/fail outcomes."""

    n: int
    """Pairs."""
    a_only: int
    """Pairs that passed under A and failed under B."""
    b_only: int
    """Pairs that failed under A and passed under B."""
    p_value: float
    """Two-sided exact p-value (binomial test of the discordant pairs at 1/2)."""


def mcnemar_exact(a_pass: list[bool], b_pass: list[bool]) -> McNemar:
    """Exact McNemar test: only discordant pairs carry information about a difference."""
    if len(a_pass) != len(b_pass):
        raise ValueError("mcnemar_exact: outcome lists must pair up (same length)")
    a_only = sum(1 for a, b in zip(a_pass, b_pass, strict=True) if a and not b)
    b_only = sum(1 for a, b in zip(a_pass, b_pass, strict=True) if b and not a)
    return McNemar(len(a_pass), a_only, b_only, binom_two_sided(min(a_only, b_only),
                                                                 a_only + b_only))


def binom_two_sided(k: int, n: int) -> float:
    """P(X <= k or X >= n-k) for X ~ Binomial(n, 1/2), with ``k <= n/2``; 1.0 when n is 0."""
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(k + 1)) / 2**n
    return min(1.0, 2 * tail)


@dataclass(frozen=True)
class Interval:
    """Bootstrap percentile interval for the mean of paired differences."""

    mean: float
    low: float
    high: float
    n: int
    level: float = 0.95

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0 or self.high < 0


def bootstrap_mean_ci(diffs: list[float] | np.ndarray, *, level: float = 0.95,
                      resamples: int = BOOTSTRAP_RESAMPLES,
                      seed: int = BOOTSTRAP_SEED) -> Interval:
    """Percentile bootstrap interval of the mean of ``diffs`` (resampling pairs)."""
    d = np.asarray(diffs, dtype=float)
    if d.size == 0:
        raise ValueError("bootstrap_mean_ci: no differences to resample")
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, d.size, size=(resamples, d.size))
    means = d[idx].mean(axis=1)
    tail = (1 - level) / 2
    low, high = np.quantile(means, [tail, 1 - tail])
    return Interval(float(d.mean()), float(low), float(high), int(d.size), level)
