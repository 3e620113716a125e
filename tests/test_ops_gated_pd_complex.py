"""The follow-up recurrences' fast paths against their fp64 sequential references (ops/gated_delta.py,
ops/complex_diagonal.py, ops/pd.py): outputs, final state and the gradient of every input.

Ground truth is the sequential reference in fp64. Tolerances are norm-relative (``helpers.rel_err``):
fp64 fast path ``1e-12`` (only summation order differs; measured ≤ 2e-15 at T = 256), fp32 fast path
``1e-5`` against the fp64 reference (measured ≤ 1e-6). Hand-worked cases pin the conventions
independently of both implementations; cross-checks tie the gated rule to the package's delta rule.

Runtime: a few seconds on 2 CPU threads.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from helpers import rel_err
from statetrack.models.ops import PAIRS, delta_rule_sequential
from statetrack.models.ops.complex_diagonal import complex_diagonal_chunked, complex_diagonal_sequential
from statetrack.models.ops.gated_delta import gated_delta_rule_chunked, gated_delta_rule_sequential
from statetrack.models.ops.pd import column_support, pd_scan, pd_sequential
from statetrack.models.ops.registry import generator

FP32_TOL, FP64_TOL = 1e-5, 1e-12
NEW_PAIRS = ("gated_delta_rule", "complex_diagonal", "pd")


def compare(fast, reference, inputs, seed=0):
    """Max relative errors of fast (in the inputs' dtype) vs the fp64 reference: outputs, state, every gradient."""
    gen = torch.Generator().manual_seed(seed)
    ref_in = [None if x is None else x.detach().double().requires_grad_(x.is_floating_point()) for x in inputs]
    ref_out = reference(*ref_in)
    upstream = [torch.randn(o.shape, generator=gen, dtype=torch.float64) for o in ref_out]
    torch.autograd.backward(ref_out, upstream)
    errs = {}
    for dtype in (torch.float32, torch.float64):
        got_in = [None if x is None else x.detach().to(dtype).requires_grad_(x.is_floating_point()) for x in inputs]
        got_out = fast(*got_in)
        torch.autograd.backward(got_out, [u.to(dtype) for u in upstream])
        e = [rel_err(g, r) for g, r in zip(got_out, ref_out)]
        e += [rel_err(g.grad, r.grad) for g, r in zip(got_in, ref_in) if r is not None and r.grad is not None]
        assert all(o.dtype == dtype for o in got_out)
        errs[dtype] = max(e)
    return errs


def assert_close_to_reference(fast, reference, inputs, seed=0):
    errs = compare(fast, reference, inputs, seed)
    assert errs[torch.float64] < FP64_TOL, errs
    assert errs[torch.float32] < FP32_TOL, errs


@pytest.mark.parametrize("name", NEW_PAIRS)
@pytest.mark.parametrize("T", [1, 37, 130])
def test_registered_pair_fast_matches_reference(name, T):
    """The pairs ``statetrack bench`` times, at a small size, lengths not a multiple of any chunk."""
    pair = PAIRS[name]
    size = {k: (min(v, 3) if k in ("B", "H") else min(v, 8)) for k, v in pair.sizes["cpu"].items() if k != "T"}
    inputs = pair.make_inputs(size, T, torch.float64, "cpu", generator(T))
    assert_close_to_reference(pair.fast, pair.reference, list(inputs), seed=T)


# ----------------------------------------------------------------------------- gated delta rule


def gated_inputs(B=2, H=2, T=45, dk=6, dv=5, beta_max=2.0, g_low=-0.7, with_S0=True, seed=0):
    gen = torch.Generator().manual_seed(seed)
    q = torch.randn(B, H, T, dk, generator=gen, dtype=torch.float64)  # (B, H, T, dk)
    k = F.normalize(torch.randn(B, H, T, dk, generator=gen, dtype=torch.float64), dim=-1)  # (B, H, T, dk)
    v = torch.randn(B, H, T, dv, generator=gen, dtype=torch.float64)  # (B, H, T, dv)
    beta = beta_max * torch.rand(B, H, T, generator=gen, dtype=torch.float64)  # (B, H, T)
    g = g_low * torch.rand(B, H, T, generator=gen, dtype=torch.float64)  # (B, H, T) log α ∈ [g_low, 0]
    S0 = torch.randn(B, H, dk, dv, generator=gen, dtype=torch.float64) if with_S0 else None  # (B, H, dk, dv)
    return [q, k, v, beta, g, S0]


@pytest.mark.parametrize("chunk", [1, 8, 16, 64])
@pytest.mark.parametrize("beta_max", [1.0, 2.0], ids=["beta[0,1]", "beta[0,2]"])
def test_gated_chunked_matches_reference_for_every_chunk(chunk, beta_max):
    inputs = gated_inputs(beta_max=beta_max)
    assert_close_to_reference(lambda *x: gated_delta_rule_chunked(*x, chunk_size=chunk), gated_delta_rule_sequential,
                              inputs)


def test_gated_strong_decay_does_not_overflow():
    """α as small as e^{−40} per step: chunk-local products reach e^{−640}; every exponent stays ≤ 0."""
    inputs = gated_inputs(g_low=-40.0, with_S0=False, T=40)
    assert_close_to_reference(lambda *x: gated_delta_rule_chunked(*x, chunk_size=16), gated_delta_rule_sequential,
                              inputs)


def test_gate_one_is_the_delta_rule():
    q, k, v, beta, g, S0 = gated_inputs()
    o_ref, S_ref = delta_rule_sequential(q, k, v, beta, S0)
    o, S = gated_delta_rule_chunked(q, k, v, beta, torch.zeros_like(g), S0)
    assert rel_err(o, o_ref) < FP64_TOL and rel_err(S, S_ref) < FP64_TOL


@pytest.mark.parametrize("fn", [gated_delta_rule_sequential, gated_delta_rule_chunked], ids=["sequential", "chunked"])
def test_gated_hand_worked(fn):
    # k = e_1, β = 2, α = 1/2, v = 0: S_1 = ½ (I − 2 e_1 e_1ᵀ) S_0, the first row flips and all rows halve.
    S0 = torch.tensor([[2.0, 4.0], [6.0, 8.0]], dtype=torch.float64).view(1, 1, 2, 2)  # (B, H, dk, dv)
    e1 = torch.tensor([1.0, 0.0], dtype=torch.float64).view(1, 1, 1, 2)  # (B, H, T, dk)
    o, S = fn(e1, e1, torch.zeros(1, 1, 1, 2, dtype=torch.float64), torch.full((1, 1, 1), 2.0, dtype=torch.float64),
              torch.full((1, 1, 1), math.log(0.5), dtype=torch.float64), S0)
    torch.testing.assert_close(S.view(2, 2), torch.tensor([[-1.0, -2.0], [3.0, 4.0]], dtype=torch.float64))
    torch.testing.assert_close(o.flatten(), torch.tensor([-1.0, -2.0], dtype=torch.float64))


# ----------------------------------------------------------------------------- complex diagonal


def cd_inputs(B=2, H=2, T=50, N=3, P=4, angle=math.pi, log_r_low=-0.3, with_S0=True, seed=0):
    gen = torch.Generator().manual_seed(seed)
    f64 = dict(generator=gen, dtype=torch.float64)
    q = torch.randn(B, H, T, N, 2, **f64)  # (B, H, T, N, 2)
    k = torch.randn(B, H, T, N, 2, **f64)  # (B, H, T, N, 2)
    v = torch.randn(B, H, T, P, **f64)  # (B, H, T, P)
    log_r = log_r_low * torch.rand(B, H, T, **f64)  # (B, H, T)
    theta = angle * (2 * torch.rand(B, H, T, N, **f64) - 1)  # (B, H, T, N)
    S0 = torch.randn(B, H, N, P, 2, **f64) if with_S0 else None  # (B, H, N, P, 2)
    return [q, k, v, log_r, theta, S0]


@pytest.mark.parametrize("chunk", [1, 7, 32])
@pytest.mark.parametrize("with_S0", [True, False])
def test_complex_chunked_matches_reference(chunk, with_S0):
    inputs = cd_inputs(with_S0=with_S0)
    assert_close_to_reference(lambda *x: complex_diagonal_chunked(*x, chunk_size=chunk), complex_diagonal_sequential,
                              inputs)


def test_complex_angles_wrap_many_times_in_fp32():
    """Angles up to 3π per step over 300 steps (cumulative phase ~ 10³ rad), unit modulus: fp32 stays at 1e-5."""
    inputs = cd_inputs(T=300, angle=3 * math.pi, log_r_low=0.0)
    assert_close_to_reference(complex_diagonal_chunked, complex_diagonal_sequential, inputs)


@pytest.mark.parametrize("fn", [complex_diagonal_sequential, complex_diagonal_chunked], ids=["sequential", "chunked"])
def test_complex_hand_worked_square_walk(fn):
    # r = 1, θ = π/2, k = 1, v = 1 from 0: S = 1, 1 + i, i, 0, 1; o = Re(S) with q = 1.
    T = 5
    one = torch.zeros(1, 1, T, 1, 2, dtype=torch.float64)
    one[..., 0] = 1  # (B, H, T, N, 2) the complex number 1
    o, S = fn(one, one, torch.ones(1, 1, T, 1, dtype=torch.float64), torch.zeros(1, 1, T, dtype=torch.float64),
              torch.full((1, 1, T, 1), math.pi / 2, dtype=torch.float64))
    torch.testing.assert_close(o.flatten(), torch.tensor([1.0, 1.0, 0.0, 0.0, 1.0], dtype=torch.float64))
    torch.testing.assert_close(S.flatten(), torch.tensor([1.0, 0.0], dtype=torch.float64))


def test_complex_rotation_by_two_pi_over_three_counts_mod_3():
    """NE Thm 2's construction: one complex entry rotated by 2π/3 per token returns after 3 tokens."""
    T = 9
    one = torch.zeros(1, 1, T, 1, 2, dtype=torch.float64)
    one[..., 0] = 1
    k = torch.zeros_like(one)
    S0 = torch.tensor([1.0, 0.0], dtype=torch.float64).view(1, 1, 1, 1, 2)  # (B, H, N, P, 2) S_0 = 1
    o, _ = complex_diagonal_chunked(one, k, torch.zeros(1, 1, T, 1, dtype=torch.float64),
                                    torch.zeros(1, 1, T, dtype=torch.float64),
                                    torch.full((1, 1, T, 1), 2 * math.pi / 3, dtype=torch.float64), S0, chunk_size=4)
    torch.testing.assert_close(o.flatten(), torch.tensor([-0.5, -0.5, 1.0] * 3, dtype=torch.float64))


# ----------------------------------------------------------------------------- PD (column one-hot × diagonal)


def pd_inputs(B=2, T=40, N=5, permutations=False, with_h0=True, seed=0):
    gen = torch.Generator().manual_seed(seed)
    if permutations:
        rows = torch.stack([torch.randperm(N, generator=gen) for _ in range(B * T)]).view(B, T, N)  # (B, T, N)
    else:
        rows = torch.randint(0, N, (B, T, N), generator=gen)  # (B, T, N) maps that may merge states
    P = F.one_hot(rows, N).transpose(-1, -2).double()  # (B, T, N, N) P[π(j), j] = 1
    r = torch.rand(B, T, N, generator=gen, dtype=torch.float64)  # (B, T, N)
    theta = 2 * math.pi * torch.rand(B, T, N, generator=gen, dtype=torch.float64)  # (B, T, N)
    b = torch.randn(B, T, N, 2, generator=gen, dtype=torch.float64)  # (B, T, N, 2)
    h0 = torch.randn(B, N, 2, generator=gen, dtype=torch.float64) if with_h0 else None  # (B, N, 2)
    return [P, r, theta, b, h0]


@pytest.mark.parametrize("permutations", [True, False], ids=["permutations", "any-maps"])
@pytest.mark.parametrize("T", [1, 2, 33, 64])
def test_pd_scan_matches_reference_with_the_dense_P_gradient(permutations, T):
    """Including ∂L/∂P at the zero entries (what the straight-through estimator passes to the softmax)."""
    assert_close_to_reference(pd_scan, pd_sequential, pd_inputs(T=T, permutations=permutations))


def test_pd_scan_zero_initial_state():
    assert_close_to_reference(pd_scan, pd_sequential, pd_inputs(with_h0=False))


def test_pd_support_is_the_column_argmax():
    P = torch.tensor([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0]])  # columns → rows 1, 0, 0
    assert column_support(P).tolist() == [1, 0, 0]


@pytest.mark.parametrize("fn", [pd_sequential, pd_scan], ids=["sequential", "scan"])
def test_pd_hand_worked_cycle_and_merge(fn):
    # The cycle 0 → 1 → 2 → 0, D = 1, b = 0 from e_0: the one-hot state walks e_1, e_2, e_0, e_1.
    N, T = 3, 4
    P = F.one_hot(torch.tensor([1, 2, 0]), N).T.double().expand(1, T, N, N)  # (B, T, N, N)
    ones, zeros = torch.ones(1, T, N, dtype=torch.float64), torch.zeros(1, T, N, dtype=torch.float64)
    h0 = torch.zeros(1, N, 2, dtype=torch.float64)
    h0[0, 0, 0] = 1
    h, last = fn(P, ones, zeros, torch.zeros(1, T, N, 2, dtype=torch.float64), h0)
    assert h[0, :, :, 0].argmax(-1).tolist() == [1, 2, 0, 1]
    # A merge (every column to row 0) with D = (½, i, −1) from h = (1, 1, 1): h_1 = (½ + i − 1) e_0.
    P = F.one_hot(torch.tensor([0, 0, 0]), N).T.double().view(1, 1, N, N)  # (B, T, N, N)
    h0 = torch.zeros(1, N, 2, dtype=torch.float64)
    h0[0, :, 0] = 1
    r = torch.tensor([[[0.5, 1.0, 1.0]]], dtype=torch.float64)  # (B, T, N)
    theta = torch.tensor([[[0.0, math.pi / 2, math.pi]]], dtype=torch.float64)  # (B, T, N)
    _, last = fn(P, r, theta, torch.zeros(1, 1, N, 2, dtype=torch.float64), h0)
    torch.testing.assert_close(last[0], torch.tensor([[-0.5, 1.0], [0.0, 0.0], [0.0, 0.0]], dtype=torch.float64))
