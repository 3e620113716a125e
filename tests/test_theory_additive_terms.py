"""theory.additive_terms against exact rational arithmetic and the package's own diagonal bilinear model."""

from fractions import Fraction

import pytest
import torch

from statetrack.models import make_model, model_config
from statetrack.theory import additive_terms as at
from statetrack.theory import frozen_diagonal as fd


def _exact_signs(w, u, bits):
    """sign(h_T) by Fractions (no rounding at all): (N, S, H) as nested lists."""
    N, _, H = w.shape
    out = []
    for n in range(N):
        rows = []
        for word in bits.tolist():
            h = [Fraction(1)] * H
            for x in word:
                h = [Fraction(float(w[n, x, i])) * h[i] + Fraction(float(u[n, x, i])) for i in range(H)]
            rows.append([(v > 0) - (v < 0) for v in h])
        out.append(rows)
    return out


def test_docstring_example():
    w = torch.tensor([[[0.5], [-0.5]]], dtype=torch.float64)
    u = torch.ones(1, 2, 1, dtype=torch.float64)
    signs = at.affine_sign(w, u, torch.tensor([[1, 0], [0, 1]]))
    assert signs.flatten().tolist() == [1.0, 1.0]
    assert at.pure_sign(w, torch.tensor([[1, 0], [0, 1]])).flatten().tolist() == [-1.0, -1.0]


@pytest.mark.parametrize("T", [5, 60, 400])
def test_affine_sign_equals_exact_rationals(T):
    """At T = 400 the state leaves fp64's range for some units; Fractions never round."""
    w = fd.draw_weights(2, 3, seed=T) * 2.0  # (2, 2, 3) wide enough that some |w| > 2 and some < 0.5
    u = at.draw_additive(2, 3, seed=T)
    bits = torch.randint(0, 2, (4, T), generator=torch.Generator().manual_seed(T))
    assert at.affine_sign(w, u, bits).tolist() == [[[float(s) for s in r] for r in n] for n in _exact_signs(w, u, bits)]


def test_affine_sign_equals_the_package_model():
    """The package's diagonal bilinear model with additive=True (B x + b with b = 0), normalize none, fp64."""
    H = 6
    w = fd.draw_weights(1, H, seed=1)[0]  # (2, H)
    u = at.draw_additive(1, H, seed=1)[0]  # (2, H)
    model = make_model(model_config("bilinear", variant="diagonal", d_model=H, additive=True, normalize="none",
                                    backend="reference"), 3, 2).double()
    with torch.no_grad():
        model.transition.copy_(torch.cat([w, torch.ones(1, H, dtype=torch.float64)]))  # (3, H) padding keeps h
        model.in_proj.weight.zero_()
        model.in_proj.weight[:, :2] = u.T  # (H, 3): column v is u_v
        model.in_proj.bias.zero_()
    bits = torch.randint(0, 2, (16, 30), generator=torch.Generator().manual_seed(0))
    with torch.no_grad():
        h = model.states(bits, torch.ones(H, dtype=torch.float64))[:, -1]  # (S, H)
    assert torch.equal(torch.sign(h), at.affine_sign(w[None], u[None], bits)[0])


def test_same_transitions_with_and_without_additive_terms():
    w1 = fd.draw_weights(3, 4, seed=9)
    assert not torch.equal(w1, at.draw_additive(3, 4, seed=9))  # its own generator
    rows = at.ablation([2], 10, test_len=50, num_test=32)
    assert rows[0].predicted_pure == 0.75


def test_pure_rate_matches_frozen_diagonal_sweep():
    """The pure arm is exactly bl8's sweep at the same seeds (reused, not reimplemented)."""
    rows = at.ablation([1, 4], 30, test_len=100, num_test=64, seed=2)
    ref = fd.sweep([1, 4], 30, ("00", "01"), 100, "sign", num_test=64, seed=2)
    assert [r.pure for r in rows] == [r.rate for r in ref]


@pytest.mark.parametrize("call,match", [
    (lambda: at.ablation([1], 5, train_words=("00", "11")), "one must be even"),
    (lambda: at.ablation([1], 5, test_len=0), "test_len=0"),
    (lambda: at.draw_additive(0, 3, 0), "num_draws=0"),
    (lambda: at.affine_sign(torch.zeros(1, 2, 3), torch.zeros(1, 2, 4), torch.zeros(1, 2, dtype=torch.long)),
     "not allowed"),
    (lambda: at.affine_sign(torch.ones(1, 2, 3), torch.ones(1, 2, 3), torch.tensor([[0, 2]])), "bits must be 0 or 1"),
])
def test_bad_input_is_named(call, match):
    with pytest.raises(ValueError, match=match):
        call()
