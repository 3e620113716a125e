"""The ``transformer`` model and its attention pair: fast == reference, causality, positions, config errors.

Ground truth for attention is ``causal_attention_reference`` in fp64 (the explicit masked softmax);
a hand-worked case (q = 0 gives running means of v) pins the reference itself. RoPE is checked by
its defining property: rotated dot products depend only on the position difference.

Tolerances (norm-relative): fp32 SDPA vs fp64 reference ``1e-5`` (measured ~1e-7), fp64 vs fp64 ``1e-12``;
a gradient whose reference is exactly zero is held to the same numbers times the size of the terms that cancel.

Runtime: about 2 s on 2 CPU threads.
"""

from __future__ import annotations

import pytest
import torch

from statetrack.config import ConfigError
from statetrack.models import make_model, model_config
from statetrack.models.ops import PAIRS, causal_attention, causal_attention_reference
from statetrack.models.transformer import rotary
from helpers import rel_err


# ---------------------------------------------------------------------------------------------------------
# The attention pair
# ---------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("B, H, T, S, d, causal", [
    pytest.param(2, 3, 37, 37, 8, True, id="causal-T37"),
    pytest.param(3, 2, 1, 1, 4, True, id="causal-T1"),
    pytest.param(2, 2, 64, 64, 16, True, id="causal-T64-d16"),
    pytest.param(2, 2, 1, 13, 8, False, id="one-query-against-a-cache"),
])
def test_attention_fast_matches_fp64_reference(B, H, T, S, d, causal):
    gen = torch.Generator().manual_seed(0)
    q = torch.randn(B, H, T, d, generator=gen, dtype=torch.float64)  # (B, H, T, d)
    k = torch.randn(B, H, S, d, generator=gen, dtype=torch.float64)  # (B, H, S, d)
    v = torch.randn(B, H, S, d, generator=gen, dtype=torch.float64)  # (B, H, S, d)
    leaves = [x.clone().requires_grad_() for x in (q, k, v)]
    o_ref = causal_attention_reference(*leaves, causal=causal)
    up = torch.randn_like(o_ref)
    g_ref = torch.autograd.grad(o_ref, leaves, up)
    # ∂o/∂k is exactly zero when every query sees one key (softmax over one score is constant): the fast
    # path returns its rounding there, the cancellation of p ⊙ (up·v − Σ p up·v) times q/√d, so its
    # bound is absolute, on the size of the terms that cancel.
    cancelling = (up.norm() * v.norm() * q.norm() / d ** 0.5).item()
    for dtype, tol in ((torch.float32, 1e-5), (torch.float64, 1e-12)):
        fl = [x.detach().to(dtype).requires_grad_() for x in (q, k, v)]
        o = causal_attention(*fl, causal=causal)
        assert o.dtype == dtype and rel_err(o, o_ref) < tol
        for g, gr in zip(torch.autograd.grad(o, fl, up.to(dtype)), g_ref):
            assert rel_err(g, gr, scale=None if gr.norm() > 0 else cancelling) < tol


@pytest.mark.parametrize("fn", [causal_attention_reference, causal_attention], ids=["reference", "fast"])
def test_attention_hand_worked_running_mean(fn):
    # q = 0: all scores equal, so o_i = mean(v_1..v_i) under the causal mask.
    v = torch.tensor([1.0, 3.0, 5.0, 7.0], dtype=torch.float64).view(1, 1, 4, 1)  # (B, H, T, 1)
    q = torch.zeros(1, 1, 4, 1, dtype=torch.float64)
    k = torch.randn(1, 1, 4, 1, dtype=torch.float64)
    assert fn(q, k, v).flatten().tolist() == pytest.approx([1.0, 2.0, 3.0, 4.0])


def test_registered_attention_pair_returns_a_tuple():
    pair = PAIRS["attention"]
    inputs = pair.make_inputs(pair.sizes["cpu"], 9, torch.float64, "cpu", torch.Generator().manual_seed(0))
    (o_ref,), (o,) = pair.reference(*inputs), pair.fast(*inputs)
    assert o.shape == (32, 4, 9, 16) and rel_err(o, o_ref) < 1e-12
    assert pair.state_output == 0


# ---------------------------------------------------------------------------------------------------------
# Rotary positions
# ---------------------------------------------------------------------------------------------------------


def test_rotary_dot_products_depend_only_on_the_offset():
    gen = torch.Generator().manual_seed(1)
    q = torch.randn(8, generator=gen, dtype=torch.float64)  # (d,)
    k = torch.randn(8, generator=gen, dtype=torch.float64)  # (d,)

    def at(x, p):
        return rotary(x.view(1, 1, 1, 8), start=p).flatten()  # x placed at position p

    scores = [at(q, m + 5) @ at(k, m) for m in (0, 3, 100, 1000)]  # offset 5 everywhere
    assert max(scores) - min(scores) < 1e-10
    assert torch.allclose(at(q, 0), q)  # position 0 is the identity
    assert torch.allclose(at(q, 17).norm(), q.norm())  # a rotation
    assert abs(at(q, 6) @ at(k, 0) - scores[0]) > 1e-3  # another offset gives another score


# ---------------------------------------------------------------------------------------------------------
# The model
# ---------------------------------------------------------------------------------------------------------


def build(**fields):
    torch.manual_seed(0)
    return make_model(model_config("transformer", **{"d_model": 16, "num_heads": 2, **fields}), 5, 3)


@pytest.mark.parametrize("positions", ["learned", "rotary"])
def test_model_is_causal_and_backends_agree(positions):
    fast = build(positions=positions, num_layers=2)
    ref = build(positions=positions, num_layers=2, backend="reference")
    ref.load_state_dict(fast.state_dict())
    x = torch.randint(0, 5, (3, 30))
    y = fast(x)
    assert y.shape == (3, 30, 3)
    torch.testing.assert_close(ref(x), y, rtol=1e-5, atol=1e-6)
    x2 = x.clone()
    x2[:, 11:] = (x2[:, 11:] + 1) % 5  # change only the future
    torch.testing.assert_close(fast(x2)[:, :11], y[:, :11], rtol=0, atol=1e-6)


def test_learned_positions_refuse_lengths_beyond_max_len():
    model = build(max_len=10)
    model(torch.zeros(2, 10, dtype=torch.long))  # exactly max_len is fine
    with pytest.raises(ValueError, match=r"sequence length 11 exceeds max_len=10.*default is 512"):
        model(torch.zeros(2, 11, dtype=torch.long))
    state = model.init_state(2)
    for _ in range(10):
        _, state = model.step(torch.zeros(2, dtype=torch.long), state)
    with pytest.raises(ValueError, match="sequence length 11 exceeds max_len=10"):
        model.step(torch.zeros(2, dtype=torch.long), state)


def test_rotary_positions_have_no_length_limit():
    model = build(positions="rotary", max_len=10)
    assert model.pos is None
    assert model(torch.zeros(1, 50, dtype=torch.long)).shape == (1, 50, 3)


def test_config_defaults_and_errors():
    cfg = model_config("transformer")
    assert (cfg.positions, cfg.max_len, cfg.mlp_ratio, cfg.backend) == ("learned", 512, 4, "fast")
    assert cfg.label == "transformer-learned"
    with pytest.raises(ConfigError, match="num_heads=3 does not divide d_model=16"):
        model_config("transformer", d_model=16, num_heads=3)
    with pytest.raises(ConfigError, match="positions"):
        model_config("transformer", positions="alibi")
    with pytest.raises(ConfigError, match="even head width"):
        model_config("transformer", d_model=12, num_heads=4, positions="rotary")
    with pytest.raises(ConfigError, match="max_len=0"):
        model_config("transformer", max_len=0)
    with pytest.raises(ConfigError, match="backend"):
        model_config("transformer", backend="fla")


def test_gpt2_initialisation_and_no_transition_matrix():
    model = build(num_layers=4, d_model=64, mlp_ratio=4)
    assert model.blocks[0].mixer.qkv.weight.std().item() == pytest.approx(0.02, rel=0.1)
    scaled = 0.02 / (2 * 4) ** 0.5
    assert model.blocks[0].mixer.proj.weight.std().item() == pytest.approx(scaled, rel=0.1)
    assert model.blocks[0].mlp.down.weight.std().item() == pytest.approx(scaled, rel=0.1)
    assert not model.blocks[0].mixer.qkv.bias.any()
    with pytest.raises(NotImplementedError, match="no state-transition matrix"):
        model.transition_eigenvalues(torch.zeros(1, 3, dtype=torch.long))
