"""NE Prop. 1.2: an orthogonal n×n matrix is a product of n GH factors, any ‖M‖₂ ≤ 1 one of 3n (β ∈ [0, 2]).

A generalized Householder (GH) factor is ``I − β v vᵀ`` with ‖v‖ = 1 and β ∈ [0, 2]; M^n_k([−1, 1])
is the set of products of k of them (NE Sec. 3, Prop. 1). Part 2 of the proposition says that
this set is large once the eigenvalue −1 (β = 2, a reflection) is allowed:

- orthogonal Q ∈ M^n_n: Householder QR turns Q column by column into the identity. At column j the
  reflection with v ∝ x − ‖x‖e_j (x = the current column below row j − 1) sends x to ‖x‖e_j = e_j;
  the row j then is e_jᵀ too (the matrix stays orthogonal), so after n steps H_n ⋯ H_1 Q = I and
  Q = H_1 ⋯ H_n (each H is its own inverse). A column that is already e_j takes the identity
  factor β = 0 (padding), and the last column (a 1×1 block ±1) takes β = 0 for +1 and β = 2 for −1,
  which is where det Q = (−1)^{#reflections} is settled. A permutation matrix only ever meets a
  column e_k, k ≥ j, so every step is a swap (v = (e_j − e_k)/√2) or the identity and the last
  block is +1: n − #cycles ≤ n − 1 reflections, as ``householder.as_reflections`` counts.
- contraction ‖M‖₂ ≤ 1 ∈ M^n_{3n}: the SVD M = U Σ Vᵀ gives n reflections for Vᵀ, n for U, and
  Σ = diag(σ_i), σ_i ∈ [0, 1], is ∏_i (I − (1 − σ_i) e_i e_iᵀ): n GH factors with β_i = 1 − σ_i
  ∈ [0, 1] (β = 1 projects a zero singular value away).

Hand-worked example (n = 2): Q = [[0, −1], [1, 0]] (rotation by π/2, det +1). Column 0 is x = (0, 1);
v ∝ x − e_0 = (−1, 1), v = (−1, 1)/√2 and H_1 = I − 2vvᵀ = [[0, 1], [1, 0]] (the swap);
H_1 Q = [[1, 0], [0, −1]], so the last block is −1 and H_2 = I − 2 e_1 e_1ᵀ. Q = H_1 H_2 = two
reflections (det (−1)² = +1), as a rotation must be.

Numerics: the first entry of x − ‖x‖e_j is computed as −‖x_{>j}‖² / (x_j + ‖x‖) when x_j > 0, so
there is no cancellation and the product of the factors equals the matrix to fp64 rounding.
Conventions of ``householder.gh_product``: factor 0 acts first (rightmost).

Used in: ne3 (NE Prop. 1.2, checked by ``check_factorizations``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch

from statetrack.theory.householder import as_reflections, gh_product, permutation_matrix

ORTHOGONAL_TOL = 1e-10  # max |QᵀQ − I| accepted as orthogonal (fp64 inputs are ~1e-15 off)
NORM_TOL = 1e-10  # ‖M‖₂ may exceed 1 by this much (a matrix scaled to norm 1 in fp64); σ is then clipped to 1
ERROR_PER_DIM = 1e-12  # the reconstruction must match within ERROR_PER_DIM · n (max-abs), fp64 rounding


def _check_square(M: torch.Tensor, name: str) -> int:
    if M.dim() < 2 or M.shape[-1] != M.shape[-2] or M.shape[-1] < 1:
        raise ValueError(f"{name} of shape {tuple(M.shape)} is not allowed: it must be (..., n, n) with n >= 1")
    return M.shape[-1]


def orthogonal_as_reflections(Q: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """NE Prop. 1.2: an orthogonal Q as exactly n GH factors, reflections (β = 2) or identities (β = 0).

    Args:
        Q: (..., n, n) orthogonal matrices (|QᵀQ − I| <= ``ORTHOGONAL_TOL``); computed in fp64.
    Returns:
        keys (..., n, n) unit vectors (factor j in row j) and betas (..., n) in {0, 2}, fp64, with
        ``gh_product(keys, betas)`` = Q; the number of β = 2 factors has the parity of det Q.
    """
    n = _check_square(Q, "Q")
    W = Q.to(torch.float64).clone()  # (..., n, n) the matrix being reduced to I
    eye = torch.eye(n, dtype=torch.float64)  # (n, n)
    off = (W.transpose(-1, -2) @ W - eye).abs().amax() if W.numel() else torch.tensor(0.0)
    if not off <= ORTHOGONAL_TOL:
        raise ValueError(f"Q is not orthogonal: max |QᵀQ − I| = {float(off):.3g} > {ORTHOGONAL_TOL}")
    batch = W.shape[:-2]
    keys = torch.zeros(*batch, n, n, dtype=torch.float64)  # (..., n, n) key of step j in row j
    betas = torch.zeros(*batch, n, dtype=torch.float64)  # (..., n)
    for j in range(n):
        x = W[..., j:, j]  # (..., n−j) the column below the finished rows
        alpha = x.norm(dim=-1)  # (...,) ‖x‖ ≈ 1
        rest = (x[..., 1:] ** 2).sum(-1)  # (...,) ‖x_{>j}‖²
        x0 = x[..., 0]  # (...,)
        # First entry of x − ‖x‖e_j, written without cancellation when x_j > 0.
        v0 = torch.where(x0 > 0, -rest / (x0 + alpha).clamp_min(torch.finfo(torch.float64).tiny), x0 - alpha)
        v = torch.zeros(*batch, n, dtype=torch.float64)  # (..., n)
        v[..., j] = v0
        v[..., j + 1:] = x[..., 1:]
        nv = v.norm(dim=-1, keepdim=True)  # (..., 1)
        move = nv[..., 0] > 0  # (...,) False: the column is already ‖x‖e_j
        key = torch.where(move[..., None], v / nv.clamp_min(torch.finfo(torch.float64).tiny), eye[j])  # (..., n)
        beta = torch.where(move, 2.0, 0.0).to(torch.float64)  # (...,)
        W = W - beta[..., None, None] * key[..., :, None] * (key[..., None, :] @ W)  # (..., n, n) H_j W
        keys[..., j, :], betas[..., j] = key, beta
    # H_n ⋯ H_1 Q = I, so Q = H_1 ⋯ H_n: H_n acts first.
    return keys.flip(-2), betas.flip(-1)


def contraction_as_gh(M: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """NE Prop. 1.2: any ‖M‖₂ <= 1 as 3n GH factors with β ∈ [0, 2], through the SVD M = U Σ Vᵀ.

    Factors, in the order they act: n for Vᵀ (``orthogonal_as_reflections``), n for Σ
    (key e_i, β_i = 1 − σ_i ∈ [0, 1]), n for U.

    Args:
        M: (..., n, n) with spectral norm <= 1 + ``NORM_TOL``; computed in fp64.
    Returns:
        keys (..., 3n, n) and betas (..., 3n), fp64, with ``gh_product(keys, betas)`` = M.
    """
    n = _check_square(M, "M")
    U, S, Vh = torch.linalg.svd(M.to(torch.float64))  # (..., n, n), (..., n), (..., n, n)
    top = S.amax() if S.numel() else torch.tensor(0.0)
    if not top <= 1 + NORM_TOL:
        raise ValueError(f"M is not a contraction: ‖M‖₂ = {float(top):.17g} > 1 (+{NORM_TOL})")
    kV, bV = orthogonal_as_reflections(Vh)  # (..., n, n), (..., n)
    kU, bU = orthogonal_as_reflections(U)  # (..., n, n), (..., n)
    kS = torch.eye(n, dtype=torch.float64).expand_as(kV)  # (..., n, n) keys e_i
    bS = 1 - S.clamp(0, 1)  # (..., n) β_i = 1 − σ_i
    return torch.cat([kV, kS, kU], dim=-2), torch.cat([bV, bS, bU], dim=-1)  # (..., 3n, n), (..., 3n)


# ----------------------------------------------------------------------------- random matrices


def haar_orthogonal(num: int, n: int, gen: torch.Generator) -> torch.Tensor:
    """``num`` Haar orthogonal n×n matrices (num, n, n) fp64: QR of a Gaussian, columns signed so diag R > 0."""
    G = torch.randn(num, n, n, generator=gen, dtype=torch.float64)  # (N, n, n)
    Q, R = torch.linalg.qr(G)  # (N, n, n) each
    sign = torch.where(torch.diagonal(R, dim1=-2, dim2=-1) < 0, -1.0, 1.0).to(torch.float64)  # (N, n)
    return Q * sign[:, None, :]  # (N, n, n)


def random_contractions(num: int, n: int, gen: torch.Generator) -> torch.Tensor:
    """``num`` n×n matrices with ‖M‖₂ <= 1, cycling through five kinds (fp64, (num, n, n)).

    Kinds: a Gaussian scaled to norm exactly 1; one scaled to a norm ~ U(0, 1); a rank-r product
    (r ~ U{1..n−1}) scaled to norm 1; the same with a norm ~ U(0, 1); an orthogonal matrix times a
    diagonal with some entries exactly 0 and some exactly 1. The first matrix of a batch with
    num >= 6 is the zero matrix.
    """
    out = torch.empty(num, n, n, dtype=torch.float64)  # (N, n, n)
    for i in range(num):
        kind = i % 5
        if kind < 2:
            A = torch.randn(n, n, generator=gen, dtype=torch.float64)  # (n, n)
        elif kind < 4:
            r = int(torch.randint(1, n, (1,), generator=gen)) if n > 1 else 1
            A = torch.randn(n, r, generator=gen, dtype=torch.float64) @ torch.randn(r, n, generator=gen,
                                                                                   dtype=torch.float64)  # (n, n)
        else:
            d = torch.rand(n, generator=gen, dtype=torch.float64)  # (n,)
            d[torch.rand(n, generator=gen) < 0.3] = 0.0
            d[torch.rand(n, generator=gen) < 0.3] = 1.0
            A = haar_orthogonal(1, n, gen)[0] @ torch.diag(d) @ haar_orthogonal(1, n, gen)[0]  # (n, n)
            out[i] = A
            continue
        norm = torch.linalg.matrix_norm(A, ord=2)
        scale = 1.0 if kind % 2 == 0 else float(torch.rand((), generator=gen, dtype=torch.float64))
        out[i] = A * (scale / norm) if norm > 0 else A
    if num >= 6:
        out[0] = 0.0
    # Scaling by 1/‖A‖ can land a hair above 1; leave that to contraction_as_gh's NORM_TOL.
    return out


# ----------------------------------------------------------------------------- the check


@dataclass(frozen=True)
class FactorizationCheck:
    """NE Prop. 1.2 measured: random matrices rebuilt from their GH factors in fp64."""

    sizes: tuple[int, ...]
    num_matrices: int  # orthogonal + contractions + permutations, all sizes
    num_by_size: dict[int, tuple[int, int, int]]  # n → (orthogonal, contractions, permutations) checked
    max_error: float  # largest max-abs |∏ factors − M| over every matrix
    max_error_by_size: dict[int, float]  # n → that largest error
    tolerance_ok: bool  # every error <= ERROR_PER_DIM · n
    orthogonal_factors: dict[int, int]  # n → largest number of factors used for an orthogonal matrix (bound n)
    contraction_factors: dict[int, int]  # n → largest number used for a contraction (bound 3n)
    permutation_reflections: dict[int, int]  # n → most β ≠ 0 factors of a permutation (bound n − 1)
    within_bounds: bool  # every count above at most its bound
    swaps_match: bool  # each permutation's β ≠ 0 count equals len(householder.as_reflections(p))
    det_parity_ok: bool  # for every orthogonal Q: sign det Q = (−1)^{#(β = 2)}
    beta_min: float  # over all factors of all matrices (must be >= 0)
    beta_max: float  # (must be <= 2)
    max_key_norm_error: float  # max |‖v‖ − 1| over all keys


def check_factorizations(sizes: Sequence[int] = tuple(range(2, 9)), num_per_size: int = 64,
                         seed: int = 0) -> FactorizationCheck:
    """Rebuild Haar orthogonal matrices, contractions and permutations of each size n from their GH factors.

    Per n: ``num_per_size`` Haar orthogonal matrices (``orthogonal_as_reflections``), as many
    contractions (``random_contractions`` through ``contraction_as_gh``), and as many random
    permutation matrices (``orthogonal_as_reflections`` again, counted against ``as_reflections``).
    Products are formed with ``householder.gh_product`` in fp64.

    Args:
        sizes: the dimensions n (each >= 1).
        num_per_size: matrices of each kind per n (>= 1).
        seed: seeds one torch.Generator for all draws.
    Returns:
        A ``FactorizationCheck``.
    """
    sizes = tuple(int(n) for n in sizes)
    if not sizes or min(sizes) < 1 or num_per_size < 1:
        raise ValueError(f"sizes={sizes!r}, num_per_size={num_per_size!r}: need sizes >= 1 and num_per_size >= 1")
    gen = torch.Generator().manual_seed(seed)
    counts, err_by, orth_f, con_f, perm_r = {}, {}, {}, {}, {}
    betas_all, key_err, swaps_ok, det_ok, tol_ok = [], 0.0, True, True, True
    for n in sizes:
        Q = haar_orthogonal(num_per_size, n, gen)  # (N, n, n)
        kQ, bQ = orthogonal_as_reflections(Q)  # (N, n, n), (N, n)
        M = random_contractions(num_per_size, n, gen)  # (N, n, n)
        kM, bM = contraction_as_gh(M)  # (N, 3n, n), (N, 3n)
        perms = [torch.randperm(n, generator=gen).tolist() for _ in range(num_per_size)]
        P = torch.stack([permutation_matrix(p) for p in perms])  # (N, n, n)
        kP, bP = orthogonal_as_reflections(P)  # (N, n, n), (N, n)
        errs = [(gh_product(k, b) - A).abs().amax(dim=(-2, -1)) for k, b, A in ((kQ, bQ, Q), (kM, bM, M), (kP, bP, P))]
        err = float(torch.cat(errs).max())
        err_by[n] = err
        tol_ok &= err <= ERROR_PER_DIM * n
        counts[n] = (num_per_size, num_per_size, num_per_size)
        orth_f[n], con_f[n] = kQ.shape[-2], kM.shape[-2]
        used = (bP != 0).sum(-1)  # (N,) reflections per permutation
        perm_r[n] = int(used.max())
        swaps_ok &= all(int(u) == len(as_reflections(p)) for u, p in zip(used, perms))
        reflections = (bQ == 2).sum(-1)  # (N,)
        det_ok &= bool((torch.linalg.det(Q).sign() == (-1.0) ** reflections.double()).all())
        for k, b in ((kQ, bQ), (kM, bM), (kP, bP)):
            betas_all.append(b.flatten())
            key_err = max(key_err, float((k.norm(dim=-1) - 1).abs().max()))
    betas = torch.cat(betas_all)
    within = all(orth_f[n] <= n and con_f[n] <= 3 * n and perm_r[n] <= max(n - 1, 0) for n in sizes)
    return FactorizationCheck(sizes, 3 * num_per_size * len(sizes), counts, max(err_by.values()), err_by, tol_ok,
                              orth_f, con_f, perm_r, within, swaps_ok, det_ok, float(betas.min()),
                              float(betas.max()), key_err)


__all__ = ["FactorizationCheck", "check_factorizations", "contraction_as_gh", "haar_orthogonal",
           "orthogonal_as_reflections", "random_contractions"]
