"""Tests for ``statetrack.models.ops``: every fast path against its fp64 sequential reference.

Ground truth is always the sequential reference run in fp64, never a fast path's own output. The
two hand-worked cases pin the conventions (decay multiplies the old state; S is (dk, dv) and o_t is
read after the write) independently of both implementations.

Tolerances are norm-relative, ``‖x - ref‖ / ‖ref‖``:

- fp32 fast path vs fp64 reference: ``FP32_TOL = 1e-5``. fp32's unit roundoff is 6e-8; at these
  lengths (T ≤ 70) the measured errors of outputs, states and every gradient are ≤ 1.1e-7 for the
  diagonal rule and 1e-7 to 6e-7 for the delta rule, worst 1.1e-6 with dk = 2 (strongly correlated
  keys make the UT solve less well conditioned). 1e-5 leaves ≥ 9× headroom, while a convention bug
  (error O(1)) or a bf16/TF32 leak (≥ 1e-3) fails loudly. It is also the gate every fast path
  must pass (state recurrences in true fp32).
- fp64 fast path vs fp64 reference: ``FP64_TOL = 1e-12``; the two differ only by summation order.

Runtime: a few seconds on 2 CPU threads.
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

from statetrack.models.ops import (
    delta_rule_chunked,
    delta_rule_sequential,
    diagonal_recurrence,
    diagonal_recurrence_sequential,
)
from helpers import rel_err

FP32_TOL = 1e-5
FP64_TOL = 1e-12


def outputs_and_grads(fn, inputs, upstream):
    """Run ``fn(*inputs)``, backpropagate ``upstream`` (one tensor per output) and collect everything.

    Returns (outputs, grads): grads holds one entry per input, None where it does not require grad.
    """
    outputs = fn(*inputs)
    needs_grad = [x for x in inputs if x is not None and x.requires_grad]
    grads = torch.autograd.grad(outputs, needs_grad, grad_outputs=upstream) if needs_grad else ()
    grads = iter(grads)
    return outputs, [next(grads) if x is not None and x.requires_grad else None for x in inputs]


def as_leaves(tensors, dtype, requires_grad):
    """Fresh leaf copies of ``tensors`` in ``dtype``; None stays None."""
    return [
        None if x is None else x.detach().to(dtype).requires_grad_(flag)
        for x, flag in zip(tensors, requires_grad)
    ]


def check_fast_against_reference(fast, reference, inputs, requires_grad, gen):
    """Fast path (fp32 and fp64) vs fp64 reference: outputs, final state, gradient of every input."""
    ref_inputs = as_leaves(inputs, torch.float64, requires_grad)
    ref_outputs = reference(*ref_inputs)
    upstream = [torch.randn(o.shape, generator=gen, dtype=torch.float64) for o in ref_outputs]
    ref_outputs, ref_grads = outputs_and_grads(reference, ref_inputs, upstream)
    for dtype, tol in ((torch.float32, FP32_TOL), (torch.float64, FP64_TOL)):
        fast_inputs = as_leaves(inputs, dtype, requires_grad)
        fast_outputs, fast_grads = outputs_and_grads(fast, fast_inputs, [u.to(dtype) for u in upstream])
        for name, got, want in zip(("output", "final state"), fast_outputs, ref_outputs):
            assert got.dtype == dtype
            assert got.shape == want.shape
            assert rel_err(got, want) < tol, f"{dtype} {name}: rel err {rel_err(got, want):.2e}"
        for i, (got, want) in enumerate(zip(fast_grads, ref_grads)):
            assert (got is None) == (want is None), f"input {i}: gradient presence differs"
            if want is not None:
                assert got.dtype == dtype
                assert rel_err(got, want) < tol, f"{dtype} grad of input {i}: rel err {rel_err(got, want):.2e}"


# ---------------------------------------------------------------------------------------------------------
# Diagonal rule
# ---------------------------------------------------------------------------------------------------------

DIAGONAL_CASES = [
    # (B, T, S, (a_low, a_high), with_h0)
    pytest.param(3, 33, (4, 5), (-1.0, 1.0), True, id="neg-eig-a[-1,1]-h0"),
    pytest.param(3, 33, (4, 5), (0.0, 1.0), True, id="pos-eig-a[0,1]-h0"),
    pytest.param(2, 70, (6,), (-1.0, 1.0), False, id="neg-eig-T70-zero-h0"),
    pytest.param(4, 1, (3, 2), (-1.0, 1.0), True, id="T1"),
    pytest.param(2, 40, (8, 4), (-1.0, -0.9), True, id="parity-like-a-near-minus-1"),
]


def diagonal_inputs(B, T, S, a_range, with_h0, gen):
    low, high = a_range
    a = low + (high - low) * torch.rand(B, T, *S, generator=gen)  # (B, T, *S)
    b = torch.randn(B, T, *S, generator=gen)  # (B, T, *S)
    h0 = torch.randn(B, *S, generator=gen) if with_h0 else None  # (B, *S)
    return [a, b, h0]


@pytest.mark.parametrize("B, T, S, a_range, with_h0", DIAGONAL_CASES)
def test_diagonal_fast_matches_reference(B, T, S, a_range, with_h0):
    gen = torch.Generator().manual_seed(0)
    inputs = diagonal_inputs(B, T, S, a_range, with_h0, gen)
    check_fast_against_reference(
        diagonal_recurrence, diagonal_recurrence_sequential, inputs, [True, True, with_h0], gen
    )


@pytest.mark.parametrize(
    "requires_grad",
    [
        pytest.param([True, False, False], id="only-a"),
        pytest.param([False, True, False], id="only-b"),
        pytest.param([False, False, True], id="only-h0"),
        pytest.param([False, True, True], id="b-and-h0"),
    ],
)
def test_diagonal_fast_partial_requires_grad(requires_grad):
    gen = torch.Generator().manual_seed(1)
    inputs = diagonal_inputs(2, 9, (3,), (-1.0, 1.0), True, gen)
    check_fast_against_reference(
        diagonal_recurrence, diagonal_recurrence_sequential, inputs, requires_grad, gen
    )


def test_diagonal_fast_non_contiguous_inputs_and_no_grad():
    gen = torch.Generator().manual_seed(2)
    a = (2 * torch.rand(5, 3, 7, generator=gen, dtype=torch.float64) - 1).transpose(0, 1)  # (B=3, T=5, 7)
    b = torch.randn(3, 7, 5, generator=gen, dtype=torch.float64).transpose(1, 2)  # (B=3, T=5, 7)
    h_ref, last_ref = diagonal_recurrence_sequential(a, b)
    with torch.no_grad():
        h, last = diagonal_recurrence(a, b)
    assert rel_err(h, h_ref) < FP64_TOL and rel_err(last, last_ref) < FP64_TOL
    assert torch.equal(last, h[:, -1])


def test_diagonal_fast_gradcheck():
    """The hand-written adjoint against finite differences (independent of the reference)."""
    gen = torch.Generator().manual_seed(3)
    a, b, h0 = (
        x.double().requires_grad_()
        for x in diagonal_inputs(2, 6, (3,), (-1.0, 1.0), True, gen)
    )
    assert torch.autograd.gradcheck(diagonal_recurrence, (a, b, h0))


@pytest.mark.parametrize(
    "fn", [diagonal_recurrence_sequential, diagonal_recurrence], ids=["sequential", "fast"]
)
def test_diagonal_hand_worked(fn):
    # a = -1, b = 1 from h_0 = 0: h = 1, 0, 1, 0, 1, 0 (the parity of the step count, NE Thm 1).
    a = -torch.ones(1, 6, 1, dtype=torch.float64)  # (B, T, 1)
    b = torch.ones(1, 6, 1, dtype=torch.float64)  # (B, T, 1)
    h, last = fn(a, b)
    assert h.flatten().tolist() == [1.0, 0.0, 1.0, 0.0, 1.0, 0.0]
    assert last.flatten().tolist() == [0.0]
    # a = 0.5, b = 1 from h_0 = 4: h = 3, 2.5, 2.25 (the decay multiplies the old state).
    a = torch.full((1, 3, 1), 0.5, dtype=torch.float64)  # (B, T, 1)
    b = torch.ones(1, 3, 1, dtype=torch.float64)  # (B, T, 1)
    h, last = fn(a, b, torch.full((1, 1), 4.0, dtype=torch.float64))
    assert h.flatten().tolist() == [3.0, 2.5, 2.25]
    assert last.flatten().tolist() == [2.25]


# ---------------------------------------------------------------------------------------------------------
# Selective scan (Mamba): the fused fast path against an independent fp64 loop
# ---------------------------------------------------------------------------------------------------------


def naive_selective_scan(u, delta, A, B, C, h0=None, eig_range="[0,1]"):
    """An independent oracle for ``selective_scan``: one step at a time, written out from Mamba Alg. 2.

    It shares no code with ``statetrack.models.ops`` (the pair's reference reuses the diagonal loop).
    """
    h = torch.zeros(u.shape[0], *A.shape, dtype=u.dtype) if h0 is None else h0  # (B, E·D, N)
    ys = []
    for t in range(u.shape[1]):
        s = torch.exp(delta[:, t, :, None] * A)  # (B, E·D, N)
        a = 2 * s - 1 if eig_range == "[-1,1]" else s  # (B, E·D, N)
        h = a * h + delta[:, t, :, None] * u[:, t, :, None] * B[:, t, None, :]  # (B, E·D, N)
        ys.append((h * C[:, t, None, :]).sum(-1))  # (B, E·D)
    return torch.stack(ys, dim=1), h  # (B, T, E·D), (B, E·D, N)


def selective_inputs(Bsz, T, E, N, with_h0, gen, big_steps=False):
    u = torch.randn(Bsz, T, E, generator=gen)  # (B, T, E·D)
    delta = F.softplus(torch.randn(Bsz, T, E, generator=gen) + (2.0 if big_steps else -2.0))  # (B, T, E·D)
    A = -torch.exp(torch.randn(E, N, generator=gen))  # (E·D, N) negative, as -exp(A_log)
    B, C = torch.randn(Bsz, T, N, generator=gen), torch.randn(Bsz, T, N, generator=gen)  # (B, T, N)
    h0 = torch.randn(Bsz, E, N, generator=gen) if with_h0 else None  # (B, E·D, N)
    return [u, delta, A, B, C, h0]


SELECTIVE_CASES = [
    # (eig_range, B, T, E·D, N, chunk, with_h0, big_steps)
    pytest.param("[0,1]", 3, 37, 6, 4, 8, True, False, id="pos-T37-chunk8-h0"),
    pytest.param("[-1,1]", 3, 37, 6, 4, 8, True, False, id="neg-T37-chunk8-h0"),
    pytest.param("[-1,1]", 2, 40, 5, 3, 16, False, True, id="neg-big-steps-a-near-minus-1-zero-h0"),
    pytest.param("[0,1]", 2, 5, 4, 2, 16, True, False, id="pos-T-shorter-than-chunk"),
    pytest.param("[-1,1]", 2, 9, 3, 2, 1, True, False, id="neg-chunk1"),
    pytest.param("[0,1]", 4, 1, 3, 5, 16, True, False, id="T1"),
]


@pytest.mark.parametrize("eig_range, B, T, E, N, chunk, with_h0, big_steps", SELECTIVE_CASES)
def test_selective_scan_fused_matches_fp64_loop(eig_range, B, T, E, N, chunk, with_h0, big_steps):
    """Outputs, final state and the gradient of every input (u, Δ, A, B, C, h0), fp32 and fp64."""
    from functools import partial

    from statetrack.models.ops import selective_scan

    gen = torch.Generator().manual_seed(4)
    inputs = selective_inputs(B, T, E, N, with_h0, gen, big_steps)
    check_fast_against_reference(
        partial(selective_scan, eig_range=eig_range, chunk=chunk), partial(naive_selective_scan, eig_range=eig_range),
        inputs, [True] * 5 + [with_h0], gen,
    )


@pytest.mark.parametrize("requires_grad", [
    pytest.param([True, False, False, False, False, True], id="u-and-h0"),
    pytest.param([False, False, True, False, True, False], id="A-and-C"),
])
def test_selective_scan_partial_requires_grad(requires_grad):
    from functools import partial

    from statetrack.models.ops import selective_scan

    gen = torch.Generator().manual_seed(5)
    inputs = selective_inputs(2, 11, 4, 3, True, gen)
    check_fast_against_reference(partial(selective_scan, eig_range="[-1,1]", chunk=4),
                                 partial(naive_selective_scan, eig_range="[-1,1]"), inputs, requires_grad, gen)


def test_selective_scan_reference_matches_fp64_loop():
    """The pair's own reference (full-size a, b and the diagonal loop) is the same function as the oracle."""
    from statetrack.models.ops import selective_scan_sequential

    gen = torch.Generator().manual_seed(6)
    u, delta, A, B, C, h0 = (x.double() for x in selective_inputs(2, 13, 4, 3, True, gen))
    for eig_range in ("[0,1]", "[-1,1]"):
        for got, want in zip(selective_scan_sequential(u, delta, A, B, C, h0, eig_range),
                             naive_selective_scan(u, delta, A, B, C, h0, eig_range)):
            assert rel_err(got, want) < FP64_TOL


@pytest.mark.parametrize("eig_range, expected", [("[0,1]", [1.0, 1.5, 1.75, 1.875]), ("[-1,1]", [1.0, 1.0, 1.0, 1.0])])
def test_selective_scan_hand_worked(eig_range, expected):
    # A = -ln 2, Δ = u = B = C = 1, h_0 = 0: s = 1/2, so a = 1/2 (y = 1, 1.5, ...) or a = 2 s - 1 = 0 (y = 1, 1, ...).
    from statetrack.models.ops import selective_scan, selective_scan_sequential

    ones = torch.ones(1, 4, 1, dtype=torch.float64)  # (B, T, 1)
    A = torch.full((1, 1), -torch.log(torch.tensor(2.0, dtype=torch.float64)).item(), dtype=torch.float64)  # (1, 1)
    for fn in (selective_scan, selective_scan_sequential):
        y, last = fn(ones, ones, A, ones, ones, eig_range=eig_range)
        torch.testing.assert_close(y.flatten(), torch.tensor(expected, dtype=torch.float64))
        assert last.item() == pytest.approx(expected[-1])


def test_selective_scan_bad_arguments_are_named():
    from statetrack.models.ops import selective_scan

    u, delta, A, B, C, _ = selective_inputs(1, 3, 2, 2, False, torch.Generator().manual_seed(0))
    with pytest.raises(ValueError, match=r"eig_range '\[0,2\]' is not allowed; allowed: \['\[0,1\]', '\[-1,1\]'\]"):
        selective_scan(u, delta, A, B, C, eig_range="[0,2]")
    with pytest.raises(ValueError, match="chunk=0 is not allowed"):
        selective_scan(u, delta, A, B, C, chunk=0)
    with pytest.raises(ValueError, match=r"A \(3, 2\)"):
        selective_scan(u, delta, torch.zeros(3, 2), B, C)


# ---------------------------------------------------------------------------------------------------------
# Delta rule
# ---------------------------------------------------------------------------------------------------------

DELTA_CASES = [
    # (B, H, T, dk, dv, beta_max, chunk_size, with_S0)
    pytest.param(2, 2, 70, 8, 8, 2.0, 32, True, id="neg-eig-beta[0,2]-T70-C32-S0"),
    pytest.param(2, 2, 70, 8, 8, 1.0, 32, True, id="pos-eig-beta[0,1]-T70-C32-S0"),
    pytest.param(2, 2, 31, 8, 8, 2.0, 32, True, id="T31-C32"),
    pytest.param(2, 2, 32, 8, 8, 2.0, 32, True, id="T32-C32-exact-multiple"),
    pytest.param(2, 2, 33, 8, 8, 2.0, 32, True, id="T33-C32"),
    pytest.param(2, 2, 1, 8, 8, 2.0, 32, True, id="T1-C32"),
    pytest.param(2, 2, 5, 8, 8, 2.0, 32, False, id="T5-smaller-than-C-zero-S0"),
    pytest.param(2, 3, 45, 4, 12, 2.0, 16, True, id="dk4-dv12-C16"),
    pytest.param(2, 3, 45, 12, 4, 2.0, 16, True, id="dk12-dv4-C16"),
    pytest.param(2, 2, 40, 2, 3, 2.0, 32, True, id="dk2-strongly-correlated-keys"),
    pytest.param(2, 2, 20, 6, 6, 2.0, 1, True, id="C1-one-step-chunks"),
    pytest.param(2, 2, 70, 16, 16, 2.0, 64, False, id="C64-d16"),
]


def delta_inputs(B, H, T, dk, dv, beta_max, with_S0, gen):
    q = torch.randn(B, H, T, dk, generator=gen)  # (B, H, T, dk)
    k = F.normalize(torch.randn(B, H, T, dk, generator=gen), dim=-1)  # (B, H, T, dk) unit norm
    v = torch.randn(B, H, T, dv, generator=gen)  # (B, H, T, dv)
    beta = beta_max * torch.rand(B, H, T, generator=gen)  # (B, H, T)
    S0 = torch.randn(B, H, dk, dv, generator=gen) if with_S0 else None  # (B, H, dk, dv)
    return [q, k, v, beta, S0]


@pytest.mark.parametrize("B, H, T, dk, dv, beta_max, chunk_size, with_S0", DELTA_CASES)
def test_delta_chunked_matches_reference(B, H, T, dk, dv, beta_max, chunk_size, with_S0):
    gen = torch.Generator().manual_seed(0)
    inputs = delta_inputs(B, H, T, dk, dv, beta_max, with_S0, gen)

    def chunked(q, k, v, beta, S0):
        return delta_rule_chunked(q, k, v, beta, S0, chunk_size=chunk_size)

    check_fast_against_reference(
        chunked, delta_rule_sequential, inputs, [True, True, True, True, with_S0], gen
    )


@pytest.mark.parametrize(
    "fn", [delta_rule_sequential, delta_rule_chunked], ids=["sequential", "chunked"]
)
def test_delta_rule_ignores_caller_bf16_autocast(fn):
    """A layer may run under bf16 autocast; the state recurrence must still be computed in fp32."""
    gen = torch.Generator().manual_seed(7)
    inputs = delta_inputs(2, 2, 40, 8, 8, 2.0, True, gen)
    o_ref, S_ref = delta_rule_sequential(*(x.double() for x in inputs))
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        o, S = fn(*inputs)
    assert o.dtype == S.dtype == torch.float32
    assert rel_err(o, o_ref) < FP32_TOL and rel_err(S, S_ref) < FP32_TOL


def test_delta_chunked_inputs_without_grad():
    gen = torch.Generator().manual_seed(1)
    inputs = delta_inputs(2, 2, 37, 6, 5, 2.0, True, gen)
    check_fast_against_reference(
        delta_rule_chunked, delta_rule_sequential, inputs, [False, True, False, True, False], gen
    )


@pytest.mark.parametrize(
    "fn",
    [delta_rule_sequential, delta_rule_chunked, lambda *x: delta_rule_chunked(*x, chunk_size=1)],
    ids=["sequential", "chunked-C32", "chunked-C1"],
)
def test_delta_hand_worked(fn):
    # dk = 3, dv = 2: S is (dk, dv), rows indexed by key direction.
    S0 = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=torch.float64)  # (dk, dv)
    e1, e2 = torch.eye(3, dtype=torch.float64)[:2]  # (dk,) each

    # One step, k = e_1, β = 2, v = 0: S_1 = (I - 2 e_1 e_1ᵀ) S_0 flips the first row of S_0.
    # Reading with q = e_1 returns the flipped row: o_1 = S_1ᵀ e_1 = (-1, -2).
    o, S = fn(
        e1.view(1, 1, 1, 3), e1.view(1, 1, 1, 3), torch.zeros(1, 1, 1, 2, dtype=torch.float64),
        torch.full((1, 1, 1), 2.0, dtype=torch.float64), S0.view(1, 1, 3, 2),
    )
    assert S.view(3, 2).tolist() == [[-1.0, -2.0], [3.0, 4.0], [5.0, 6.0]]
    assert o.flatten().tolist() == [-1.0, -2.0]

    # Two writes from S_0 = 0 with k = e_1: β = 1, v = (3, 4) stores v in row 1; then β = 0.5,
    # v = (1, 0) moves row 1 halfway: (3, 4) + 0.5·((1, 0) - (3, 4)) = (2, 2). The output is read
    # after each write; q = e_2 reads the untouched row 2 (zeros), q = e_1 reads row 1.
    q = torch.stack([e2, e1]).view(1, 1, 2, 3)  # (B, H, T, dk)
    k = torch.stack([e1, e1]).view(1, 1, 2, 3)  # (B, H, T, dk)
    v = torch.tensor([[3.0, 4.0], [1.0, 0.0]], dtype=torch.float64).view(1, 1, 2, 2)  # (B, H, T, dv)
    beta = torch.tensor([1.0, 0.5], dtype=torch.float64).view(1, 1, 2)  # (B, H, T)
    o, S = fn(q, k, v, beta)
    assert o.view(2, 2).tolist() == [[0.0, 0.0], [2.0, 2.0]]
    assert S.view(3, 2).tolist() == [[2.0, 2.0], [0.0, 0.0], [0.0, 0.0]]


def test_generalized_householder_spectral_norm_at_most_one():
    """β ∈ [0,2], ‖k‖ = 1: I - βkkᵀ has eigenvalues {1 - β, 1, ..., 1}, so spectral norm ≤ 1 (NE Prop. 1)."""
    gen = torch.Generator().manual_seed(4)
    dk = 5
    k = F.normalize(torch.randn(200, dk, generator=gen, dtype=torch.float64), dim=-1)  # (N, dk)
    edges = torch.tensor([0.0, 1.0, 2.0], dtype=torch.float64)  # the ends and middle of [0, 2]
    beta = torch.cat([edges, 2 * torch.rand(197, generator=gen, dtype=torch.float64)])  # (N,)
    A = torch.eye(dk, dtype=torch.float64) - beta[:, None, None] * k[:, :, None] * k[:, None, :]  # (N, dk, dk)
    eig = torch.linalg.eigvalsh(A)  # (N, dk) ascending
    assert torch.allclose(eig[:, 0], torch.minimum(1 - beta, torch.ones_like(beta)), atol=1e-12)
    assert torch.allclose(eig[:, 1:], torch.ones_like(eig[:, 1:]), atol=1e-12)
    assert (torch.linalg.matrix_norm(A, ord=2) <= 1 + 1e-12).all()
    assert eig.min() < -0.5  # the range [0, 2] really reaches negative eigenvalues


@pytest.mark.parametrize("beta_max", [1.0, 2.0], ids=["beta[0,1]", "beta[0,2]"])
def test_delta_state_norm_never_grows_without_writes(beta_max):
    """With v = 0 each step is S ← (I - βkkᵀ) S, a contraction: ‖S_t‖_F is non-increasing."""
    gen = torch.Generator().manual_seed(5)
    q, k, _, beta, S0 = (x.double() for x in delta_inputs(2, 2, 50, 6, 4, beta_max, True, gen))
    v = torch.zeros(2, 2, 50, 4, dtype=torch.float64)  # (B, H, T, dv)
    S = S0  # (B, H, dk, dv)
    norms = [S.norm(dim=(-2, -1))]  # (B, H) each
    steps = zip(*(x.split(1, dim=2) for x in (q, k, v, beta)))  # length-1 slices along T
    for q_t, k_t, v_t, beta_t in steps:
        _, S = delta_rule_sequential(q_t, k_t, v_t, beta_t, S)  # one step, chaining the state
        norms.append(S.norm(dim=(-2, -1)))
    norms = torch.stack(norms)  # (T + 1, B, H)
    assert (norms[1:] <= norms[:-1] * (1 + 1e-12)).all()
    assert (norms[-1] < norms[0]).all()  # and it really contracts
    _, S_chunked = delta_rule_chunked(q, k, v, beta, S0, chunk_size=16)
    assert (S_chunked.norm(dim=(-2, -1)) <= norms[0] * (1 + 1e-12)).all()


# ---------------------------------------------------------------------------------------------------------
# CUDA: the same comparisons with the fast paths on the GPU (skipped without one)
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_fast_paths_on_cuda_match_cpu_reference():
    gen = torch.Generator().manual_seed(6)
    a, b, h0 = diagonal_inputs(3, 33, (4, 5), (-1.0, 1.0), True, gen)
    h_ref, last_ref = diagonal_recurrence_sequential(a.double(), b.double(), h0.double())
    h, last = diagonal_recurrence(a.cuda(), b.cuda(), h0.cuda())
    assert h.device.type == "cuda"
    assert rel_err(h.cpu(), h_ref) < FP32_TOL and rel_err(last.cpu(), last_ref) < FP32_TOL
    q, k, v, beta, S0 = delta_inputs(2, 2, 70, 8, 8, 2.0, True, gen)
    o_ref, S_ref = delta_rule_sequential(*(x.double() for x in (q, k, v, beta, S0)))
    prev_tf32 = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False  # no TF32 in state recurrences
    try:
        o, S = delta_rule_chunked(*(x.cuda() for x in (q, k, v, beta, S0)))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = prev_tf32
    assert o.device.type == "cuda"
    assert rel_err(o.cpu(), o_ref) < FP32_TOL and rel_err(S.cpu(), S_ref) < FP32_TOL
