"""DeltaProduct: the interleaved chunked op against its fp64 reference, NE Prop. 1 on explicit matrices, the model.

Ground truth:

- the op: ``delta_product_sequential`` in fp64 (nested loops over tokens and Householder sub-steps;
  it shares no code with the chunked path), itself pinned by an explicit product of d×d matrices;
- n_h = 1 against DeltaNet (``delta_rule_sequential`` and the ``deltanet`` model on the same weights);
- the spectrum: explicit products of generalized Householder matrices, eigenvalues by LAPACK.

Tolerances as in test_ops.py (norm-relative): fp32 fast vs fp64 reference ``1e-5`` (measured ≤ 7e-7),
fp64 vs fp64 ``1e-12``.

Runtime: about 3 s on 2 CPU threads.
"""

from __future__ import annotations

import warnings

import pytest
import torch
import torch.nn.functional as F

from statetrack.config import ConfigError
from statetrack.models import make_model, model_config
from statetrack.models.ops import (
    PAIRS,
    delta_product_chunked,
    delta_product_fla,
    delta_product_sequential,
    delta_rule_chunked,
    delta_rule_fla,
    delta_rule_sequential,
)
from statetrack.models.ops import delta as delta_module
from statetrack.theory.householder import gh_product as householder_product  # explicit A = H_{n_h} ⋯ H_1
from helpers import rel_err

FP32_TOL = 1e-5
FP64_TOL = 1e-12


def product_inputs(B, H, T, n_h, dk, dv, beta_max, with_S0, gen):
    q = torch.randn(B, H, T, dk, generator=gen, dtype=torch.float64)  # (B, H, T, dk)
    k = F.normalize(torch.randn(B, H, T, n_h, dk, generator=gen, dtype=torch.float64), dim=-1)  # unit keys
    v = torch.randn(B, H, T, n_h, dv, generator=gen, dtype=torch.float64)  # (B, H, T, n_h, dv)
    beta = beta_max * torch.rand(B, H, T, n_h, generator=gen, dtype=torch.float64)  # (B, H, T, n_h)
    S0 = torch.randn(B, H, dk, dv, generator=gen, dtype=torch.float64) if with_S0 else None  # (B, H, dk, dv)
    return [q, k, v, beta, S0]


# ---------------------------------------------------------------------------------------------------------
# The op pair
# ---------------------------------------------------------------------------------------------------------

CASES = [
    # (B, H, T, n_h, dk, dv, beta_max, chunk_size, with_S0)
    pytest.param(2, 2, 37, 2, 8, 8, 2.0, 32, True, id="nh2-beta[0,2]-T37-C32-S0"),
    pytest.param(2, 2, 37, 2, 8, 8, 1.0, 32, True, id="nh2-beta[0,1]-T37-C32-S0"),
    pytest.param(2, 2, 23, 3, 6, 5, 2.0, 16, True, id="nh3-T23-C16-chunks-split-tokens"),
    pytest.param(2, 1, 16, 2, 8, 8, 2.0, 32, False, id="nh2-T16-exactly-one-chunk-zero-S0"),
    pytest.param(2, 2, 1, 4, 5, 3, 2.0, 32, True, id="nh4-T1"),
    pytest.param(2, 2, 30, 1, 8, 8, 2.0, 7, True, id="nh1-C7"),
    pytest.param(1, 2, 20, 3, 4, 4, 2.0, 1, True, id="nh3-C1-one-step-chunks"),
]


@pytest.mark.parametrize("B, H, T, n_h, dk, dv, beta_max, chunk_size, with_S0", CASES)
def test_delta_product_chunked_matches_fp64_reference(B, H, T, n_h, dk, dv, beta_max, chunk_size, with_S0):
    """Outputs, final state and the gradient of every input, fast path in fp32 and fp64."""
    gen = torch.Generator().manual_seed(0)
    inputs = product_inputs(B, H, T, n_h, dk, dv, beta_max, with_S0, gen)
    leaves = [None if x is None else x.clone().requires_grad_() for x in inputs]
    o_ref, S_ref = delta_product_sequential(*leaves)
    go, gS = torch.randn_like(o_ref), torch.randn_like(S_ref)
    grads_ref = torch.autograd.grad((o_ref, S_ref), [x for x in leaves if x is not None], (go, gS))
    for dtype, tol in ((torch.float32, FP32_TOL), (torch.float64, FP64_TOL)):
        fast_leaves = [None if x is None else x.detach().to(dtype).requires_grad_() for x in inputs]
        o, S = delta_product_chunked(*fast_leaves, chunk_size=chunk_size)
        assert o.dtype == S.dtype == dtype and o.shape == o_ref.shape and S.shape == S_ref.shape
        assert rel_err(o, o_ref) < tol, f"{dtype} output"
        assert rel_err(S, S_ref) < tol, f"{dtype} final state"
        grads = torch.autograd.grad((o, S), [x for x in fast_leaves if x is not None], (go.to(dtype), gS.to(dtype)))
        for i, (g, g_ref) in enumerate(zip(grads, grads_ref)):
            assert rel_err(g, g_ref) < tol, f"{dtype} grad of input {i}: {rel_err(g, g_ref):.2e}"


def test_reference_transition_is_the_explicit_householder_product():
    """With v = 0, S_T = A_T ⋯ A_1 S_0 with A_t = H_{t,n_h} ⋯ H_{t,1} built as d×d matrices."""
    gen = torch.Generator().manual_seed(1)
    q, k, _, beta, S0 = product_inputs(1, 2, 6, 3, 5, 4, 2.0, True, gen)
    v = torch.zeros(1, 2, 6, 3, 4, dtype=torch.float64)  # (B, H, T, n_h, dv)
    o, S = delta_product_sequential(q, k, v, beta, S0)
    A = householder_product(k, beta)  # (B, H, T, d, d)
    want = S0
    outs = []
    for t in range(6):
        want = A[:, :, t] @ want  # (B, H, dk, dv)
        outs.append((q[:, :, t, None, :] @ want)[:, :, 0])  # (B, H, dv) S_tᵀ q_t
    assert rel_err(S, want) < FP64_TOL
    assert rel_err(o, torch.stack(outs, dim=2)) < FP64_TOL


def test_hand_worked_two_reflections_make_a_rotation():
    """n_h = 2, β = 2: reflect across e_1⊥ then across (e_1+e_2)/√2 ⊥: a rotation by 90° of the (e_1, e_2) plane."""
    e1, e2 = torch.eye(2, dtype=torch.float64)
    k = torch.stack([e1, (e1 + e2) / 2 ** 0.5]).view(1, 1, 1, 2, 2)  # (B, H, T, n_h, d)
    beta = torch.full((1, 1, 1, 2), 2.0, dtype=torch.float64)  # (B, H, T, n_h)
    v = torch.zeros(1, 1, 1, 2, 1, dtype=torch.float64)  # (B, H, T, n_h, dv)
    S0 = torch.tensor([[1.0], [0.0]], dtype=torch.float64).view(1, 1, 2, 1)  # state = e_1
    q = e2.view(1, 1, 1, 2)
    for fn in (delta_product_sequential, delta_product_chunked):
        o, S = fn(q, k, v, beta, S0)
        # H_1 e_1 = −e_1; H_2 (−e_1) = −(e_1 − (e_1+e_2)) = e_2.
        assert torch.allclose(S.flatten(), e2, atol=1e-15)
        assert o.item() == pytest.approx(1.0)


def test_nh1_equals_the_delta_rule():
    gen = torch.Generator().manual_seed(2)
    q, k, v, beta, S0 = product_inputs(2, 2, 41, 1, 6, 6, 2.0, True, gen)
    o_dp, S_dp = delta_product_chunked(q, k, v, beta, S0)
    o_dn, S_dn = delta_rule_sequential(q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0], S0)
    assert rel_err(o_dp, o_dn) < FP64_TOL and rel_err(S_dp, S_dn) < FP64_TOL


def test_identity_second_factor_equals_deltanet_on_the_first():
    """n_h = 2 with β_{t,2} = 0 (H_2 = I, no write) is DeltaNet on the first triples."""
    gen = torch.Generator().manual_seed(3)
    q, k, v, beta, S0 = product_inputs(2, 2, 33, 2, 6, 6, 2.0, True, gen)
    beta[..., 1] = 0.0
    o_dp, S_dp = delta_product_chunked(q, k, v, beta, S0, chunk_size=8)
    o_dn, S_dn = delta_rule_sequential(q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0], S0)
    assert rel_err(o_dp, o_dn) < FP64_TOL and rel_err(S_dp, S_dn) < FP64_TOL


def test_registered_pair_inputs_are_in_range():
    pair = PAIRS["delta_product"]
    gen = torch.Generator().manual_seed(0)
    q, k, v, beta, S0 = pair.make_inputs(pair.sizes["cpu"], 10, torch.float32, "cpu", gen)
    assert k.shape[3] == pair.sizes["cpu"]["n_h"]
    assert torch.allclose(k.norm(dim=-1), torch.ones(()), atol=1e-6)
    assert beta.min() >= 0 and beta.max() <= 2


# ---------------------------------------------------------------------------------------------------------
# NE Prop. 1 on explicit products of generalized Householder matrices
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n_h", [1, 2, 3, 5])
def test_householder_products_have_spectral_norm_at_most_one(n_h):
    """NE Prop. 1.1: every product of GH matrices with β ∈ [0, 2] (eigenvalues in [−1, 1]) has ‖A‖₂ ≤ 1."""
    gen = torch.Generator().manual_seed(n_h)
    k = F.normalize(torch.randn(500, n_h, 6, generator=gen, dtype=torch.float64), dim=-1)  # (N, n_h, d)
    beta = 2 * torch.rand(500, n_h, generator=gen, dtype=torch.float64)  # (N, n_h)
    beta[:50] = 2.0  # pure reflections: orthogonal products, norm exactly 1
    A = householder_product(k, beta)  # (N, d, d)
    norms = torch.linalg.matrix_norm(A, ord=2)  # (N,)
    assert (norms <= 1 + 1e-12).all()
    assert torch.allclose(norms[:50], torch.ones(50, dtype=torch.float64), atol=1e-12)


def test_nh2_with_beta_in_0_1_has_real_eigenvalues_in_0_1():
    """NE Prop. 1.3: products of k ≤ 2 GH matrices with eigenvalues in [0, 1] have real spectrum in [0, 1]."""
    gen = torch.Generator().manual_seed(5)
    k = F.normalize(torch.randn(1000, 2, 5, generator=gen, dtype=torch.float64), dim=-1)  # (N, 2, d)
    beta = torch.rand(1000, 2, generator=gen, dtype=torch.float64)  # (N, 2) in [0, 1]
    ev = torch.linalg.eigvals(householder_product(k, beta))  # (N, d) complex
    assert ev.imag.abs().max() < 1e-6
    assert ev.real.min() > -1e-9 and ev.real.max() < 1 + 1e-9


def test_nh2_with_beta_in_0_2_produces_complex_eigenvalues():
    """With [−1, 1] two reflections already compose to a rotation: eigenvalues e^{±iθ} off the real line."""
    gen = torch.Generator().manual_seed(6)
    k = F.normalize(torch.randn(200, 2, 5, generator=gen, dtype=torch.float64), dim=-1)  # (N, 2, d)
    beta = 1 + torch.rand(200, 2, generator=gen, dtype=torch.float64)  # (N, 2) in [1, 2]
    ev = torch.linalg.eigvals(householder_product(k, beta))  # (N, d)
    assert ev.imag.abs().max() > 0.5
    assert ev.abs().max() <= 1 + 1e-9  # still inside the unit disc (Prop. 1.1)


# ---------------------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------------------


def build(name, **fields):
    torch.manual_seed(0)
    return make_model(model_config(name, **{"d_model": 16, "num_heads": 2, **fields}), vocab_size=5, num_classes=3)


@pytest.mark.parametrize("d_conv", [0, 4], ids=["noconv", "conv4"])
@pytest.mark.parametrize("eig_range", ["[0,1]", "[-1,1]"])
def test_nh1_model_equals_deltanet_on_the_same_weights(eig_range, d_conv):
    net = build("deltanet", eig_range=eig_range, d_conv=d_conv, num_layers=2)
    prod = build("deltaproduct", eig_range=eig_range, d_conv=d_conv, num_layers=2, num_householder=1)
    prod.load_state_dict(net.state_dict())  # same parameter names and shapes when n_h = 1
    tokens = torch.randint(0, 5, (3, 45))
    torch.testing.assert_close(prod(tokens), net(tokens), rtol=1e-5, atol=1e-6)


def test_model_backends_agree_and_model_is_causal():
    fast = build("deltaproduct", num_householder=3, eig_range="[-1,1]")
    ref = build("deltaproduct", num_householder=3, eig_range="[-1,1]", backend="reference")
    ref.load_state_dict(fast.state_dict())
    x = torch.randint(0, 5, (2, 40))
    y = fast(x)
    torch.testing.assert_close(y, ref(x), rtol=1e-5, atol=1e-5)
    x2 = x.clone()
    x2[:, 20:] = (x2[:, 20:] + 1) % 5
    torch.testing.assert_close(fast(x2)[:, :20], y[:, :20], rtol=0, atol=1e-6)


def _push_beta(model, bias):
    with torch.no_grad():
        for block in model.blocks:
            block.mixer.b_proj.bias.fill_(bias)


def test_model_transitions_norm_and_spectrum():
    x = torch.randint(0, 5, (3, 12))
    pos = build("deltaproduct", num_householder=2, eig_range="[0,1]")
    neg = build("deltaproduct", num_householder=2, eig_range="[-1,1]")
    _push_beta(neg, 4.0)  # β ≈ 2 · 0.98: near-reflections
    with torch.no_grad():
        for m in (pos, neg):
            A = m.blocks[0].mixer.transition_matrices(m.embed(x))  # (B, T, H, d, d)
            assert A.shape == (3, 12, 2, 8, 8)
            assert (torch.linalg.matrix_norm(A.double(), ord=2) <= 1 + 1e-5).all()
        ev_pos = pos.transition_eigenvalues(x)[0]  # (B, T, H·d) complex
        ev_neg = neg.transition_eigenvalues(x)[0]
    assert ev_pos.is_complex() and ev_pos.shape == (3, 12, 16)
    assert ev_pos.imag.abs().max() < 1e-5  # real up to rounding (NE Prop. 1.3)
    assert ev_pos.real.min() > -1e-5 and ev_pos.real.max() < 1 + 1e-5
    assert ev_neg.imag.abs().max() > 0.5  # rotations: complex eigenvalues
    assert ev_neg.abs().max() < 1 + 1e-5


def test_config_fields_and_errors():
    cfg = model_config("deltaproduct")
    assert cfg.num_householder == 2 and cfg.backend == "fast" and cfg.label == "deltaproduct2-pos"
    assert model_config("deltaproduct", num_householder=3, eig_range="[-1,1]").label == "deltaproduct3-neg"
    with pytest.raises(ConfigError, match="num_householder=0"):
        model_config("deltaproduct", num_householder=0)
    with pytest.raises(ConfigError, match="num_heads=3 does not divide d_model=16"):
        model_config("deltaproduct", d_model=16, num_heads=3)
    with pytest.raises(ConfigError, match="eig_range"):
        model_config("deltaproduct", eig_range="[0,2]")
    with pytest.raises(ConfigError, match="backend"):
        model_config("mamba", backend="fla")  # fla is a delta-rule backend only
    assert model_config("deltanet", backend="fla").backend == "fla"


# ---------------------------------------------------------------------------------------------------------
# The fla backend's fallback (fla is GPU-only; on CPU it must fall back cleanly, warning once)
# ---------------------------------------------------------------------------------------------------------


def test_fla_ops_fall_back_to_the_chunked_op_with_one_warning(monkeypatch):
    monkeypatch.setattr(delta_module, "_FLA_WARNED", set())
    gen = torch.Generator().manual_seed(7)
    q, k, v, beta, S0 = (None if x is None else x.float() for x in product_inputs(2, 2, 20, 2, 4, 4, 2.0, True, gen))
    with pytest.warns(RuntimeWarning, match="backend='fla' needs CUDA tensors"):
        o, S = delta_product_fla(q, k, v, beta, S0)
    o_ref, S_ref = delta_product_chunked(q, k, v, beta, S0)
    assert torch.equal(o, o_ref) and torch.equal(S, S_ref)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second call is silent
        o1, S1 = delta_rule_fla(q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0], S0)
    o1_ref, S1_ref = delta_rule_chunked(q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0], S0)
    assert torch.equal(o1, o1_ref) and torch.equal(S1, S1_ref)


@pytest.mark.parametrize("name", ["deltanet", "deltaproduct"])
def test_fla_backend_model_on_cpu_equals_fast(name, monkeypatch):
    monkeypatch.setattr(delta_module, "_FLA_WARNED", set())
    fla, fast = build(name, backend="fla"), build(name)
    fla.load_state_dict(fast.state_dict())
    x = torch.randint(0, 5, (2, 30))
    with pytest.warns(RuntimeWarning, match="pure-torch chunked delta rule"):
        y = fla(x)
    torch.testing.assert_close(y, fast(x), rtol=0, atol=0)


def _fake_fla_chunk_delta_rule(q, k, v, beta, scale=None, initial_state=None, output_final_state=False,
                               use_qk_l2norm_in_kernel=False, cu_seqlens=None):
    """A CPU stand-in with fla's documented contract: (B, T, H, ·) layout, non-fp32 inputs, default scale 1/√K."""
    assert q.dtype != torch.float32 and q.dtype == k.dtype == v.dtype  # fla's asserts
    assert beta.shape == q.shape[:3]  # (B, T, H)
    assert not use_qk_l2norm_in_kernel
    scale = q.shape[-1] ** -0.5 if scale is None else scale

    def ours(x):
        return x.double().transpose(1, 2)  # (B, H, T, ·)

    o, S = delta_rule_sequential(ours(q) * scale, ours(k), ours(v), ours(beta), initial_state.double())
    return o.transpose(1, 2).to(q.dtype), (S.float() if output_final_state else None)


def test_fla_adapter_layout_scale_and_dtypes(monkeypatch):
    """With a stand-in kernel that follows fla's contract, ``delta_*_fla`` match our ops within bf16 rounding."""
    monkeypatch.setattr(delta_module, "_fla_kernel_for", lambda q: _fake_fla_chunk_delta_rule)
    gen = torch.Generator().manual_seed(8)
    q, k, v, beta, S0 = (x.float() for x in product_inputs(2, 3, 29, 2, 8, 6, 2.0, True, gen))
    q = F.normalize(q, dim=-1)
    o, S = delta_product_fla(q, k, v, beta, S0)
    o_ref, S_ref = delta_product_chunked(q, k, v, beta, S0)
    assert o.dtype == S.dtype == torch.float32 and o.shape == o_ref.shape and S.shape == S_ref.shape
    assert rel_err(o, o_ref) < 3e-2 and rel_err(S, S_ref) < 3e-2  # bf16 inputs: ~4e-3 per value
    o1, S1 = delta_rule_fla(q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0], S0)
    o1_ref, S1_ref = delta_rule_chunked(q, k[:, :, :, 0], v[:, :, :, 0], beta[..., 0], S0)
    assert rel_err(o1, o1_ref) < 3e-2 and rel_err(S1, S1_ref) < 3e-2
