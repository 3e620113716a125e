"""The recurrence h_t = λ_t ⊙ h_{t−1} + b_t over complex diagonals: a parallel scan and the sequential reference."""

from __future__ import annotations

import torch


def scan(lam: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """All states of h_t = λ_t h_{t−1} + b_t from h_0 = 0, by doubling (Hillis-Steele): (B, T, N) complex each.

    Composes the affine maps h ↦ λ h + b pairwise; no division, so no under- or overflow for |λ| < 1.
    """
    T = lam.shape[1]
    A, X = lam, b
    k = 1
    while k < T:
        X = torch.cat([X[:, :k], A[:, k:] * X[:, :-k] + X[:, k:]], dim=1)  # (B, T, N)
        A = torch.cat([A[:, :k], A[:, k:] * A[:, :-k]], dim=1)  # (B, T, N)
        k *= 2
    return X


def sequential(lam: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """The same states by a loop over time (the reference the scan is tested against)."""
    h = torch.zeros_like(b[:, 0])  # (B, N)
    out = []
    for t in range(lam.shape[1]):
        h = lam[:, t] * h + b[:, t]  # (B, N)
        out.append(h)
    return torch.stack(out, dim=1)  # (B, T, N)
