"""Tests for the xLSTM cells and models: ``ops/xlstm.py`` and the ``mlstm`` / ``slstm`` models.

Ground truth:
- the fp64 stabilized recurrences (``mlstm_recurrent``, ``slstm_sequential``) for the fast paths
  (chunkwise mLSTM, fused sLSTM), on outputs, final states and every input's gradient;
- independently of both, the **unstabilized** cell equations written out below in fp64 (plain
  exp gates, no m_t): the stabilized states times e^{m} must equal them, and so must the outputs;
- hand-worked one-head examples.

Tolerances (norm-relative ``‖x − ref‖ / ‖ref‖``):
- fp32 fast path vs fp64 reference: 1e-5, or 4× the fp32 reference's own error where that is larger
  (``check_against_reference``; mLSTM gradients with the exponential forget gate: the fp32 loop
  itself is off by up to 5e-5). Measured: sLSTM ≤ 5e-7, mLSTM outputs ≤ 5e-6 and gradients
  ≤ 1e-5, never worse than the fp32 reference. A bf16 leak or a convention error is ≥ 1e-3.
  fp64 vs fp64: 1e-12.
- Long inputs (T = 2000, input-gate pre-activations up to ~300, so exp overflows fp32 from ĩ > 88):
  fp64 stabilized vs fp64 unstabilized 1e-10 (measured ≤ 3e-12). fp32 stabilized vs fp64
  unstabilized: sLSTM outputs 1e-4 (measured ≤ 1e-5); mLSTM true-scale states C = C'·e^m 1e-3
  (measured 1e-5 with the sigmoid gate, 1.1e-4 with the exponential one: there m reaches ~250, whose
  fp32 rounding, 1.5e-5 per step, random-walks through e^m), mLSTM outputs 2e-2 (measured 5e-4 to 4e-3 even for the exactly-representable
  inputs used here): h̃ = C q / |nᵀq| divides by a sum of terms of both signs, which cancels and
  amplifies the states' 1e-5 relative error; that is the formula's conditioning, not the stabilizer,
  and the fp64 comparison pins the arithmetic.

Runtime: about 5 s on 2 quiet CPU threads.
"""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F

from statetrack.config import ConfigError
from statetrack.models import make_model, model_config
from statetrack.models.ops import mlstm_chunkwise, mlstm_recurrent, slstm_fused, slstm_sequential
from helpers import rel_err, rollout

FP32_TOL = 1e-5
FP64_TOL = 1e-12


def outputs_and_grads(fn, inputs, dtype, upstream):
    leaves = [None if x is None else x.detach().to(dtype).requires_grad_() for x in inputs]
    out = fn(*leaves)
    grads = torch.autograd.grad(out, [x for x in leaves if x is not None], [u.to(dtype) for u in upstream])
    return out, grads


def check_against_reference(fast, reference, inputs, gen):
    """``fast`` in fp32 and fp64 against ``reference`` in fp64: every output and every input's gradient.

    The fp32 tolerance of each tensor is max(1e-5, 4 × the error of the reference itself run in fp32):
    where the problem is ill-conditioned (mLSTM gradients near |nᵀq| = 1, the kink of max(|nᵀq|, 1),
    or near cancellation) even the sequential fp32 loop is off by up to 5e-5, and the fast path only
    has to be as accurate as the reference in the same precision.
    """
    upstream = [torch.randn(o.shape, generator=gen, dtype=torch.float64)
                for o in reference(*(x for x in inputs))]
    ref_out, ref_grads = outputs_and_grads(reference, inputs, torch.float64, upstream)
    ref32_out, ref32_grads = outputs_and_grads(reference, inputs, torch.float32, upstream)
    for dtype in (torch.float32, torch.float64):
        out, grads = outputs_and_grads(fast, inputs, dtype, upstream)
        assert len(out) == len(ref_out)
        pairs = [(f"output {i}", *t) for i, t in enumerate(zip(out, ref_out, ref32_out))]
        pairs += [(f"grad of input {i}", *t) for i, t in enumerate(zip(grads, ref_grads, ref32_grads))]
        # A reference that is exactly zero (at T = 1 from an empty state, the gradients of the forget gate and
        # of R, whose terms cancel or multiply the zero state) has no relative error: it is held absolutely,
        # on the size of the largest reference tensor of the same call.
        largest = max(want.norm().item() for _, _, want, _ in pairs)
        for what, got, want, want32 in pairs:
            assert got.dtype == dtype and got.shape == want.shape
            assert torch.isfinite(got).all()
            scale = None if want.norm() > 0 else largest
            tol = max(FP32_TOL, 4 * rel_err(want32, want, scale)) if dtype == torch.float32 else FP64_TOL
            err = rel_err(got, want, scale)
            assert err < tol, f"{dtype} {what}: {err:.1e} (tolerance {tol:.1e})"


# ---------------------------------------------------------------------------------------------------------
# Independent unstabilized cells (fp64, plain exp gates): the equations of Beck et al. 2024 as printed
# ---------------------------------------------------------------------------------------------------------


def mlstm_unstabilized(q, k, v, i_gate, log_f, C0=None, n0=None):
    """C_t = f_t C_{t-1} + i_t v_t k_tᵀ, n_t = f_t n_{t-1} + i_t k_t, h_t = C_t q_t / max(|n_tᵀ q_t|, 1)."""
    B, H, T, dk = k.shape
    C = torch.zeros(B, H, v.shape[-1], dk, dtype=q.dtype) if C0 is None else C0  # (B, H, dv, dk)
    n = torch.zeros(B, H, dk, dtype=q.dtype) if n0 is None else n0  # (B, H, dk)
    out = []
    for t in range(T):
        f, i = log_f[:, :, t].exp(), i_gate[:, :, t].exp()  # (B, H) each
        C = f[..., None, None] * C + i[..., None, None] * torch.einsum("bhv,bhk->bhvk", v[:, :, t], k[:, :, t])
        n = f[..., None] * n + i[..., None] * k[:, :, t]  # (B, H, dk)
        den = torch.einsum("bhk,bhk->bh", n, q[:, :, t]).abs().clamp_min(1.0)  # (B, H)
        out.append(torch.einsum("bhvk,bhk->bhv", C, q[:, :, t]) / den[..., None])  # (B, H, dv)
    return torch.stack(out, dim=2), C, n


def slstm_unstabilized(u, R, forget_gate, h0=None, c0=None, n0=None):
    """c_t = f_t c_{t-1} + i_t z_t, n_t = f_t n_{t-1} + i_t, h_t = o_t c_t / n_t, pre = u_t + R h_{t-1}."""
    B, T, _, H, d = u.shape
    h = torch.zeros(B, H, d, dtype=u.dtype) if h0 is None else h0
    c = torch.zeros(B, H, d, dtype=u.dtype) if c0 is None else c0
    n = torch.zeros(B, H, d, dtype=u.dtype) if n0 is None else n0
    out = []
    for t in range(T):
        pre = u[:, t] + torch.einsum("bhd,ghde->bghe", h, R)  # (B, 4, H, d)
        i = pre[:, 0].exp()
        f = torch.sigmoid(pre[:, 1]) if forget_gate == "sigmoid" else pre[:, 1].exp()
        c = f * c + i * torch.tanh(pre[:, 2])
        n = f * n + i
        h = torch.sigmoid(pre[:, 3]) * c / n
        out.append(h)
    return torch.stack(out, dim=1), c, n


# ---------------------------------------------------------------------------------------------------------
# mLSTM ops
# ---------------------------------------------------------------------------------------------------------


def mlstm_inputs(B, H, T, dk, dv, forget_gate, with_state, gen, i_scale=2.0):
    q = torch.randn(B, H, T, dk, generator=gen, dtype=torch.float64)  # (B, H, T, dk)
    k = torch.randn(B, H, T, dk, generator=gen, dtype=torch.float64) / math.sqrt(dk)  # (B, H, T, dk)
    v = torch.randn(B, H, T, dv, generator=gen, dtype=torch.float64)  # (B, H, T, dv)
    i_gate = i_scale * torch.randn(B, H, T, generator=gen, dtype=torch.float64)  # (B, H, T)
    f_pre = torch.randn(B, H, T, generator=gen, dtype=torch.float64)  # (B, H, T)
    log_f = F.logsigmoid(2 + 2 * f_pre) if forget_gate == "sigmoid" else 0.3 * f_pre  # exp: log f of both signs
    if not with_state:
        return [q, k, v, i_gate, log_f]
    C0 = 0.5 * torch.randn(B, H, dv, dk, generator=gen, dtype=torch.float64)  # (B, H, dv, dk)
    n0 = 0.5 * torch.randn(B, H, dk, generator=gen, dtype=torch.float64)  # (B, H, dk)
    m0 = torch.randn(B, H, generator=gen, dtype=torch.float64)  # (B, H)
    return [q, k, v, i_gate, log_f, C0, n0, m0]


MLSTM_CASES = [
    # (T, chunk_size, dk, dv, forget_gate, with_state)
    pytest.param(37, 16, 6, 6, "sigmoid", True, id="T37-L16-state"),
    pytest.param(37, 16, 6, 6, "sigmoid", False, id="T37-L16-empty-state"),
    pytest.param(37, 64, 6, 6, "sigmoid", True, id="T37-L64-one-chunk"),
    pytest.param(37, 16, 6, 6, "exp", True, id="T37-L16-exp-forget"),
    pytest.param(48, 16, 4, 7, "sigmoid", True, id="T48-L16-exact-multiple-dk4-dv7"),
    pytest.param(37, 1, 5, 3, "sigmoid", True, id="T37-L1-one-step-chunks"),
    pytest.param(1, 64, 6, 6, "sigmoid", True, id="T1-state"),
    pytest.param(1, 64, 6, 6, "exp", False, id="T1-empty-state"),
]


@pytest.mark.parametrize("T, chunk_size, dk, dv, forget_gate, with_state", MLSTM_CASES)
def test_mlstm_chunkwise_matches_fp64_recurrent(T, chunk_size, dk, dv, forget_gate, with_state):
    gen = torch.Generator().manual_seed(0)
    inputs = mlstm_inputs(2, 3, T, dk, dv, forget_gate, with_state, gen)

    def chunkwise(*x):
        return mlstm_chunkwise(*x, chunk_size=chunk_size)

    check_against_reference(chunkwise, mlstm_recurrent, inputs, gen)


@pytest.mark.parametrize("fn", [mlstm_recurrent, lambda *x: mlstm_chunkwise(*x, chunk_size=16)],
                         ids=["recurrent", "chunkwise-padded"])
def test_mlstm_gradients_finite_when_the_stabilizer_underflows(fn):
    """m_t > 88: e^{−m} underflows in fp32. Rows with q_t = 0 (and the chunkwise form's zero-padded rows)
    then have 0/0 unless the denominator is floored; the gradients must stay finite and exact."""
    gen = torch.Generator().manual_seed(7)
    q, k, v, _, _ = mlstm_inputs(2, 2, 37, 4, 4, "sigmoid", False, gen)
    q[:, :, 5] = 0.0  # a query of zeros: the true output is C q / max(0, 1) = 0
    i_gate = 120 + torch.randn(2, 2, 37, generator=gen, dtype=torch.float64)  # (B, H, T) so m_t ≥ 119
    log_f = F.logsigmoid(3 + torch.randn(2, 2, 37, generator=gen, dtype=torch.float64))  # (B, H, T)
    inputs = [x.float().double() for x in (q, k, v, i_gate, log_f)]  # exactly representable in fp32
    leaves = [x.float().requires_grad_() for x in inputs]
    h, C, n, m = fn(*leaves)
    assert m.min() > 100  # e^{-m} is 0 in fp32
    grads = torch.autograd.grad(h.sum() + C.sum() + n.sum(), leaves)
    assert all(torch.isfinite(g).all() for g in grads)
    assert (h[:, :, 5] == 0).all()
    check_against_reference(fn, mlstm_recurrent, inputs, gen)  # and exact, in fp32 and fp64


@pytest.mark.parametrize("forget_gate", ["sigmoid", "exp"])
@pytest.mark.parametrize("fn", [mlstm_recurrent, mlstm_chunkwise], ids=["recurrent", "chunkwise"])
def test_mlstm_matches_unstabilized_equations(fn, forget_gate):
    """Outputs and the true-scale states (C'·e^m, n'·e^m) against the plain equations, from a nonzero state."""
    gen = torch.Generator().manual_seed(1)
    q, k, v, i_gate, log_f, C0, n0, m0 = mlstm_inputs(2, 2, 29, 5, 4, forget_gate, True, gen)
    scale0 = m0.exp()  # (B, H) the stabilized state's scale
    C0_true, n0_true = C0 * scale0[..., None, None], n0 * scale0[..., None]  # (B, H, dv, dk), (B, H, dk)
    h_want, C_want, n_want = mlstm_unstabilized(q, k, v, i_gate, log_f, C0_true, n0_true)
    h, C, n, m = (fn(q, k, v, i_gate, log_f, C0, n0, m0, chunk_size=8) if fn is mlstm_chunkwise
                  else fn(q, k, v, i_gate, log_f, C0, n0, m0))
    assert rel_err(h, h_want) < 1e-12
    assert rel_err(C * m.exp()[..., None, None], C_want) < 1e-12
    assert rel_err(n * m.exp()[..., None], n_want) < 1e-12


@pytest.mark.parametrize("fn", [mlstm_recurrent, lambda *x: mlstm_chunkwise(*x, chunk_size=1)],
                         ids=["recurrent", "chunkwise-L1"])
def test_mlstm_hand_worked(fn):
    # One head, dk = dv = 1, k = v = 1 from the empty state.
    # i = (1, 1), f = (·, ½), q = 1: C = n = (1, 1.5), h = (1/max(1, 1), 1.5/max(1.5, 1)) = (1, 1).
    one = torch.ones(1, 1, 2, 1, dtype=torch.float64)  # (B, H, T, 1)
    log_f = torch.tensor([0.0, math.log(0.5)], dtype=torch.float64).view(1, 1, 2)  # (B, H, T)
    h, C, n, m = fn(one, one, one, torch.zeros(1, 1, 2, dtype=torch.float64), log_f)
    assert h.flatten().tolist() == pytest.approx([1.0, 1.0], abs=1e-15)
    assert (C * m.exp()).item() == pytest.approx(1.5, abs=1e-15)
    # i = ¼ and q = 1: the lower bound 1 of the normalizer is active, h = ¼ / max(¼, 1) = ¼, not 1.
    h, C, n, m = fn(one[:, :, :1], one[:, :, :1], one[:, :, :1],
                    torch.full((1, 1, 1), math.log(0.25), dtype=torch.float64), log_f[:, :, :1])
    assert h.item() == pytest.approx(0.25, abs=1e-15)
    assert (n * m.exp()).item() == pytest.approx(0.25, abs=1e-15)


# ---------------------------------------------------------------------------------------------------------
# sLSTM ops
# ---------------------------------------------------------------------------------------------------------


def slstm_inputs(B, H, T, d, forget_gate, with_state, gen):
    u = torch.randn(B, T, 4, H, d, generator=gen, dtype=torch.float64)  # (B, T, 4, H, d)
    u[:, :, 0] *= 2.0  # ĩ of both signs, several units wide
    u[:, :, 1] = 2 + u[:, :, 1] if forget_gate == "sigmoid" else 0.3 * u[:, :, 1]
    R = torch.randn(4, H, d, d, generator=gen, dtype=torch.float64) / math.sqrt(d)  # (4, H, d, d)
    if not with_state:
        return [u, R]
    h0 = 0.5 * torch.randn(B, H, d, generator=gen, dtype=torch.float64)  # (B, H, d)
    n0 = 1 + torch.rand(B, H, d, generator=gen, dtype=torch.float64)  # (B, H, d) n' ≥ 1
    c0 = n0 * (2 * torch.rand(B, H, d, generator=gen, dtype=torch.float64) - 1)  # (B, H, d)
    m0 = torch.randn(B, H, d, generator=gen, dtype=torch.float64)  # (B, H, d)
    return [u, R, h0, c0, n0, m0]


SLSTM_CASES = [
    # (H, T, d, forget_gate, with_state)
    pytest.param(2, 37, 4, "sigmoid", True, id="T37-state"),
    pytest.param(2, 37, 4, "sigmoid", False, id="T37-empty-state"),
    pytest.param(3, 37, 3, "exp", True, id="T37-exp-forget"),
    pytest.param(1, 37, 8, "sigmoid", True, id="T37-one-head"),
    pytest.param(2, 1, 4, "sigmoid", True, id="T1-state"),
    pytest.param(2, 1, 4, "exp", False, id="T1-empty-state"),
]


@pytest.mark.parametrize("H, T, d, forget_gate, with_state", SLSTM_CASES)
def test_slstm_fused_matches_fp64_sequential(H, T, d, forget_gate, with_state):
    gen = torch.Generator().manual_seed(2)
    inputs = slstm_inputs(2, H, T, d, forget_gate, with_state, gen)

    def run(fn):
        def call(*x):
            return fn(*x, forget_gate=forget_gate)
        return call

    check_against_reference(run(slstm_fused), run(slstm_sequential), inputs, gen)


@pytest.mark.parametrize("forget_gate", ["sigmoid", "exp"])
@pytest.mark.parametrize("fn", [slstm_sequential, slstm_fused], ids=["sequential", "fused"])
def test_slstm_matches_unstabilized_equations(fn, forget_gate):
    gen = torch.Generator().manual_seed(3)
    u, R, h0, c0, n0, m0 = slstm_inputs(2, 2, 29, 3, forget_gate, True, gen)
    h_want, c_want, n_want = slstm_unstabilized(u, R, forget_gate, h0, c0 * m0.exp(), n0 * m0.exp())
    h, h_last, c, n, m = fn(u, R, h0, c0, n0, m0, forget_gate=forget_gate)
    assert rel_err(h, h_want) < 1e-12
    assert torch.equal(h_last, h[:, -1])
    assert rel_err(c * m.exp(), c_want) < 1e-12
    assert rel_err(n * m.exp(), n_want) < 1e-12


@pytest.mark.parametrize("fn", [slstm_sequential, slstm_fused], ids=["sequential", "fused"])
def test_slstm_hand_worked(fn):
    # One unit, R = 0, exponential forget gate: i = (1, 1), f = (1, ½), z = (½, −½), o = ½ from the empty state.
    # c = (½, ½·½ − ½) = (½, −¼), n = (1, 1.5), h = o·c/n = (¼, −1/12).
    u = torch.zeros(1, 2, 4, 1, 1, dtype=torch.float64)  # (B, T, 4, H, d)
    u[0, 1, 1] = math.log(0.5)  # f̃_2 = log ½
    u[0, :, 2, 0, 0] = torch.tensor([math.atanh(0.5), math.atanh(-0.5)], dtype=torch.float64)
    h, _, c, n, m = fn(u, torch.zeros(4, 1, 1, 1, dtype=torch.float64), forget_gate="exp")
    assert h.flatten().tolist() == pytest.approx([0.25, -1 / 12], abs=1e-15)
    assert (c * m.exp()).item() == pytest.approx(-0.25, abs=1e-15)
    assert (n * m.exp()).item() == pytest.approx(1.5, abs=1e-15)


@pytest.mark.parametrize("fn", [slstm_sequential, slstm_fused], ids=["sequential", "fused"])
def test_slstm_empty_state_with_a_closed_input_gate(fn):
    """ĩ = −150 from the empty state: e^ĩ underflows in fp32, yet c/n is a ratio of equal scales (m_0 = −∞)."""
    gen = torch.Generator().manual_seed(8)
    u, R = slstm_inputs(2, 2, 9, 3, "sigmoid", False, gen)
    u[:, :, 0] = -150 + u[:, :, 0]  # (B, T, H, d) ĩ ≈ −150
    u, R = u.float().double(), R.float().double()
    h_want = slstm_unstabilized(u, R, "sigmoid")[0]  # fp64: e^{−150} ≈ 7e-66 is representable
    h = fn(u.float(), R.float())[0]
    assert torch.isfinite(h).all()
    assert rel_err(h, h_want) < FP32_TOL


# ---------------------------------------------------------------------------------------------------------
# Long inputs with large gate pre-activations: the stabilizer keeps fp32 finite and exact
# ---------------------------------------------------------------------------------------------------------


def finite_positions(h: torch.Tensor, time_dim: int) -> torch.Tensor:
    """Positions (batch, time) where every entry of the fp64 unstabilized output is finite."""
    return torch.isfinite(h.movedim(time_dim, 1)).flatten(2).all(dim=-1)  # (B, T)


@pytest.mark.parametrize("forget_gate", ["sigmoid", "exp"])
def test_mlstm_long_large_gates_stays_finite_and_exact(forget_gate):
    gen = torch.Generator().manual_seed(4)
    B, H, T, d = 2, 2, 2000, 6
    q, k, v, _, _ = mlstm_inputs(B, H, T, d, d, forget_gate, False, gen)
    i_gate = 60 + 60 * torch.randn(B, H, T, generator=gen, dtype=torch.float64)  # up to ~300: e^ĩ overflows fp32
    f_pre = torch.randn(B, H, T, generator=gen, dtype=torch.float64)
    log_f = F.logsigmoid(10 * f_pre) if forget_gate == "sigmoid" else 0.5 * f_pre - 0.1
    inputs = [x.float().double() for x in (q, k, v, i_gate, log_f)]  # exactly representable in fp32
    h_want, C_want, n_want = mlstm_unstabilized(*inputs)
    ok = finite_positions(h_want, time_dim=2)  # (B, T)
    assert ok.float().mean() > 0.5 and i_gate.max() > 200  # the comparison is meaningful
    h_naive32 = mlstm_unstabilized(*(x.float() for x in inputs))[0]
    assert not torch.isfinite(h_naive32).all()  # without the stabilizer fp32 overflows

    for fn in (mlstm_recurrent, mlstm_chunkwise):
        h64, C64, _, m64 = fn(*inputs)
        assert rel_err(h64.transpose(1, 2)[ok], h_want.transpose(1, 2)[ok]) < 1e-10
        h32, C32, _, m32 = fn(*(x.float() for x in inputs))
        assert torch.isfinite(h32).all() and torch.isfinite(C32).all() and torch.isfinite(m32).all()
        assert rel_err(h32.transpose(1, 2)[ok], h_want.transpose(1, 2)[ok]) < 2e-2  # conditioning, see top
        if torch.isfinite(C_want).all():  # see the top: fp32 rounding of |m| ≈ 250 sets the scale's error
            assert rel_err(C32.double() * m32.double().exp()[..., None, None], C_want) < 1e-3


@pytest.mark.parametrize("forget_gate", ["sigmoid", "exp"])
def test_slstm_long_large_gates_stays_finite_and_exact(forget_gate):
    gen = torch.Generator().manual_seed(5)
    B, H, T, d = 2, 2, 2000, 4
    u, R = slstm_inputs(B, H, T, d, forget_gate, False, gen)
    u[:, :, 0] = 60 + 30 * u[:, :, 0]  # ĩ up to ~300
    u[:, :, 1] = 10 * u[:, :, 1] if forget_gate == "sigmoid" else 0.5 * u[:, :, 1] - 0.3
    u, R = u.float().double(), R.float().double()
    h_want, _, _ = slstm_unstabilized(u, R, forget_gate)
    ok = finite_positions(h_want, time_dim=1)  # (B, T)
    assert ok.float().mean() > 0.5 and u[:, :, 0].max() > 200
    assert not torch.isfinite(slstm_unstabilized(u.float(), R.float(), forget_gate)[0]).all()

    for fn in (slstm_sequential, slstm_fused):
        h64 = fn(u, R, forget_gate=forget_gate)[0]
        assert rel_err(h64[ok], h_want[ok]) < 1e-10
        h32, *state = fn(u.float(), R.float(), forget_gate=forget_gate)
        assert torch.isfinite(h32).all() and all(torch.isfinite(s).all() for s in state)
        assert rel_err(h32[ok], h_want[ok]) < 1e-4


# ---------------------------------------------------------------------------------------------------------
# Models
# ---------------------------------------------------------------------------------------------------------

MODEL_CASES = [
    pytest.param("mlstm", dict(d_model=8, num_heads=2), id="mlstm"),
    pytest.param("mlstm", dict(d_model=8, num_heads=1, d_conv=0, num_layers=2, forget_gate="exp"),
                 id="mlstm-noconv-exp-2layers"),
    pytest.param("mlstm", dict(d_model=8, num_heads=4, expand=1, d_conv=3, mlp_ratio=2), id="mlstm-expand1-mlp"),
    pytest.param("slstm", dict(d_model=8, num_heads=2), id="slstm"),
    pytest.param("slstm", dict(d_model=8, num_heads=1, d_conv=0, num_layers=2, forget_gate="exp"),
                 id="slstm-noconv-exp-2layers"),
]


def build(name, dtype=torch.float32, **fields):
    """A small model with every parameter perturbed, so that the data-dependent gates really vary."""
    torch.manual_seed(0)
    model = make_model(model_config(name, **fields), vocab_size=6, num_classes=4).to(dtype)
    with torch.no_grad():
        for p in model.parameters():
            p.add_(0.3 * torch.randn_like(p))
    return model


@pytest.mark.parametrize("name, fields", MODEL_CASES)
def test_model_backends_agree_on_the_same_weights(name, fields):
    fast = build(name, **fields, backend="fast")
    ref = build(name, **fields, backend="reference")
    ref.load_state_dict(fast.state_dict())
    tokens = torch.randint(0, 6, (3, 70), generator=torch.Generator().manual_seed(1))  # (B, T), > one chunk
    y_fast, y_ref = fast(tokens), ref(tokens)  # (B, T, K)
    assert y_fast.shape == (3, 70, 4)
    assert rel_err(y_fast, y_ref) < FP32_TOL
    g_fast = torch.autograd.grad(y_fast.sin().sum(), list(fast.parameters()))
    g_ref = torch.autograd.grad(y_ref.sin().sum(), list(ref.parameters()))
    assert rel_err(torch.cat([g.flatten() for g in g_fast]), torch.cat([g.flatten() for g in g_ref])) < 1e-4


@pytest.mark.parametrize("backend", ["fast", "reference"])
@pytest.mark.parametrize("name, fields", MODEL_CASES)
def test_step_rollout_equals_forward(name, fields, backend):
    model = build(name, torch.float64, **fields, backend=backend)
    tokens = torch.randint(0, 6, (2, 19), generator=torch.Generator().manual_seed(2))  # (B, T)
    got, _ = rollout(model, tokens)  # (B, T, K)
    assert rel_err(got, model(tokens)) < 1e-10


@pytest.mark.parametrize("name", ["mlstm", "slstm"])
def test_causality(name):
    model = build(name, d_model=8, num_heads=2, num_layers=2)
    tokens = torch.randint(0, 6, (3, 80), generator=torch.Generator().manual_seed(3))  # (B, T), two chunks
    changed = tokens.clone()
    changed[:, 70:] = (changed[:, 70:] + 1) % 6  # only the future changes
    y, y2 = model(tokens), model(changed)
    assert torch.allclose(y[:, :70], y2[:, :70], rtol=0, atol=1e-6)
    assert not torch.allclose(y[:, 70:], y2[:, 70:])


def test_mlstm_transition_eigenvalues_are_the_forget_gates():
    model = build("mlstm", d_model=8, num_heads=2, num_layers=2)
    ev = model.transition_eigenvalues(torch.randint(0, 6, (2, 9)))
    assert len(ev) == 2 and ev[0].shape == (2, 9, 2)
    assert all(((e > 0) & (e <= 1)).all() for e in ev)  # σ forget gate: positive, so no parity (NE Thm 1)


def test_defaults_and_init():
    m_cfg, s_cfg = model_config("mlstm"), model_config("slstm")
    assert (m_cfg.num_heads, m_cfg.expand, m_cfg.d_conv, m_cfg.mlp_ratio, m_cfg.forget_gate) == (4, 2, 4, 0, "sigmoid")
    assert (s_cfg.num_heads, s_cfg.d_conv, s_cfg.mlp_ratio) == (4, 4, 2)
    assert m_cfg.label == "mlstm" and model_config("slstm", forget_gate="exp").label == "slstm-expf"
    mixer = make_model(model_config("mlstm", d_model=16), 5, 3).blocks[0].mixer
    assert mixer.f_gate.bias.tolist() == pytest.approx([3.0, 4.0, 5.0, 6.0])  # xLSTM's forget-bias init
    assert (mixer.f_gate.weight == 0).all() and (mixer.i_gate.weight == 0).all()
    s_mixer = make_model(model_config("slstm", d_model=8, num_heads=2), 5, 3).blocks[0].mixer
    assert s_mixer.R.shape == (4, 2, 4, 4)  # block-diagonal: one (d, d) block per gate and head
    assert s_mixer.if_proj.bias[8:].tolist() == pytest.approx([3.0, 4.0, 5.0, 6.0] * 2)


def test_bad_config_values():
    with pytest.raises(ConfigError, match=r"num_heads=3 does not divide expand·d_model=32"):
        model_config("mlstm", d_model=16, num_heads=3)
    with pytest.raises(ConfigError, match=r"num_heads=3 does not divide d_model=16"):
        model_config("slstm", d_model=16, num_heads=3)
    for name in ("mlstm", "slstm"):
        with pytest.raises(ConfigError, match="num_heads=0"):
            model_config(name, num_heads=0)
        with pytest.raises(ConfigError, match="d_conv=-1"):
            model_config(name, d_conv=-1)
        with pytest.raises(ConfigError, match="forget_gate"):
            model_config(name, forget_gate="tanh")
        with pytest.raises(ConfigError, match="backend"):
            model_config(name, backend="triton")
    with pytest.raises(ConfigError, match="expand=0"):
        model_config("mlstm", expand=0)


# ---------------------------------------------------------------------------------------------------------
# CUDA (skipped without one)
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs a CUDA device")
def test_fast_paths_on_cuda_match_cpu_fp64_reference():
    gen = torch.Generator().manual_seed(6)
    saved = torch.backends.cuda.matmul.allow_tf32
    torch.backends.cuda.matmul.allow_tf32 = False  # state recurrences in true fp32
    try:
        inputs = mlstm_inputs(2, 3, 70, 8, 8, "sigmoid", True, gen)
        want = mlstm_recurrent(*inputs)
        got = mlstm_chunkwise(*(x.float().cuda() for x in inputs), chunk_size=32)
        for g, w in zip(got, want):
            assert g.device.type == "cuda" and rel_err(g.cpu(), w) < FP32_TOL
        inputs = slstm_inputs(2, 2, 70, 8, "sigmoid", True, gen)
        want = slstm_sequential(*inputs)
        got = slstm_fused(*(x.float().cuda() for x in inputs))
        for g, w in zip(got, want):
            assert g.device.type == "cuda" and rel_err(g.cpu(), w) < FP32_TOL
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
