"""What a verdict reads off a claim's seeds: whether a run fitted its training lengths, and the exact binomial
tools for seed counts.

**Fit.** A run has fitted when its normalized accuracy (acc − chance) / (1 − chance) at its longest training length,
on held-out sequences (the test seed's draw), is at least ``FIT`` — one constant, read after the learning rate is
chosen and never used to choose it. A language model has fitted when its validation loss is at least
``LM_FIT_MARGIN`` nats below the unigram model's on the same windows (``runs.null.unigram_val_loss``). A run
that diverged has not fitted. A statement whose bound is computed at the training lengths (bl7's count-only
ceiling) passes its own ``fit_at`` instead of ``FIT``: the most any model of its kind can reach there. This is the
evidence a "does not learn" or "theorem forbids" needs.

**Seed counts.** The Clopper–Pearson interval of k of n, and the one-sided sign test:
P(X ≥ k) = Σ_{i ≥ k} C(n, i) pⁱ (1 − p)ⁿ⁻ⁱ. The interval's ends solve P(X ≥ k | p_lo) = α/2 and
P(X ≤ k | p_hi) = α/2 by bisection on p (the tails are monotone in p), so no statistics library is needed.

Used in: ``statetrack.verdicts.statements`` (fitted seeds, k of n seeds passing, paired sign tests).
"""

from __future__ import annotations

import math
from math import comb
from typing import Any

from statetrack.config import RunConfig
from statetrack.runs.null import unigram_val_loss

FIT = 0.9  # normalized accuracy at the longest training length
#: nats below the unigram model's validation loss: a tenth of a uniform guess's loss over 257 classes (bytes, EOD)
LM_FIT_MARGIN = 0.1 * math.log(257)


def fit_value(record: dict[str, Any]) -> float:
    """Normalized accuracy at the longest training length the task has (a language model: the unigram loss minus its
    validation loss, nats); NaN for a run that did not finish or was not evaluated there."""
    if record.get("status") != "ok":
        return float("nan")
    cfg = record["config"]
    if cfg["task"]["name"] == "byte_lm":
        rc = RunConfig.from_dict(cfg)
        return unigram_val_loss(rc.task, rc.train, rc.eval) - float(record["summary"]["val_loss"])
    curve, chance = record.get("by_length"), record["summary"].get("chance")
    if curve is None or chance is None:  # a record without a curve was not evaluated at its training lengths
        return float("nan")
    # the longest length trained on: the training range's last length the task has (arithmetic has no odd lengths)
    trained = [n for n in curve["length"] if cfg["train"]["min_len"] <= n <= cfg["train"]["max_len"]]
    if not trained:
        return float("nan")
    at = dict(zip(curve["length"], curve["acc"]))[max(trained)]
    return (at - chance) / (1 - chance)


def fitted(record: dict[str, Any], fit_at: float | None = None) -> bool:
    """Whether ``record`` fitted: ``fit_value`` at least ``fit_at`` (default ``FIT``, a language model
    ``LM_FIT_MARGIN``)."""
    value = fit_value(record)
    if fit_at is None:
        fit_at = LM_FIT_MARGIN if record["config"]["task"]["name"] == "byte_lm" else FIT
    return value == value and value >= fit_at


def enough(fitted_seeds: int, seeds: int) -> bool:
    """At least 2 seeds and two thirds of them fitted (2 of 3)."""
    return fitted_seeds >= 2 and 3 * fitted_seeds >= 2 * seeds


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


def critical(n: int, alpha: float = ALPHA) -> int:
    """The fewest agreeing pairs of ``n`` a one-sided sign test calls significant: min k with P(X ≥ k) ≤ α under
    Binomial(n, 1/2) (n + 1 where none is)."""
    return next((k for k in range(n + 1) if sign_test(k, n) <= alpha), n + 1)


def sign_power(p: float, n: int, alpha: float = ALPHA) -> float:
    """P(a one-sided sign test on ``n`` pairs is significant) when each pair agrees with probability ``p``:
    P(X ≥ critical(n)) under Binomial(n, p)."""
    return upper_tail(critical(n, alpha), n, p)


def tost_power(below: float, above: float, n: int, alpha: float = ALPHA) -> float:
    """P(both one-sided sign tests of an equivalence are significant on ``n`` pairs) when a pair lies below −m with
    probability ``below`` and above +m with ``above``: P(n − B ≥ k and n − A ≥ k), k = critical(n), over the
    trinomial counts (B, A)."""
    k, inside = critical(n, alpha), 1.0 - below - above
    return sum(math.factorial(n) / (math.factorial(b) * math.factorial(a) * math.factorial(n - a - b))
               * below ** b * above ** a * inside ** (n - a - b)
               for b in range(n - k + 1) for a in range(n - k + 1) if a + b <= n)


def normal_cdf(z: float) -> float:
    return 0.5 * (1.0 + math.erf(z / math.sqrt(2.0)))


def pairs_needed(power: Any, target: float, smallest: int, largest: int) -> int | None:
    """The fewest pairs in [``smallest``, ``largest``] at which ``power(n)`` reaches ``target``; None where none does."""
    return next((n for n in range(smallest, largest + 1) if power(n) >= target), None)
