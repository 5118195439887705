"""Exact McNemar and the bootstrap interval (on SciPy)."""

from __future__ import annotations

import numpy as np
import pytest

from reports.stats import binom_two_sided, bootstrap_mean_ci, mcnemar_exact


@pytest.mark.parametrize(("a_only", "b_only", "p"), [
    (0, 6, 2 / 64),              # 2 × 0.5^6
    (1, 9, 2 * 11 / 1024),       # 2 × (C(10,0) + C(10,1)) / 2^10
    (0, 5, 2 / 32),
    (3, 3, 1.0),                 # capped at 1
    (0, 0, 1.0),                 # no discordant pair: no evidence at all
])
def test_mcnemar_exact_known_values(a_only, b_only, p):
    concordant = 4
    a = [True] * a_only + [False] * b_only + [True] * concordant
    b = [False] * a_only + [True] * b_only + [True] * concordant
    t = mcnemar_exact(a, b)
    assert (t.a_only, t.b_only, t.n) == (a_only, b_only, a_only + b_only + concordant)
    assert t.p_value == pytest.approx(p)


def test_mcnemar_is_symmetric_and_checks_pairing():
    a = [True, False, False, False, True]
    b = [False, True, True, True, True]
    assert mcnemar_exact(a, b).p_value == mcnemar_exact(b, a).p_value
    with pytest.raises(ValueError, match="same length"):
        mcnemar_exact([True], [True, False])


def test_binomial_tail_matches_direct_sum():
    from math import comb

    n = 12
    for k in range(n // 2 + 1):
        direct = sum(comb(n, i) for i in range(n + 1) if i <= k or i >= n - k) / 2**n
        assert binom_two_sided(k, n) == pytest.approx(min(1.0, direct))


def test_bootstrap_constant_differences_give_a_point():
    ci = bootstrap_mean_ci([-9.0, -9.0, -9.0])
    assert (ci.mean, ci.low, ci.high, ci.n) == (-9.0, -9.0, -9.0, 3)
    assert ci.excludes_zero


def test_bootstrap_is_reproducible_and_separates_shift_from_noise():
    rng = np.random.default_rng(1)
    noise = rng.normal(0.0, 1.0, 40)
    shifted = noise + 3.0
    a, b = bootstrap_mean_ci(shifted), bootstrap_mean_ci(shifted)
    assert (a.low, a.high) == (b.low, b.high)
    assert a.low < shifted.mean() < a.high
    assert a.excludes_zero
    centred = bootstrap_mean_ci(noise - noise.mean())
    assert not centred.excludes_zero
    assert centred.high - centred.low > 0


def test_bootstrap_needs_data():
    with pytest.raises(ValueError, match="no differences"):
        bootstrap_mean_ci([])
