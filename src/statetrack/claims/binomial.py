"""Exact binomial tools for seed counts: the Clopper–Pearson interval of k of n, and the one-sided sign test.

P(X ≥ k) = Σ_{i ≥ k} C(n, i) pⁱ (1 − p)ⁿ⁻ⁱ. The interval's ends solve P(X ≥ k | p_lo) = α/2 and
P(X ≤ k | p_hi) = α/2 by bisection on p (the tails are monotone in p), so no statistics library is needed.

Used in: ``statetrack.claims.statements`` (k of n seeds passing, paired sign tests).
"""

from __future__ import annotations

from math import comb

ALPHA = 0.05  # two-sided for the interval (95 %), one-sided for the sign test


def upper_tail(k: int, n: int, p: float) -> float:
    """P(X ≥ k) for X ~ Binomial(n, p)."""
    return sum(comb(n, i) * p ** i * (1 - p) ** (n - i) for i in range(max(k, 0), n + 1))


def _solve(f, target: float) -> float:
    """The p in [0, 1] where the increasing ``f`` reaches ``target`` (bisection to 1e-12)."""
    lo, hi = 0.0, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if f(mid) < target else (lo, mid)
    return (lo + hi) / 2


def clopper_pearson(k: int, n: int, alpha: float = ALPHA) -> tuple[float, float]:
    """The exact (1 − alpha) interval for a rate seen k times in n: (0, 1) when n is 0."""
    if not 0 <= k <= n:
        raise ValueError(f"bad count {k} of {n}: expected 0 <= k <= n")
    if n == 0:
        return 0.0, 1.0
    lo = 0.0 if k == 0 else _solve(lambda p: upper_tail(k, n, p), alpha / 2)
    hi = 1.0 if k == n else _solve(lambda p: upper_tail(k + 1, n, p), 1 - alpha / 2)
    return lo, hi


def sign_test(agree: int, n: int) -> float:
    """One-sided p-value of ``agree`` of ``n`` paired differences taking the predicted sign (ties left out
    before): P(X ≥ agree) under Binomial(n, 1/2)."""
    return upper_tail(agree, n, 0.5)
