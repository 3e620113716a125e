"""NE Thm 1 on one number: h_k = a·h_{k−1} + 1, stored in finite precision, freezes unless a < 0.

Worked example in bfloat16 (8 significant bits), from h_0 = 0::

    a = 0.5 :  1, 1.5, 1.75, 1.875, ..., 1.9921875, 2, 2, 2, ...   frozen from k = 9 on
    a = −1  :  1, 0, 1, 0, 1, 0, ...                                alternates forever

With a in [0, 1] the sequence is monotone and converges (or, for a = 1, stops growing once +1 is
below the rounding step), so in any finite precision it becomes constant after finitely many steps:
no readout of a constant state can alternate the way parity's answer does on 1^k. With a = −1 every
value is exact and the state keeps flipping. This is the one-dimensional case of NE Theorem 1 (its
proof looks at the same input 1^k through the Jordan form of A).

Used in: ne1.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch


def scalar_recurrence(a: Sequence[float], steps: int, dtype: torch.dtype) -> torch.Tensor:
    """h_k = a·h_{k−1} + 1 from h_0 = 0, rounded to ``dtype`` at every step, for several a at once.

    Returns:
        (steps, len(a)) tensor in ``dtype``; row k−1 holds h_k.
    """
    if steps < 1:
        raise ValueError(f"steps={steps!r} is not allowed: it must be >= 1")
    coef = torch.tensor(list(a), dtype=dtype)  # (A,)
    h = torch.zeros_like(coef)  # (A,)
    one = torch.ones_like(coef)  # (A,)
    out = torch.empty(steps, len(coef), dtype=dtype)  # (K, A)
    for k in range(steps):
        h = coef * h + one  # (A,): rounded to dtype by the op itself
        out[k] = h
    return out


def freeze_step(states: torch.Tensor) -> list[int | None]:
    """Per column, the first k (1-based) from which h_k never changes again, or None if it still changes.

    Args:
        states: (K, A) as returned by ``scalar_recurrence``.
    """
    changed = states[1:] != states[:-1]  # (K−1, A): h_{k+1} != h_k
    out: list[int | None] = []
    for col in changed.T:
        idx = col.nonzero()
        if len(idx) == 0:
            out.append(1)
        elif int(idx[-1]) == len(col) - 1:
            out.append(None)  # still changing at the last step
        else:
            out.append(int(idx[-1]) + 2)
    return out
