"""NE Prop. 1.2 (``statetrack.theory.gh_factorization``) against independent computations.

Ground truth: numpy fp64 products of the explicit matrices I − β v vᵀ (not ``gh_product``),
numpy's SVD, determinant and QR for the inputs, closed forms for hand-picked matrices (I, −I, a
rotation, a swap), and ``householder.as_reflections``' count n − #cycles for permutations.

Runtime: about 3 s on 2 CPU threads.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
import torch

from statetrack.theory import gh_factorization as gf
from statetrack.theory.householder import as_reflections, permutation_matrix


def numpy_product(keys: torch.Tensor, betas: torch.Tensor) -> np.ndarray:
    """H_k ⋯ H_1 with H_j = I − β_j v_j v_jᵀ, factor 0 acting first, as plain numpy fp64 matrix products."""
    K, B = keys.numpy(), betas.numpy()
    n = K.shape[-1]
    A = np.eye(n)
    for v, b in zip(K, B):
        A = (np.eye(n) - b * np.outer(v, v)) @ A
    return A


def numpy_haar(n: int, rng: np.random.Generator) -> np.ndarray:
    Q, R = np.linalg.qr(rng.standard_normal((n, n)))
    return Q * np.sign(np.diag(R))


def check_factors(keys, betas, A, count, beta_hi=2.0):
    assert keys.shape == (count, A.shape[0]) and betas.shape == (count,)
    assert np.abs(np.linalg.norm(keys.numpy(), axis=-1) - 1).max() <= 1e-14
    assert betas.min() >= 0 and betas.max() <= beta_hi
    assert np.abs(numpy_product(keys, betas) - A).max() <= 1e-12 * A.shape[0]


# ---------------------------------------------------------------------------------------------------------
# Orthogonal matrices: n factors
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 5, 8])
def test_orthogonal_matrices_are_n_reflections(n):
    """numpy Haar matrices (independent sampler): n factors, β ∈ {0, 2}, product = Q, det Q = (−1)^#reflections."""
    rng = np.random.default_rng(n)
    for _ in range(20):
        Q = numpy_haar(n, rng)
        keys, betas = gf.orthogonal_as_reflections(torch.from_numpy(Q))
        check_factors(keys, betas, Q, n)
        assert set(betas.tolist()) <= {0.0, 2.0}
        assert np.sign(np.linalg.det(Q)) == (-1) ** int((betas == 2).sum())


def test_hand_worked_rotation_from_the_docstring():
    """Q = R(π/2): v_1 ∝ (−1, 1) (the swap), then the reflection e_1; both β = 2."""
    Q = np.array([[0.0, -1.0], [1.0, 0.0]])
    keys, betas = gf.orthogonal_as_reflections(torch.from_numpy(Q))
    assert betas.tolist() == [2.0, 2.0]
    # Factor 0 acts first: H(e_1), then the swap.
    assert np.allclose(np.abs(keys[0].numpy()), [0, 1]) and np.allclose(np.abs(keys[1].numpy()), [1 / math.sqrt(2)] * 2)
    assert keys[1, 0] * keys[1, 1] < 0
    check_factors(keys, betas, Q, 2)


def test_identity_minus_identity_and_one_sign_flip():
    """I needs no reflection (all β = 0), −I needs n, diag(1, …, 1, −1) exactly one."""
    n = 4
    for D, reflections in ((np.eye(n), 0), (-np.eye(n), n), (np.diag([1.0] * (n - 1) + [-1.0]), 1)):
        keys, betas = gf.orthogonal_as_reflections(torch.from_numpy(D))
        assert int((betas == 2).sum()) == reflections and int((betas == 0).sum()) == n - reflections
        check_factors(keys, betas, D, n)


def test_batched_input_matches_one_at_a_time():
    rng = np.random.default_rng(1)
    Q = np.stack([numpy_haar(4, rng) for _ in range(6)]).reshape(2, 3, 4, 4)
    keys, betas = gf.orthogonal_as_reflections(torch.from_numpy(Q))
    assert keys.shape == (2, 3, 4, 4) and betas.shape == (2, 3, 4)
    # The batched and the single products take different BLAS paths, so the unit keys agree to the
    # reduction's rounding, n Householder steps of O(n · eps) each: 10 n² eps64 ≈ 3.6e-14 for n = 4.
    # β is chosen by ‖v‖ > 0, far from its threshold on Haar draws, so it agrees exactly.
    atol = 10 * 4**2 * torch.finfo(torch.float64).eps
    for i, j in itertools.product(range(2), range(3)):
        k1, b1 = gf.orthogonal_as_reflections(torch.from_numpy(Q[i, j]))
        torch.testing.assert_close(k1, keys[i, j], rtol=0, atol=atol)
        assert torch.equal(b1, betas[i, j])


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_every_permutation_takes_n_minus_cycles_swaps(n):
    """All n! permutations: β ≠ 0 factors are swaps, v = ±(e_i − e_j)/√2, n − #cycles <= n − 1 of them."""
    for p in itertools.permutations(range(n)):
        P = permutation_matrix(p)
        keys, betas = gf.orthogonal_as_reflections(P)
        check_factors(keys, betas, P.numpy(), n)
        used = keys[betas == 2].numpy()
        assert len(used) == len(as_reflections(p)) <= n - 1
        for v in used:  # two entries ±1/√2 of opposite sign, the rest 0
            nz = np.flatnonzero(np.abs(v) > 1e-12)
            assert len(nz) == 2 and np.allclose(np.abs(v[nz]), 1 / math.sqrt(2)) and v[nz[0]] * v[nz[1]] < 0


def test_non_orthogonal_input_is_refused():
    with pytest.raises(ValueError, match="not orthogonal"):
        gf.orthogonal_as_reflections(torch.eye(3, dtype=torch.float64) * 1.01)
    with pytest.raises(ValueError, match="shape"):
        gf.orthogonal_as_reflections(torch.zeros(2, 3, dtype=torch.float64))


# ---------------------------------------------------------------------------------------------------------
# Contractions: 3n factors
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 4, 7])
def test_contractions_are_3n_gh_factors(n):
    """numpy-drawn contractions: full rank, rank-deficient, norm exactly 1 (numpy's SVD), zero."""
    rng = np.random.default_rng(10 + n)
    mats = [np.zeros((n, n)), numpy_haar(n, rng)]
    for r in range(1, n + 1):
        A = rng.standard_normal((n, r)) @ rng.standard_normal((r, n))
        s = np.linalg.svd(A, compute_uv=False)[0]
        mats += [A / s, A * rng.uniform() / s]
    for M in mats:
        keys, betas = gf.contraction_as_gh(torch.from_numpy(M))
        check_factors(keys, betas, M, 3 * n)
        # The middle n factors carry the singular values: keys e_i, β_i = 1 − σ_i ∈ [0, 1].
        sigma = np.linalg.svd(M, compute_uv=False)
        assert np.allclose(keys[n: 2 * n].numpy(), np.eye(n))
        assert np.allclose(np.sort(1 - betas[n: 2 * n].numpy()), np.sort(sigma), atol=1e-12)
        assert betas[n: 2 * n].min() >= 0 and betas[n: 2 * n].max() <= 1
        assert np.linalg.norm(numpy_product(keys, betas), 2) <= 1 + 1e-12  # Prop. 1.1


def test_zero_matrix_projects_every_direction_away():
    keys, betas = gf.contraction_as_gh(torch.zeros(3, 3, dtype=torch.float64))
    assert betas[3:6].tolist() == [1.0, 1.0, 1.0]
    check_factors(keys, betas, np.zeros((3, 3)), 9)


def test_norm_above_one_is_refused():
    with pytest.raises(ValueError, match="not a contraction"):
        gf.contraction_as_gh(torch.diag(torch.tensor([1.0, 1.001], dtype=torch.float64)))


# ---------------------------------------------------------------------------------------------------------
# The check function
# ---------------------------------------------------------------------------------------------------------


def test_samplers_draw_what_they_claim():
    gen = torch.Generator().manual_seed(3)
    Q = gf.haar_orthogonal(50, 5, gen).numpy()
    assert np.abs(np.einsum("bji,bjk->bik", Q, Q) - np.eye(5)).max() < 1e-13
    M = gf.random_contractions(50, 5, gen).numpy()
    norms = np.linalg.norm(M, 2, axis=(-2, -1))
    ranks = np.linalg.matrix_rank(M)
    assert norms.max() <= 1 + 1e-12 and (np.abs(norms - 1) < 1e-12).sum() >= 10
    assert norms[0] == 0 and (ranks < 5).sum() >= 10 and (ranks == 5).sum() >= 10


def test_check_factorizations_reports_the_proposition():
    res = gf.check_factorizations(sizes=(2, 3, 6), num_per_size=16, seed=0)
    assert res.num_matrices == 3 * 3 * 16 and res.num_by_size[6] == (16, 16, 16)
    assert res.tolerance_ok and res.max_error <= 1e-12 * 6 and res.max_error == max(res.max_error_by_size.values())
    assert res.orthogonal_factors == {2: 2, 3: 3, 6: 6} and res.contraction_factors == {2: 6, 3: 9, 6: 18}
    assert all(res.permutation_reflections[n] <= n - 1 for n in (2, 3, 6))
    assert res.within_bounds and res.swaps_match and res.det_parity_ok
    assert 0 <= res.beta_min and res.beta_max <= 2 and res.beta_max == 2.0  # reflections are used
    assert res.max_key_norm_error <= 1e-14
    with pytest.raises(ValueError):
        gf.check_factorizations(sizes=(), num_per_size=4)
