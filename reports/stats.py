"""Paired statistics for comparisons, on SciPy: exact McNemar test (``scipy.stats.binomtest``
on the discordant pairs) and a percentile bootstrap interval (``scipy.stats.bootstrap``).

Both work on *paired* observations (same scenario, same epoch, same item under two
configurations), so a difference that one lucky epoch produced is not read as a real one. Only
runs with variance get them (``reports.compare.run_kind``): a scripted run is exact.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

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
    return float(min(1.0, stats.binomtest(k, n, 0.5, alternative="two-sided").pvalue))


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
    if np.all(d == d[0]):  # every resample has the same mean: the interval is that point
        return Interval(float(d[0]), float(d[0]), float(d[0]), int(d.size), level)
    res = stats.bootstrap((d,), np.mean, confidence_level=level, n_resamples=resamples,
                          method="percentile", random_state=np.random.default_rng(seed))
    ci = res.confidence_interval
    return Interval(float(d.mean()), float(ci.low), float(ci.high), int(d.size), level)
